package solver_test

import (
	"context"
	"math"
	"testing"

	"github.com/fedcon/fedcon/solver"
)

// TestPolishQP: on equality-constrained QPs the KKT polish solves the KKT
// system exactly, so both methods reach ε = 1e-10, certified by the
// recomputed residuals (and by the independent kkt of the problem data),
// at the optimum of the direct KKT solve, in a few polish steps; without
// the polish the same settings stop at the outer cap, uncertified.
func TestPolishQP(t *testing.T) {
	for _, c := range []struct{ seed, d, n, m int }{{1, 20, 3, 2}, {2, 30, 5, 3}, {3, 12, 10, 1}} {
		q, w0 := lcqp(t, uint64(c.seed), c.d, c.n, c.m)
		wstar, _, fstar, err := q.ExactKKT()
		if err != nil {
			t.Fatal(err)
		}
		const eps = 1e-10
		s := &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 30}
		for _, m := range []solver.Method{&solver.ProxAL{Polish: true}, &solver.CProxAL{Polish: true}} {
			res, err := solver.Solve(context.Background(), q.Problem(), w0, s, m)
			if err != nil {
				t.Fatal(err)
			}
			stat, feas := kkt(q, res.W, res.Mu)
			var dist float64
			for j := range wstar {
				dist = math.Max(dist, math.Abs(res.W[j]-wstar[j]))
			}
			if res.Status != solver.Converged || !res.Polished || stat > eps || feas > eps || dist > 1e-7 || math.Abs(res.Objective-fstar) > 1e-9*math.Max(1, math.Abs(fstar)) {
				t.Errorf("%+v %T: %v (polished %v), residuals %+v, independent %.1e/%.1e, |w - w*| %.1e, f %.12g vs %.12g",
					c, m, res.Status, res.Polished, res.Residuals, stat, feas, dist, res.Objective, fstar)
			}
			if res.Stats.PolishIterations > 4 {
				t.Errorf("%+v %T: %d polish steps for a QP", c, m, res.Stats.PolishIterations)
			}
		}
		plain, err := solver.Solve(context.Background(), q.Problem(), w0, s, &solver.ProxAL{})
		if err != nil {
			t.Fatal(err)
		}
		if plain.Status == solver.Converged || plain.Polished {
			t.Errorf("%+v: without the polish %v at ε = 1e-10 in 30 outer iterations", c, plain.Status)
		}
	}
}
