package experiments

import (
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/stat"

	"github.com/fedcon/fedcon/solver"
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

// Tally adds one run of a table cell to its flags (status other than
// Converged, inner cap hits, local tolerance misses, a Converged run whose
// audited KKT residuals exceed eps = (ε1, ε2)) and, unless it diverged, its
// KKT residuals to the maxima kkt; a diverged run counts in diverged
// instead. It reports whether the run belongs in the solution columns
// (Divergence).
func Tally(flags map[string]int, name string, st solver.Status, stats solver.Stats, res solver.Residuals, eps [2]float64, kkt *[2]float64, diverged *int) bool {
	if st != solver.Converged {
		flags[name+" "+st.String()]++
	} else if res.Stationarity > eps[0] || res.Feasibility > eps[1] {
		// Test (11) passed on the solver's estimates, but the audit of
		// Definition 1 at the returned point did not.
		flags[name+" KKT above ε"]++
	}
	if stats.InnerCapHits > 0 {
		flags[name+" inner cap"]++
	}
	if stats.LocalMisses > 0 {
		flags[name+" local tol missed"]++
	}
	if st == solver.Diverged {
		*diverged++
		return false
	}
	kkt[0] = math.Max(kkt[0], res.Stationarity)
	kkt[1] = math.Max(kkt[1], res.Feasibility)
	return true
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
