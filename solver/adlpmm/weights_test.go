package adlpmm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWorstWeights compares the greedy maximisers (p = 1, ∞) with
// lp.Simplex, and the p = 2 bisection with sampled points of Q.
func TestWorstWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 60 {
		S := 2 + trial%4
		f := randVec(rng, S, 1)
		qhat := ProjectSimplex(nil, randVec(rng, S, 1))
		theta := []float64{0, 0.05, 0.3, 2}[trial%4]
		for _, p := range []float64{1, 2, math.Inf(1)} {
			q := WorstWeights(f, qhat, theta, p)
			var sum, val float64
			d := make([]float64, S)
			for s := range q {
				if q[s] < -1e-12 {
					t.Fatalf("q = %v negative", q)
				}
				sum += q[s]
				val += q[s] * f[s]
				d[s] = q[s] - qhat[s]
			}
			// 1e-9: bisection to 200 halvings and sums of S terms.
			if math.Abs(sum-1) > 1e-9 || pNorm(d, p) > theta+1e-9 {
				t.Fatalf("p=%v: q = %v outside Q (sum %v, dist %v > θ = %v)", p, q, sum, pNorm(d, p), theta)
			}
			if p == 2 {
				for range 300 {
					x := ProjectSimplex(nil, randVec(rng, S, 1))
					for s := range x {
						d[s] = x[s] - qhat[s]
					}
					if nd := pNorm(d, 2); nd > theta {
						for s := range x {
							x[s] = qhat[s] + d[s]*theta/nd
						}
					}
					var vx float64
					for s := range x {
						vx += x[s] * f[s]
					}
					if vx > val+1e-9 {
						t.Fatalf("p=2: sampled q %v gives %v > %v", x, vx, val)
					}
				}
				continue
			}
			g := &GenLP{}
			qi := make([]int, S)
			for s := range S {
				qi[s] = g.NewVar(-f[s])
			}
			qSetRows(g, qi, qhat, theta, p)
			if opt := -g.Solve(t); math.Abs(opt-val) > 1e-9 {
				t.Fatalf("p=%v f=%v q̂=%v θ=%v: greedy %v (q=%v), LP %v", p, f, qhat, theta, val, q, opt)
			}
		}
	}
}

func pNorm(x []float64, p float64) float64 {
	switch {
	case p == 1:
		return DualNorm(x, math.Inf(1))
	case p == 2:
		return DualNorm(x, 2)
	}
	return DualNorm(x, 1)
}
