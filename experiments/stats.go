package experiments

import (
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/stat"
)

// MeanStd is a mean with its population standard deviation (numpy's default,
// ddof = 0, which the authors' tables used).
type MeanStd struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// MeanStdOf returns the population mean and standard deviation of x
// (zero for an empty x, never NaN).
func MeanStdOf(x []float64) MeanStd {
	if len(x) == 0 {
		return MeanStd{}
	}
	m, s := stat.PopMeanStdDev(x, nil)
	if math.IsNaN(s) {
		s = 0
	}
	return MeanStd{Mean: m, Std: s}
}

// MaxOf is the largest element of x (0 for an empty x).
func MaxOf(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	if math.IsInf(m, -1) {
		return 0
	}
	return m
}

func sortStrings(s []string) { sort.Strings(s) }

// RelDiff is |a - b| / |b|, the papers' relative difference, with the
// denominator kept away from zero so that no Inf reaches a table.
func RelDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300)
}

// Divergence counts a cell's diverged runs. A diverged run's iterate is
// meaningless (‖w‖ beyond Settings.MaxNorm), so it is flagged and counted,
// and left out of the solution columns (objective, feasibility, relative
// difference, worst max, KKT), not of the cost columns.
type Divergence struct {
	Diverged1 int `json:"diverged_alg1"`
	DivergedC int `json:"diverged_cprox"`
	Trials    int `json:"trials"`
	// RelDiffTrials counts the trials in RelDiff: neither run diverged.
	RelDiffTrials int `json:"reldiff_trials"`
}

// Which runs a solution cell summarises (Divergence.solCell).
const (
	CellA1 = iota
	CellCP
	CellBoth
)

// Has reports whether a solution cell has runs behind it: some run of the
// algorithm (cellA1, cellCP) or some trial with both runs (cellBoth) did
// not diverge. Rows from before the divergence counts (Trials = 0) do.
func (r Divergence) Has(which int) bool {
	if r.Trials == 0 {
		return true
	}
	left := r.RelDiffTrials
	switch which {
	case CellA1:
		left = r.Trials - r.Diverged1
	case CellCP:
		left = r.Trials - r.DivergedC
	}
	return left > 0
}

// SolCell returns v, or "-" when no run is behind the cell (has).
func (r Divergence) SolCell(which int, v string) string {
	if r.Has(which) {
		return v
	}
	return "-"
}

// FlagString renders "status xN" flags in a stable order; "ok" when none.
func FlagString(flags map[string]int) string {
	if len(flags) == 0 {
		return "ok"
	}
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sortStrings(keys)
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += "; "
		}
		s += k + " x" + strconv.Itoa(flags[k])
	}
	return s
}
