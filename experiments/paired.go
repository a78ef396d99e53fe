package experiments

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Paired compares two samples whose i-th elements share a seed (run i of
// two methods): the differences d_i = a_i - b_i, their mean and standard
// error, the paired t-test and the sign test.
type Paired struct {
	// N is the number of pairs.
	N int `json:"n"`
	// MeanDiff is the mean of d; SE its standard error, sd(d)/sqrt(N) with
	// the sample standard deviation (N - 1), 0 when N < 2.
	MeanDiff float64 `json:"mean_diff"`
	SE       float64 `json:"se"`
	// PT is the two-sided p-value of the paired t-test (N - 1 degrees of
	// freedom): 1 when N < 2 or every d is 0, 0 when the d are equal and
	// not 0.
	PT float64 `json:"p_t"`
	// Below and Above count the pairs with a < b and a > b (ties in
	// neither); PSign is the two-sided exact sign test on them (1 with no
	// untied pair).
	Below int     `json:"below"`
	Above int     `json:"above"`
	PSign float64 `json:"p_sign"`
}

// PairedOf compares a and b pair by pair. It panics if their lengths
// differ: callers pair runs by seed first.
func PairedOf(a, b []float64) Paired {
	if len(a) != len(b) {
		panic("experiments: PairedOf: samples of different lengths")
	}
	p := Paired{N: len(a), PT: 1, PSign: 1}
	if p.N == 0 {
		return p
	}
	for i := range a {
		p.MeanDiff += (a[i] - b[i]) / float64(p.N)
		switch {
		case a[i] < b[i]:
			p.Below++
		case a[i] > b[i]:
			p.Above++
		}
	}
	p.PSign = SignTestP(p.Below, p.Above)
	if p.N < 2 {
		return p
	}
	var ss float64
	for i := range a {
		e := a[i] - b[i] - p.MeanDiff
		ss += e * e
	}
	p.SE = math.Sqrt(ss / float64(p.N-1) / float64(p.N))
	switch {
	case p.SE > 0:
		t := math.Abs(p.MeanDiff) / p.SE
		p.PT = min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(p.N - 1)}.Survival(t))
	case p.MeanDiff != 0: // identical non-zero differences: no doubt left
		p.PT = 0
	}
	return p
}

// SignTestP is the two-sided exact sign test: the probability that a fair
// coin thrown below+above times gives a split at least as uneven,
// 2·P(X ≤ min(below, above)) for X ~ Binomial(n, 1/2), at most 1.
func SignTestP(below, above int) float64 {
	n := below + above
	if n == 0 {
		return 1
	}
	k := min(below, above)
	var p float64
	for i := 0; i <= k; i++ {
		p += math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
	}
	return min(1, 2*p)
}

// lchoose is log C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
