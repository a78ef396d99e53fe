package experiments

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// MeanStd is a mean with its population standard deviation (numpy's default,
// ddof = 0, which the authors' tables used).
type MeanStd struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// meanStd returns the population mean and standard deviation of x
// (zero for an empty x, never NaN).
func meanStd(x []float64) MeanStd {
	if len(x) == 0 {
		return MeanStd{}
	}
	m, s := stat.PopMeanStdDev(x, nil)
	if math.IsNaN(s) {
		s = 0
	}
	return MeanStd{Mean: m, Std: s}
}

func maxOf(x []float64) float64 {
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

// relDiff is |a - b| / |b|, the papers' relative difference, with the
// denominator kept away from zero so that no Inf reaches a table.
func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300)
}
