package solver

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/floats"
)

// SOC is the second-order (Lorentz) cone of dimension m, scalar first:
//
//	K = {(s, x) ∈ R × R^{m-1} : ||x||₂ <= s}.
//
// It is self-dual (K* = K). A norm-ball constraint ||Gw - h||₂ <= t is
// c(w) = (-t, h - Gw) ∈ -K, an affine map into a non-polyhedral cone
// (Section 1's eq. (1) with K_i a second-order cone).
type SOC int

// Dim returns m.
func (k SOC) Dim() int { return int(k) }

// Project writes Proj_K(v) into dst (closed form; K is self-dual).
func (k SOC) Project(dst, v []float64) { k.ProjectDual(dst, v) }

// ProjectDual writes Proj_{K*}(v) = Proj_K(v) into dst: with v = (s, x) and
// a = ||x||, v itself when a <= s, 0 when a <= -s, else ((s+a)/2)·(1, x/a).
func (k SOC) ProjectDual(dst, v []float64) {
	m := int(k)
	if m == 0 {
		return
	}
	s, x := v[0], v[1:m]
	a := floats.Norm(x, 2)
	switch {
	case a <= s:
		copy(dst[:m], v[:m])
	case a <= -s:
		clear(dst[:m])
	default:
		alpha := (s + a) / 2
		dst[0] = alpha
		for j, xj := range x {
			dst[1+j] = alpha * xj / a
		}
	}
}

// DualJacobian writes the Jacobian of Proj_K at v = (s, x), a = ||x||: I
// inside K (a <= s), 0 inside -K (a <= -s), and otherwise
//
//	½·[[1, x̄ᵀ], [x̄, (1 + s/a)I - (s/a)x̄x̄ᵀ]],   x̄ = x/a.
func (k SOC) DualJacobian(dst, v []float64) {
	m := int(k)
	clear(dst[:m*m])
	if m == 0 {
		return
	}
	s, x := v[0], v[1:m]
	a := floats.Norm(x, 2)
	switch {
	case a <= s:
		for j := 0; j < m; j++ {
			dst[j*m+j] = 1
		}
	case a <= -s:
	default:
		dst[0] = 0.5
		for j, xj := range x {
			dst[1+j] = 0.5 * xj / a
			dst[(1+j)*m] = 0.5 * xj / a
		}
		r := s / a
		for i, xi := range x {
			for j, xj := range x {
				dst[(1+i)*m+1+j] = -0.5 * r * (xi / a) * (xj / a)
			}
			dst[(1+i)*m+1+i] += 0.5 * (1 + r)
		}
	}
}

// socBoundaryTol is the relative gap s - ||x|| <= tol·s below which a
// multiplier μ = (s, x) counts as on the boundary of K*: Proj_{K*} puts μ
// there only up to rounding (a few ulps), and the normal cone jumps from
// {0} (interior) to a ray (boundary).
const socBoundaryTol = 1e-10

// NormalDist returns dist_∞(c, N_{K*}(μ)) for μ ∈ K* = K (Definition 1):
//
//   - μ = 0: N = (K*)° = -K, and dist_∞(c, -K) is the t >= 0 at which the
//     box c + [-t, t]^m first meets -K, the root of the decreasing
//     c_s - t + ||soft(c_x, t)||₂ (found by bisection);
//   - μ in the interior of K*: N = {0}, the distance is ||c||_∞;
//   - μ = (s, x) on the boundary, μ ≠ 0: N = {λ(-s, x) : λ >= 0}, a ray;
//     the distance min_{λ>=0} ||c - λ(-s, x)||_∞ is a convex function of λ,
//     minimised by ternary search.
func (k SOC) NormalDist(c, mu []float64) float64 {
	m := int(k)
	if m == 0 {
		return 0
	}
	s := mu[0]
	a := floats.Norm(mu[1:m], 2)
	switch {
	case s <= 0 && a == 0:
		return socPolarDist(c[:m])
	case s-a > socBoundaryTol*s:
		return normInf(c[:m])
	}
	r := make([]float64, m)
	r[0] = -s
	copy(r[1:], mu[1:m])
	return rayDist(c[:m], r)
}

