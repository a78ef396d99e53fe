package recheck

import "math"

// ConeKind is the cone of a block of a party's constraints.
type ConeKind int

const (
	// Orthant is R^m_+: c <= 0, μ >= 0.
	Orthant ConeKind = iota
	// ZeroCone is {0}: c = 0, μ free.
	ZeroCone
	// SecondOrder is the second-order cone {(s, x) : ||x||₂ <= s}, scalar
	// first: c ∈ -K, μ ∈ K* = K. A norm ball ||Gw - h||₂ <= T is
	// c = (-T, h - Gw).
	SecondOrder
)

// Block is Dim consecutive constraints of a party in one cone.
type Block struct {
	Kind ConeKind
	Dim  int
}

// SOCBoundaryTol is the relative gap s - ||x||₂ <= SOCBoundaryTol·s below
// which a multiplier μ = (s, x) ≠ 0 of a second-order cone counts as on
// the boundary of K*, where N_{K*}(μ) is a ray, not {0}: a projection puts
// μ there only up to rounding. Definition 1's residual jumps at the
// boundary, so the gate reads it as the runs do (solver.SOC.NormalDist).
const SOCBoundaryTol = 1e-10

// socInDual reports whether μ = (s, x) lies in K* = K up to the rounding
// of a projection onto it: ||x||₂ <= s + Gamma·(1 + |s|).
func socInDual(mu []float64) bool {
	return norm2(mu[1:]) <= mu[0]+Gamma*(1+math.Abs(mu[0]))
}

// SOCNormalDist is Definition 1's dist_∞(c, N_{K*}(μ)) for a second-order
// cone, μ ∈ K*:
//
//   - μ = 0: N = (K*)° = -K, so the distance is dist_∞(c, -K) (SOCPolarDist);
//   - μ interior to K*: N = {0}, the distance is ||c||_∞;
//   - μ = (s, x) on the boundary, μ ≠ 0: N = {λ(-s, x) : λ >= 0}, a ray,
//     and the distance is min_{λ>=0} ||c - λ(-s, x)||_∞ (rayDist).
func SOCNormalDist(c, mu []float64) float64 {
	s, a := mu[0], norm2(mu[1:])
	switch {
	case s <= 0 && a == 0:
		return SOCPolarDist(c)
	case s-a > SOCBoundaryTol*s:
		return normInf(c)
	}
	r := append([]float64{-s}, mu[1:]...)
	return rayDist(c, r)
}

// SOCPolarDist is dist_∞(c, -K) for the second-order cone K, c = (c_s,
// c_x): the least t >= 0 at which the box c + [-t, t]^m meets -K, i.e.
// with the box's best point (c_s - t, soft(c_x, t)) the root of
// φ(t) = c_s - t + ||soft(c_x, t)||₂, which falls with slope <= -1; found by
// bisection on [0, φ(0)] to the last bit.
func SOCPolarDist(c []float64) float64 {
	phi := func(t float64) float64 {
		var sq float64
		for _, v := range c[1:] {
			if e := math.Abs(v) - t; e > 0 {
				sq += e * e
			}
		}
		return c[0] - t + math.Sqrt(sq)
	}
	hi := phi(0)
	if hi <= 0 {
		return 0
	}
	lo := 0.0
	for lo < hi {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
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

// rayDist is min_{λ>=0} ||c - λr||_∞, exactly: the function is the
// maximum of the 2m affine functions ±(c_j - λr_j), convex, so its least
// value on [0, ∞) is at λ = 0 or where two of them with slopes of opposite
// signs cross; every such point is tried.
func rayDist(c, r []float64) float64 {
	g := func(l float64) float64 {
		var d float64
		for j := range c {
			d = math.Max(d, math.Abs(c[j]-l*r[j]))
		}
		return d
	}
	best := g(0)
	// Lines σ(c_j - λr_j), σ = ±1: value σc_j, slope -σr_j.
	for j := range c {
		for k := range c {
			for _, sj := range []float64{1, -1} {
				for _, sk := range []float64{1, -1} {
					slopeJ, slopeK := -sj*r[j], -sk*r[k]
					if slopeJ == slopeK {
						continue
					}
					l := (sk*c[k] - sj*c[j]) / (slopeJ - slopeK)
					if l > 0 && !math.IsInf(l, 0) {
						best = math.Min(best, g(l))
					}
				}
			}
		}
	}
	return best
}

func norm2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}
