package recheck

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// TestNPReferenceAgainstSolver: on two Gaussian classes dealt to n parts,
// the barrier reference and Algorithm 1 with the KKT polish (ε1 = ε2 =
// 1e-9) reach the same objective within the reference's own accuracy
// (twice its duality gap plus Lagrangian gradient, plus 1e-8), the
// reference is strictly feasible with that sum below 1e-6, and both sides of NPRef's bound hold at the solver's point
// with its own residuals (the gate's objective band).
func TestNPReferenceAgainstSolver(t *testing.T) {
	for _, c := range []struct{ n, d int }{{1, 4}, {3, 6}, {5, 8}} {
		t.Run(fmt.Sprintf("n=%d d=%d", c.n, c.d), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(c.n)))
			gen := func(m int, shift float64) [][]float64 {
				rows := make([][]float64, m)
				for k := range rows {
					rows[k] = make([]float64, c.d)
					for j := 0; j < c.d-1; j++ {
						rows[k][j] = rng.NormFloat64() + shift*float64(j%3-1)
					}
					rows[k][c.d-1] = 1
				}
				return rows
			}
			const r = 0.3
			parts := make([][2][][]float64, c.n)
			prob := &solver.Problem{Dim: c.d}
			flat := func(rows [][]float64) problems.Rows {
				out := problems.Rows{N: len(rows), D: c.d}
				for _, row := range rows {
					out.X = append(out.X, row...)
				}
				return out
			}
			for i := range parts {
				parts[i] = [2][][]float64{gen(40, 0.6), gen(30, -0.6)}
				prob.Clients = append(prob.Clients, &problems.NPClient{Class0: flat(parts[i][0]), Class1: flat(parts[i][1]), Scale: 1 / float64(c.n), R: r})
			}
			ref, err := NPReference(parts, c.n, r, c.d)
			if err != nil {
				t.Fatal(err)
			}
			if ref.Gap+ref.Grad > 1e-6 {
				t.Errorf("gap %g, Lagrangian gradient %g", ref.Gap, ref.Grad)
			}
			t.Logf("gap %.3g, Lagrangian gradient %.3g", ref.Gap, ref.Grad)
			for i, p := range parts {
				if _, _, l1 := NP(p[0], p[1], c.n, r, ref.W); !(l1 < r) {
					t.Errorf("part %d: L1 = %g, not below r = %g", i, l1, r)
				}
			}
			const eps = 1e-9
			res, err := solver.Solve(context.Background(), prob, make([]float64, c.d), &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 100, MaxInner: 300},
				&solver.ProxAL{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Test: solver.InnerTestMeasured, Rule: solver.RhoHessian,
					Relax: 1, EpsRel: 0.1, OuterRelax: 1.9, Smooth: &solver.Newton{}, Polish: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != solver.Converged {
				t.Fatalf("solver: %v, residuals %+v", res.Status, res.Residuals)
			}
			// The reference is within Gap + Grad·||W − w*|| of f*, the
			// polished run within 1e-9·(||w − w*|| + ||μ||₁) or so.
			if math.Abs(res.Objective-ref.F) > 2*(ref.Gap+ref.Grad)+1e-8 {
				t.Errorf("solver f = %.12g, reference %.12g (gap %.3g, gradient %.3g)", res.Objective, ref.F, ref.Gap, ref.Grad)
			}
			var dist2, mu1 float64
			for j := range ref.W {
				dist2 += (res.W[j] - ref.W[j]) * (res.W[j] - ref.W[j])
			}
			for _, m := range res.Mu {
				for _, x := range m {
					mu1 += math.Abs(x)
				}
			}
			var refMu1 float64
			for _, x := range ref.Mu {
				refMu1 += x
			}
			dist := math.Sqrt(dist2)
			up := math.Sqrt(float64(c.d))*res.Residuals.Stationarity*dist + mu1*res.Residuals.Feasibility
			down := refMu1*res.Residuals.Feasibility + ref.Gap + ref.Grad*dist
			slack := Gamma * (1 + math.Abs(ref.F))
			if res.Objective-ref.F > up+slack || ref.F-res.Objective > down+slack {
				t.Errorf("f - f_ref = %.3g outside [-%.3g, %.3g]", res.Objective-ref.F, down, up)
			}
		})
	}
}
