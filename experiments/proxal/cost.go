package proxal

import (
	"math"
	"os"
	"unsafe"

	"github.com/fedcon/fedcon/experiments"
)

// QPCellCost models one LCQP cell (n clients, dimension d, m rows per party)
// with trials trials. Memory: each client keeps A_i and the factorisations
// of both methods (measured: about 3 d×d matrices per client, and 3 more per
// cell), with one d×d of slack each for the work matrices of the build, and
// the exact KKT system is (d + (n+1)m)². Time:
// the Haar rotation and U·diag·Uᵀ cost about 14/3·d³ per client, the KKT
// factorisation r³/3, and a trial n·d³ of factorisations plus about 1000
// inner iterations of two d² solves per client and method (measured: 745 at
// n = 10, d = 500).
func QPCellCost(n, d, m, trials int) (bytes, flops float64) {
	fn, fd, r := float64(n), float64(d), float64(d+(n+1)*m)
	bytes = 8 * (4*fn*fd*fd + 4*fd*fd + r*r)
	bytes += float64(trials) * float64(unsafe.Sizeof(QPTrial{}))
	flops = fn*14/3*fd*fd*fd + r*r*r/3
	flops += float64(trials) * (fn*fd*fd*fd + 2*2*1000*fn*fd*fd)
	return bytes, flops
}

// QPCostModel says what QPCellCost counts.
const QPCostModel = "per cell 8·(4n·d² + 4d² + (d+(n+1)m)²) bytes, (14/3·n·d³ + trials·(n·d³ + 4000·n·d²)) flops at 4 Gflop/s"

// Cost estimates RunQP's memory (every cell's instance stays in memory until
// the table is built) and serial time.
func (c *QPConfig) Cost(workers int) experiments.Cost {
	var cost experiments.Cost
	for _, cell := range c.Cells {
		if len(cell) != 3 {
			continue
		}
		b, f := QPCellCost(cell[0], cell[1], cell[2], c.Trials)
		cost.Bytes += b
		cost.Seconds += f / experiments.FlopRate
	}
	cost.Model = QPCostModel
	return cost
}

// builtinShapes are the rows and design-matrix columns of the built-in
// classification data sets (docs/datasets.md; TestBuiltinShapes loads them).
// adult-b counts its client rows plus the server's.
var builtinShapes = map[string][2]float64{
	"breast-cancer-wisc": {683, 10}, "adult-a": {32561, 109}, "monks-1": {556, 18},
	"adult-b": {30162 + 15060, 39}, "heart": {270, 14}, "abalone": {4177, 11},
}

// classShape bounds the rows and columns of a classification data set: the
// built-in sizes, or for a user's file rows·columns <= size/2 (every value
// takes at least a digit and a separator), counted as one square-ish table.
func classShape(name string, data *DataSource) (rows, cols float64) {
	if data != nil {
		if st, err := os.Stat(data.File); err == nil {
			cells := math.Max(1, float64(st.Size())/2)
			cols = math.Max(2, math.Min(math.Sqrt(cells), 1e4))
			return cells / cols, cols
		}
		return 1, 1 // unreadable: loading names the file
	}
	s, ok := builtinShapes[name]
	if !ok {
		return 1, 1
	}
	return s[0], s[1]
}

// The classification model's work per trial, both algorithms: passes over
// the data set (about 750 per row-feature, 4 flops each, whatever n) plus
// each client's dense d×d work (its metric M_i, Newton's factorisations:
// about 140·d³ per client). Measured on adult-a (d = 109), 10 trials per
// n: 2.5 s of CPU per trial at n = 50, 3.0 at 100, 10.4 at 200, 24.7 at
// 500; the model gives 4.9, 6.3, 11.7 and 25.3 s. Memory: about eight d×d
// matrices per client (M_i and its factor, the server's copy of M_i,
// Newton's Hessian and two copies of its factor, scratch): two adult-a
// n = 500 trials at once peaked at 1.43 GB (the model: 0.85 GB).
const (
	classPassFlops   = 3000
	classClientFlops = 140
)

const classCostModel = "data 24·rows·cols bytes plus, per running trial, 40·n·cols² + 16·rows bytes; " +
	"(3000·rows·cols + 140·n·cols³) flops per trial at 4 Gflop/s"

// classCost models a classification experiment over data sets of the given
// shapes, with clients counts and trials per cell, workers trials at once.
func classCost(shapes [][2]float64, clients []int, trials, workers int) experiments.Cost {
	var cost experiments.Cost
	nmax := 0
	for _, n := range clients {
		nmax = max(nmax, n)
	}
	running := float64(max(1, min(workers, trials)))
	for _, s := range shapes {
		rows, cols := s[0], s[1]
		// Per client three cols² arrays of doubles live (M_i, its factor,
		// the Newton factor), and the collector's headroom over them.
		mem := 24*rows*cols + running*(40*float64(nmax)*cols*cols+16*rows)
		cost.Bytes = math.Max(cost.Bytes, mem)
		for _, n := range clients {
			cost.Seconds += float64(trials) * (classPassFlops*rows*cols + classClientFlops*float64(n)*cols*cols*cols) / experiments.FlopRate
		}
	}
	cost.Model = classCostModel
	return cost
}

// Cost estimates the Neyman-Pearson experiment's memory and serial time.
func (c *NPConfig) Cost(workers int) experiments.Cost {
	var shapes [][2]float64
	if c.Data != nil {
		r, k := classShape("", c.Data)
		shapes = append(shapes, [2]float64{r, k})
	} else {
		for _, d := range c.Datasets {
			r, k := classShape(d, nil)
			shapes = append(shapes, [2]float64{r, k})
		}
	}
	return classCost(shapes, c.Clients, c.Trials, workers)
}

// Cost estimates the fairness experiment's memory and serial time.
func (c *FairConfig) Cost(workers int) experiments.Cost {
	r, k := classShape(c.Dataset, c.Data)
	return classCost([][2]float64{{r, k}}, c.Clients, c.Trials, workers)
}
