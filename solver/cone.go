package solver

import (
	"fmt"
	"math"
)

// Cone is a closed convex cone K for a constraint c(w) ∈ -K. Only the dual
// cone K* enters the algorithms: multipliers live in K* and are updated by
// μ ← Proj_{K*}(μ + βc(w)); the AL term is (1/2β)(||Proj_{K*}(μ+βc(w))||² - ||μ||²).
type Cone interface {
	// Dim is the number of constraint components m.
	Dim() int
	// ProjectDual writes Proj_{K*}(v) into dst; dst may alias v.
	ProjectDual(dst, v []float64)
	// NormalDist returns dist_∞(c, N_{K*}(μ)) for μ ∈ K*: the feasibility and
	// complementarity residual of Definition 1.
	NormalDist(c, mu []float64) float64
	String() string
}

// NonNeg is the nonnegative orthant R^m_+: the constraint c(w) ≤ 0. It is
// self-dual, so Proj_{K*}(v) = [v]_+.
type NonNeg int

// Zero is the zero cone {0}: the constraint c(w) = 0. Its dual is R^m, so
// multipliers are not projected.
type Zero int

var (
	_ Cone = NonNeg(0)
	_ Cone = Zero(0)
)

// Dim returns m.
func (k NonNeg) Dim() int { return int(k) }

// ProjectDual writes [v]_+ into dst.
func (k NonNeg) ProjectDual(dst, v []float64) {
	for j, x := range v[:k] {
		dst[j] = math.Max(x, 0)
	}
}

// NormalDist: N_{R+}(μ_j) is {0} when μ_j > 0 and (-∞, 0] when μ_j = 0.
func (k NonNeg) NormalDist(c, mu []float64) float64 {
	var d float64
	for j, cj := range c[:k] {
		if mu[j] > 0 {
			d = math.Max(d, math.Abs(cj))
		} else {
			d = math.Max(d, cj)
		}
	}
	return d
}

func (k NonNeg) String() string { return fmt.Sprintf("nonneg(%d)", int(k)) }

// Dim returns m.
func (k Zero) Dim() int { return int(k) }

// ProjectDual copies v: K* = R^m.
func (k Zero) ProjectDual(dst, v []float64) { copy(dst[:k], v[:k]) }

// NormalDist is ||c||_∞: the normal cone of R^m is {0}.
func (k Zero) NormalDist(c, _ []float64) float64 {
	var d float64
	for _, cj := range c[:k] {
		d = math.Max(d, math.Abs(cj))
	}
	return d
}

func (k Zero) String() string { return fmt.Sprintf("zero(%d)", int(k)) }

// coneDim is Dim for a possibly nil cone (nil means no constraint).
func coneDim(k Cone) int {
	if k == nil {
		return 0
	}
	return k.Dim()
}
