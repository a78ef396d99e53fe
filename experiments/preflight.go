package experiments

import (
	"context"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"unsafe"
)

// Upper bounds shared by every experiment: beyond them a run is a typo,
// not an experiment, and would exhaust memory or time before any check.
const (
	MaxTrials = 100_000    // trials (or instances) per cell
	MaxIter   = 10_000_000 // outer and inner iteration caps
)

// CheckFinite reports the first NaN or ±Inf number in cfg, a config struct
// (or pointer to one), as a *ConfigError naming its YAML key: a non-finite
// value would run every trial and then fail to encode, and all such configs
// would share one trial hash.
func CheckFinite(cfg any) error {
	return checkFinite(reflect.ValueOf(cfg), "")
}

func checkFinite(v reflect.Value, key string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkFinite(v.Elem(), key)
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return &ConfigError{key, f, "must be a finite number"}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name, squash := FieldKey(sf)
			if name == "-" {
				continue
			}
			k := key
			if !squash {
				k = joinKey(key, name)
			}
			if err := checkFinite(v.Field(i), k); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkFinite(v.Index(i), key); err != nil {
				return err
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if err := checkFinite(v.MapIndex(k), joinKey(key, fmt.Sprint(k.Interface()))); err != nil {
				return err
			}
		}
	}
	return nil
}

// FieldKey is the YAML key of a config struct field (its mapstructure tag,
// else its lower-cased name) and whether it is squashed into its parent.
func FieldKey(sf reflect.StructField) (name string, squash bool) {
	tag := sf.Tag.Get("mapstructure")
	name, opts, _ := strings.Cut(tag, ",")
	squash = strings.Contains(opts, "squash") || (tag == "" && sf.Anonymous)
	if name == "" {
		name = strings.ToLower(sf.Name)
	}
	return name, squash
}

