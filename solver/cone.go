package solver

import (
	"fmt"
	"math"
)

// Cone is a closed convex cone K for a constraint c(w) ∈ -K (eq. (1):
// c(w) ⪯_K 0). Only the dual cone K* enters the algorithms: multipliers live
// in K* and are updated by μ ← Proj_{K*}(μ + βc(w)); the AL term of eq. (6),
// (1/2β)(dist²(μ + βc(w), -K) - ||μ||²), is computed as
// (1/2β)(||Proj_{K*}(μ+βc(w))||² - ||μ||²) by Moreau's identity
// v = Proj_{-K}(v) + Proj_{K*}(v). Implementations: Zero, NonNeg, SOC and
// Product (of any of them).
type Cone interface {
	// Dim is the number of constraint components m.
	Dim() int
	// Project writes Proj_K(v) into dst; dst may alias v.
	Project(dst, v []float64)
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
	_ Cone = SOC(0)
	_ Cone = Product(nil)

	_ DualJacobianCone = NonNeg(0)
	_ DualJacobianCone = Zero(0)
	_ DualJacobianCone = SOC(0)
	_ DualJacobianCone = Product(nil)
)

// DualJacobianCone is a Cone whose dual projection has a known (generalised)
// Jacobian, so that Newton's method can solve AL subproblems with it: the
// Hessian of (1/2β)||Proj_{K*}(μ+βc(w))||² is β∇c D ∇cᵀ + Σ_j y_j∇²c_j, with
// D the Jacobian of Proj_{K*} at μ+βc(w) and y the projection (eq. (56)).
type DualJacobianCone interface {
	Cone
	// DualJacobian writes an element of the (Clarke) generalised Jacobian of
	// Proj_{K*} at v into dst, m×m row-major: the Jacobian wherever the
	// projection is differentiable.
	DualJacobian(dst, v []float64)
}

// Violation returns dist_∞(c, -K): how far c is from satisfying c ∈ -K. It
// is Definition 1's residual dist_∞(c, N_{K*}(μ)) at μ = 0, because the
// normal cone of K* at 0 is the polar (K*)° = -K.
func Violation(k Cone, c []float64) float64 {
	if k == nil {
		return 0
	}
	return k.NormalDist(c, make([]float64, k.Dim()))
}

// Dim returns m.
func (k NonNeg) Dim() int { return int(k) }

// Project writes [v]_+ into dst: the orthant is self-dual.
func (k NonNeg) Project(dst, v []float64) { k.ProjectDual(dst, v) }

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

// DualJacobian writes diag(1{v_j > 0}) (at v_j = 0, the element 0).
func (k NonNeg) DualJacobian(dst, v []float64) {
	m := int(k)
	clear(dst[:m*m])
	for j, x := range v[:m] {
		if x > 0 {
			dst[j*m+j] = 1
		}
	}
}

func (k NonNeg) String() string { return fmt.Sprintf("nonneg(%d)", int(k)) }

// Dim returns m.
func (k Zero) Dim() int { return int(k) }

// Project writes 0: K = {0}.
func (k Zero) Project(dst, _ []float64) { clear(dst[:k]) }

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

// DualJacobian writes I: the dual projection is the identity.
func (k Zero) DualJacobian(dst, _ []float64) {
	m := int(k)
	clear(dst[:m*m])
	for j := 0; j < m; j++ {
		dst[j*m+j] = 1
	}
}

func (k Zero) String() string { return fmt.Sprintf("zero(%d)", int(k)) }

// coneDim is Dim for a possibly nil cone (nil means no constraint).
func coneDim(k Cone) int {
	if k == nil {
		return 0
	}
	return k.Dim()
}
