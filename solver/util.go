package solver

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
)

// ErrNonFinite signifies that a party returned NaN or ±Inf.
var ErrNonFinite = errors.New("solver: non-finite value")

const (
	blasTrans   = blas.Trans
	blasNoTrans = blas.NoTrans
)

func nan() float64 { return math.NaN() }

func abs(x float64) float64 { return math.Abs(x) }

func finiteScalar(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// sqDist returns ||a - b||².
func sqDist(a, b []float64) float64 {
	var s float64
	for j, x := range a {
		d := x - b[j]
		s += d * d
	}
	return s
}

// distInf returns ||a - b||_∞.
func distInf(a, b []float64) float64 {
	var s float64
	for j, x := range a {
		s = max(s, math.Abs(x-b[j]))
	}
	return s
}

// normInf returns ||a||_∞.
func normInf(a []float64) float64 {
	var s float64
	for _, x := range a {
		s = max(s, math.Abs(x))
	}
	return s
}

// equal reports whether a and b are equal element by element.
func equal(a, b []float64) bool {
	for j, x := range a {
		if x != b[j] {
			return false
		}
	}
	return true
}
