package adlpmm

import (
	"math"
	"slices"
)

// WorstWeights returns a maximiser of Σ q_s f_s over
// Q = {q ∈ Δ_S : ‖q − q̂‖_p ≤ θ}, q̂ ∈ Δ_S:
//
//   - p = ∞: Q is a box [max(0, q̂ − θ), min(1, q̂ + θ)] intersected with
//     Δ_S; the mass above the lower bounds goes to the largest f first;
//   - p = 1: θ/2 of mass moves from the smallest f to the largest;
//   - p = 2: q(τ) = Proj_Δ(q̂ + τf), with the largest τ ≥ 0 keeping
//     ‖q(τ) − q̂‖₂ ≤ θ (bisection; the KKT conditions of the ball
//     constraint).
func WorstWeights(f, qhat []float64, theta, p float64) []float64 {
	S := len(f)
	q := append([]float64(nil), qhat...)
	if theta == 0 || S == 1 {
		return q
	}
	order := make([]int, S)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case f[a] > f[b]:
			return -1
		case f[a] < f[b]:
			return 1
		}
		return 0
	})
	switch {
	case math.IsInf(p, 1):
		var mass float64
		for s := range q {
			q[s] = math.Max(0, qhat[s]-theta)
			mass += q[s]
		}
		left := 1 - mass
		for _, s := range order {
			add := math.Min(math.Min(1, qhat[s]+theta)-q[s], left)
			q[s] += add
			left -= add
		}
	case p == 1:
		top := order[0]
		move := math.Min(theta/2, 1-q[top])
		for k := S - 1; k > 0 && move > 0; k-- {
			s := order[k]
			take := math.Min(move, q[s])
			q[s] -= take
			q[top] += take
			move -= take
		}
	default:
		at := func(tau float64) []float64 {
			x := make([]float64, S)
			for s := range x {
				x[s] = qhat[s] + tau*f[s]
			}
			return ProjectSimplex(x, x)
		}
		dist := func(x []float64) float64 { return math.Sqrt(dist2sq(x, qhat)) }
		// The vertex of the largest f maximises over all of Δ_S.
		vert := make([]float64, S)
		vert[order[0]] = 1
		if dist(vert) <= theta {
			return vert
		}
		hi := 1.0
		for range 100 {
			if dist(at(hi)) > theta {
				break
			}
			hi *= 2
		}
		lo := 0.0
		for range 200 {
			mid := 0.5 * (lo + hi)
			if dist(at(mid)) <= theta {
				lo = mid
			} else {
				hi = mid
			}
		}
		q = at(lo)
	}
	return q
}

func dist2sq(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}