func joinKey(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// Interruptible runs f and returns its result, or ctx's error as soon as
// ctx is done: a dense factorisation or instance build cannot look at ctx
// inside gonum, so an interrupted caller stops waiting for it instead. The
// abandoned f runs to its end in the background and its result is dropped;
// the command exits right after, so nothing half-built is ever used. A nil
// ctx just calls f.
func Interruptible[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	if ctx == nil {
		return f()
	}
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Cost is a pre-flight estimate of a whole command: peak memory and serial
// compute time (divide by the workers for wall time). The models are
// deliberately simple and conservative; Model says what they count.
type Cost struct {
	Bytes   float64
	Seconds float64
	Model   string
}

// flopRate is the floating-point rate the time models assume for one core:
// the Table 4 cells ran at 6-11 Gflop/s of this model's count on one core
// here, so 4 Gflop/s overestimates the time rather than under.
const flopRate = 4e9

// qpCellCost models one LCQP cell (n clients, dimension d, m rows per party)
// with trials trials. Memory: each client keeps A_i and the factorisations
// of both methods (measured: about 3 d×d matrices per client, and 3 more per
// cell), with one d×d of slack each for the work matrices of the build, and
// the exact KKT system is (d + (n+1)m)². Time:
// the Haar rotation and U·diag·Uᵀ cost about 14/3·d³ per client, the KKT
// factorisation r³/3, and a trial n·d³ of factorisations plus about 1000
// inner iterations of two d² solves per client and method (measured: 745 at
// n = 10, d = 500).
func qpCellCost(n, d, m, trials int) (bytes, flops float64) {
	fn, fd, r := float64(n), float64(d), float64(d+(n+1)*m)
	bytes = 8 * (4*fn*fd*fd + 4*fd*fd + r*r)
	bytes += float64(trials) * float64(unsafe.Sizeof(QPTrial{}))
	flops = fn*14/3*fd*fd*fd + r*r*r/3
	flops += float64(trials) * (fn*fd*fd*fd + 2*2*1000*fn*fd*fd)
	return bytes, flops
}

const qpCostModel = "per cell 8·(4n·d² + 4d² + (d+(n+1)m)²) bytes, (14/3·n·d³ + trials·(n·d³ + 4000·n·d²)) flops at 4 Gflop/s"

// Cost estimates RunQP's memory (every cell's instance stays in memory until
// the table is built) and serial time.
func (c *QPConfig) Cost(workers int) Cost {
	var cost Cost
	for _, cell := range c.Cells {
		if len(cell) != 3 {
			continue
		}
		b, f := qpCellCost(cell[0], cell[1], cell[2], c.Trials)
		cost.Bytes += b
		cost.Seconds += f / flopRate
	}
	cost.Model = qpCostModel
	return cost
}

// Cost estimates the conic QP's memory and time with the LCQP model: every
// trial draws its own instance of the same size, workers at a time.
func (c *ConicQPConfig) Cost(workers int) Cost {
	var cost Cost
	for _, cell := range c.Cells {
		if len(cell) != 3 {
			continue
		}
		b, f := qpCellCost(cell[1], cell[0], cell[2], 1)
		cost.Bytes = math.Max(cost.Bytes, b*float64(max(1, min(workers, c.Trials))))
		cost.Seconds += float64(c.Trials) * f / flopRate
	}
	cost.Model = "per instance " + qpCostModel
	return cost
}

// FormatBytes renders b in the largest binary unit below it: "24.1 GiB".
func FormatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
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

// classPassFlops is the model's work of one classification trial: about
// 3000·n passes over a client's rows/n rows (measured: 500n to 3100n with
// the hessian rule on Tables 1-2), each 4·rows/n·cols flops.
const classPassFlops = 3000 * 4

const classCostModel = "data 24·rows·cols bytes plus, per running trial, 32·n·cols² + 16·rows bytes; " +
	"12000·rows·cols flops per trial at 4 Gflop/s"

// classCost models a classification experiment over data sets of the given
// shapes, with clients counts and trials per cell, workers trials at once.
func classCost(shapes [][2]float64, clients []int, trials, workers int) Cost {
	var cost Cost
	nmax := 0
	for _, n := range clients {
		nmax = max(nmax, n)
	}
	running := float64(max(1, min(workers, trials)))
	for _, s := range shapes {
		rows, cols := s[0], s[1]
		mem := 24*rows*cols + running*(32*float64(nmax)*cols*cols+16*rows)
		cost.Bytes = math.Max(cost.Bytes, mem)
		cost.Seconds += float64(len(clients)*trials) * classPassFlops * rows * cols / flopRate
	}
	cost.Model = classCostModel
	return cost
}

// Cost estimates the Neyman-Pearson experiment's memory and serial time.
func (c *NPConfig) Cost(workers int) Cost {
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
func (c *FairConfig) Cost(workers int) Cost {
	r, k := classShape(c.Dataset, c.Data)
	return classCost([][2]float64{{r, k}}, c.Clients, c.Trials, workers)
}

// sscaCostModel says what SSCASpecsCost counts.
const sscaCostModel = "per run and curve: T·B·E·(I for FedAvg)·6P training flops plus, per evaluation, " +
	"(train + test images)·2P, P = 794·J weights, at 4 Gflop/s"

// SSCASpecsCost estimates runs runs of every spec on data: the swish
// network's products dominate, about 2P flops per image forward and 6P
// for a training step (forward and backward).
func (c *SSCAConfig) SSCASpecsCost(data *SSCAData, specs []SSCASpec, runs int) Cost {
	p := float64(794 * c.Hidden) // 784 inputs + 10 outputs per hidden unit
	var images float64
	if data != nil {
		images = float64(data.EvalTrain.N + data.EvalTest.N)
	}
	var flops float64
	for _, s := range specs {
		evals := 0
		at := c.evalAt(s)
		for t := 1; t <= c.Rounds; t++ {
			if at(t) {
				evals++
			}
		}
		steps := float64(s.Batch * max(1, s.LocalSteps))
		if s.Algo == "fedavg" {
			steps *= float64(c.Clients)
		}
		flops += float64(runs) * (float64(c.Rounds)*steps*6*p + float64(evals)*images*2*p)
	}
	bytes := float64(runs) * float64(len(specs)) * float64(c.Rounds) * 64 // curves kept per run
	if data != nil {
		bytes += 8 * float64(data.Set.Train.N+data.Set.Test.N) * 784 // decoded images, dense bound
	}
	return Cost{Bytes: bytes, Seconds: flops / flopRate, Model: sscaCostModel}
}