// socPolarDist returns dist_∞(c, -K) for the second-order cone K.
func socPolarDist(c []float64) float64 {
	cs, cx := c[0], c[1:]
	phi := func(t float64) float64 {
		var sq, scale float64
		for _, v := range cx {
			if a := math.Abs(v) - t; a > 0 {
				scale = max(scale, a)
			}
		}
		if scale > 0 {
			for _, v := range cx {
				if a := math.Abs(v) - t; a > 0 {
					sq += (a / scale) * (a / scale)
				}
			}
		}
		return cs - t + scale*math.Sqrt(sq)
	}
	if phi(0) <= 0 {
		return 0
	}
	// phi decreases with slope <= -1, so its root lies in (0, phi(0)].
	lo, hi := 0.0, phi(0)
	for it := 0; it < 200 && lo < hi; it++ {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if phi(mid) <= 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// rayDist returns min_{λ>=0} ||c - λr||_∞.
func rayDist(c, r []float64) float64 {
	g := func(l float64) float64 {
		var d float64
		for j, cj := range c {
			d = max(d, math.Abs(cj-l*r[j]))
		}
		return d
	}
	rn := normInf(r)
	if rn == 0 {
		return normInf(c)
	}
	// g(λ) >= λ||r||_∞ - ||c||_∞ > g(0) beyond 2||c||_∞/||r||_∞.
	lo, hi := 0.0, 2*normInf(c)/rn
	for it := 0; it < 200 && hi-lo > 0; it++ {
		m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
		if m1 == lo || m2 == hi {
			break
		}
		if g(m1) <= g(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	return min(g(lo), g(hi), g(lo+(hi-lo)/2), g(0))
}

func (k SOC) String() string { return fmt.Sprintf("soc(%d)", int(k)) }

// Product is the Cartesian product K_1 × ... × K_p: the constraint
// components are the blocks' in order. Its dual is K_1* × ... × K_p*, and
// projections, normal cones and Jacobians act block by block.
type Product []Cone

// Dim returns the sum of the blocks' dimensions.
func (k Product) Dim() int {
	var m int
	for _, b := range k {
		m += b.Dim()
	}
	return m
}

// Project writes Proj_K(v) block by block.
func (k Product) Project(dst, v []float64) {
	var o int
	for _, b := range k {
		m := b.Dim()
		b.Project(dst[o:o+m], v[o:o+m])
		o += m
	}
}

// ProjectDual writes Proj_{K*}(v) block by block.
func (k Product) ProjectDual(dst, v []float64) {
	var o int
	for _, b := range k {
		m := b.Dim()
		b.ProjectDual(dst[o:o+m], v[o:o+m])
		o += m
	}
}

// NormalDist is the largest block distance: N_{K*}(μ) is the product of the
// blocks' normal cones, and the ∞-norm distance to a product separates.
func (k Product) NormalDist(c, mu []float64) float64 {
	var d float64
	var o int
	for _, b := range k {
		m := b.Dim()
		d = max(d, b.NormalDist(c[o:o+m], mu[o:o+m]))
		o += m
	}
	return d
}

// DualJacobian writes the block-diagonal Jacobian; it panics if a block is
// not a DualJacobianCone (hasHessian checks this first).
func (k Product) DualJacobian(dst, v []float64) {
	mAll := k.Dim()
	clear(dst[:mAll*mAll])
	var o int
	for _, b := range k {
		m := b.Dim()
		blk := make([]float64, m*m)
		b.(DualJacobianCone).DualJacobian(blk, v[o:o+m])
		for i := 0; i < m; i++ {
			copy(dst[(o+i)*mAll+o:(o+i)*mAll+o+m], blk[i*m:(i+1)*m])
		}
		o += m
	}
}

// differentiable reports whether every block has a dual Jacobian.
func (k Product) differentiable() bool {
	for _, b := range k {
		if p, ok := b.(Product); ok {
			if !p.differentiable() {
				return false
			}
			continue
		}
		if _, ok := b.(DualJacobianCone); !ok {
			return false
		}
	}
	return true
}

func (k Product) String() string {
	parts := make([]string, len(k))
	for i, b := range k {
		parts[i] = b.String()
	}
	return "product(" + strings.Join(parts, ", ") + ")"
}
