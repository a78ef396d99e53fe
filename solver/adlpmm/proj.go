package adlpmm

import (
	"math"
	"slices"
)

// ProjectBall writes into dst the Euclidean projection of x onto the unit
// ℓ_p ball {v : ‖v‖_p ≤ 1} for p = 1, 2 or +Inf (Beck 2017, Table 6.1, as
// listed in Appendix E.2) and returns dst. dst may alias x; a nil dst is
// allocated. It panics for any other p (Problem.Validate rejects them).
//
//   - p = 1: x itself if ‖x‖₁ ≤ 1, else the soft threshold
//     T_δ(x) = [|x| − δe]₊ ⊙ sgn(x) with ‖T_δ(x)‖₁ = 1, δ found by sorting;
//   - p = 2: x / max(‖x‖₂, 1);
//   - p = ∞: x clipped to [−1, 1].
func ProjectBall(dst, x []float64, p float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	}
	switch {
	case p == 1:
		var l1 float64
		for _, v := range x {
			l1 += math.Abs(v)
		}
		if l1 <= 1 {
			copy(dst, x)
			return dst
		}
		delta := l1Threshold(x)
		for i, v := range x {
			a := math.Max(math.Abs(v)-delta, 0)
			dst[i] = math.Copysign(a, v)
		}
	case p == 2:
		var ss float64
		for _, v := range x {
			ss += v * v
		}
		s := 1 / math.Max(math.Sqrt(ss), 1)
		for i, v := range x {
			dst[i] = s * v
		}
	case math.IsInf(p, 1):
		for i, v := range x {
			dst[i] = math.Min(math.Max(v, -1), 1)
		}
	default:
		panic("adlpmm: ProjectBall: p must be 1, 2 or +Inf")
	}
	return dst
}

// l1Threshold returns the δ > 0 with Σ[|xᵢ| − δ]₊ = 1, for ‖x‖₁ > 1: the
// root of the nonincreasing φ(δ) = ‖T_δ(x)‖₁ − 1 (Appendix E.2), found
// exactly by sorting |x| in decreasing order.
func l1Threshold(x []float64) float64 {
	a := make([]float64, len(x))
	for i, v := range x {
		a[i] = math.Abs(v)
	}
	slices.Sort(a)
	slices.Reverse(a)
	var cum, delta float64
	for k, v := range a {
		cum += v
		d := (cum - 1) / float64(k+1)
		if d >= v {
			break
		}
		delta = d
	}
	return delta
}

// ProjectSimplex writes into dst the Euclidean projection of x onto the
// probability simplex Δ = {q ≥ 0 : eᵀq = 1} and returns dst (sorting
// method: q = [x − τe]₊ with eᵀq = 1). dst may alias x; nil is allocated.
func ProjectSimplex(dst, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	}
	a := slices.Clone(x)
	slices.Sort(a)
	slices.Reverse(a)
	var cum, tau float64
	for k, v := range a {
		cum += v
		t := (cum - 1) / float64(k+1)
		if t >= v {
			break
		}
		tau = t
	}
	for i, v := range x {
		dst[i] = math.Max(v-tau, 0)
	}
	return dst
}

// DualNorm returns ‖x‖_{p*} with 1/p + 1/p* = 1 for p = 1, 2, +Inf.
func DualNorm(x []float64, p float64) float64 {
	switch {
	case p == 1:
		var m float64
		for _, v := range x {
			m = math.Max(m, math.Abs(v))
		}
		return m
	case p == 2:
		var ss float64
		for _, v := range x {
			ss += v * v
		}
		return math.Sqrt(ss)
	default:
		var s float64
		for _, v := range x {
			s += math.Abs(v)
		}
		return s
	}
}

// ProxDualNorm writes into dst prox_{τ‖·‖_{p*}}(u) = u − τ·Proj_{B_p}(u/τ)
// (Moreau decomposition, Beck 2017 Example 6.47; eq. (8) with
// τ = θ/(2Sc)) and returns dst. τ = 0 gives u. dst may alias u.
func ProxDualNorm(dst, u []float64, tau, p float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(u))
	}
	if tau == 0 {
		copy(dst, u)
		return dst
	}
	tmp := make([]float64, len(u))
	for i, v := range u {
		tmp[i] = v / tau
	}
	ProjectBall(tmp, tmp, p)
	for i, v := range u {
		dst[i] = v - tau*tmp[i]
	}
	return dst
}
