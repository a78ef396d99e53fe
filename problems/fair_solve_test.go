package problems

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedcon/fedcon/solver"
)

// TestFairSolve: Algorithm 1 and cProx-AL on a small fairness problem with
// a server constraint (nonconvex constraints, Newton subproblems). Both must
// terminate Converged at a point that satisfies Definition 1 and the
// disparity bound r + ε2 at every party, and with n = 1 agree to 1e-3.
func TestFairSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const d = 5
	// A tight threshold, so that the constraints bind.
	mk := func(scale float64) *FairParty {
		p := synthFair(rng, 240, d)
		p.Scale, p.R = scale, 0.02
		return p
	}
	for _, n := range []int{1, 3} {
		server := mk(0)
		prob := &solver.Problem{Dim: d, Server: server}
		var clients []*FairParty
		for i := 0; i < n; i++ {
			c := mk(1 / float64(n))
			clients = append(clients, c)
			prob.Clients = append(prob.Clients, c)
		}
		w0 := UnitSphere(rng, d)
		const eps = 1e-4
		s := &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 200, MaxInner: 2000}
		var objs []float64
		for _, m := range []solver.Method{
			&solver.ProxAL{Beta: 10, SBar: 1e-3, Rho: 1, Smooth: &solver.Newton{}},
			&solver.CProxAL{Beta: 10, SBar: 1e-3, Smooth: &solver.Newton{}},
		} {
			res, err := solver.Solve(context.Background(), prob, w0, s, m)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != solver.Converged {
				t.Fatalf("n=%d %T: %v", n, m, res.Status)
			}
			if res.Residuals.Stationarity > eps || res.Residuals.Feasibility > eps {
				t.Errorf("n=%d %T: residuals %+v", n, m, res.Residuals)
			}
			var worst float64
			for i, p := range append([]*FairParty{server}, clients...) {
				dis := p.Disparity(res.W)
				if dis > p.R+eps {
					t.Errorf("n=%d %T: party %d disparity %v > r + ε2", n, m, i, dis)
				}
				worst = math.Max(worst, dis)
			}
			// The test means something only if a constraint binds.
			if worst < 0.02-eps {
				t.Errorf("n=%d %T: no constraint active (max disparity %v)", n, m, worst)
			}
			objs = append(objs, res.Objective)
		}
		if n == 1 && math.Abs(objs[0]-objs[1]) > 1e-3 {
			t.Errorf("n=1: Alg1 %v vs cProx %v", objs[0], objs[1])
		}
	}
}
