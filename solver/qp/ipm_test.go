package qp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// TestInteriorPointLPs: random LPs against gonum's simplex, as the ADMM
// path is tested.
func TestInteriorPointLPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(2024, 9))
	for k := range 40 {
		prob, c, Astd, bstd := randomLP(rng)
		fs, _, err := lp.Simplex(c, Astd, bstd, 1e-10, nil)
		if err != nil {
			t.Fatalf("LP %d: simplex: %v", k, err)
		}
		res, err := InteriorPoint(context.Background(), prob, nil)
		if err != nil || res.Status != Solved {
			t.Fatalf("LP %d: %v %v after %d iterations (residuals %.2e %.2e)", k, err, res.Status, res.Stats.Iterations, res.Stats.PrimalResidual, res.Stats.DualResidual)
		}
		// 1e-6 relative: the tolerance of the ADMM path's comparison.
		if d := math.Abs(res.Objective - fs); d > 1e-6*math.Max(1, math.Abs(fs)) {
			t.Errorf("LP %d: objective %v, simplex %v (%d iterations)", k, res.Objective, fs, res.Stats.Iterations)
		}
		prim, stat, _ := kktErrors(prob, res.X, res.Y)
		if prim > 1e-6 || stat > 1e-6 {
			t.Errorf("LP %d: KKT errors %g %g", k, prim, stat)
		}
	}
}

// TestInteriorPointQPs: random strictly convex QPs with equality,
// one-sided and two-sided rows against the active-set oracle.
func TestInteriorPointQPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(78, 1))
	for k := range 40 {
		P, q, A, l, u := randomStrictQP(rng, true)
		xo, _, ok := activeSetOracle(t, P, q, A, l, u)
		if !ok {
			t.Fatalf("QP %d: oracle found no KKT point", k)
		}
		prob := &Problem{P: P, Q: q, A: A, L: l, U: u}
		res, err := InteriorPoint(context.Background(), prob, nil)
		if err != nil || res.Status != Solved {
			t.Fatalf("QP %d: %v %v", k, err, res.Status)
		}
		// λmin(P) ≥ 0.5 and residuals ≤ 1e-7 bound ‖x − x*‖ by ~1e-6.
		if d := maxDiff(res.X, xo); d > 1e-5 {
			t.Errorf("QP %d: x differs from the oracle by %g", k, d)
		}
	}
}

// TestInteriorPointDRFL: the LP-like DRFL-shaped QPs on which ADMM needs
// hundreds of iterations: the same optimum as the ADMM path, in few
// interior-point iterations.
func TestInteriorPointDRFL(t *testing.T) {
	for seed := range uint64(3) {
		prob, shared := drflQP(seed+1, 20, 5)
		ord, err := ArrowOrdering(prob, shared)
		if err != nil {
			t.Fatal(err)
		}
		set := DefaultSettings()
		set.Ordering = ord
		ref, err := Solve(context.Background(), prob, set, nil)
		if err != nil || ref.Status != Solved {
			t.Fatalf("ADMM: %v %v", err, ref.Status)
		}
		res, err := InteriorPoint(context.Background(), prob, set)
		if err != nil || res.Status != Solved {
			t.Fatalf("seed %d: %v %v after %d iterations", seed, err, res.Status, res.Stats.Iterations)
		}
		t.Logf("seed %d: interior point %d iterations, ADMM %d; objectives %.10g %.10g", seed, res.Stats.Iterations, ref.Stats.Iterations, res.Objective, ref.Objective)
		if d := math.Abs(res.Objective - ref.Objective); d > 1e-6*math.Max(1, math.Abs(ref.Objective)) {
			t.Errorf("seed %d: objective %v, ADMM %v", seed, res.Objective, ref.Objective)
		}
	}
}

// TestInteriorPointInput: bad input is an *InputError, a canceled
// context a Canceled result.
func TestInteriorPointInput(t *testing.T) {
	if _, err := InteriorPoint(context.Background(), &Problem{Q: []float64{1}, A: mat.NewDense(1, 1, []float64{1}), L: []float64{1}, U: []float64{0}}, nil); err == nil {
		t.Error("l > u: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := InteriorPoint(ctx, &Problem{Q: []float64{1}, A: mat.NewDense(1, 1, []float64{1}), L: []float64{0}, U: []float64{1}}, nil)
	if err == nil || res.Status != Canceled {
		t.Errorf("canceled: %v %v", err, res)
	}
}

// TestInteriorPointEqualityQP: an equality-constrained QP against its KKT
// system solved by LU, and the same without constraints (m = 0).
func TestInteriorPointEqualityQP(t *testing.T) {
	P := mat.NewDense(3, 3, []float64{4, 1, 0, 1, 3, 1, 0, 1, 2})
	q := []float64{1, -2, 0.5}
	A := mat.NewDense(1, 3, []float64{1, 1, 1})
	x, _, err := eqKKTerr(P, q, A, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := InteriorPoint(context.Background(), &Problem{P: P, Q: q, A: A, L: []float64{1}, U: []float64{1}}, nil)
	if err != nil || res.Status != Solved || maxDiff(res.X, x) > 1e-7 {
		t.Fatalf("equality QP: %v %v x %v, KKT %v", err, res.Status, res.X, x)
	}
	var want mat.VecDense
	if err := want.SolveVec(P, mat.NewVecDense(3, scaled(-1, q))); err != nil {
		t.Fatal(err)
	}
	res, err = InteriorPoint(context.Background(), &Problem{P: P, Q: q}, nil)
	if err != nil || res.Status != Solved || maxDiff(res.X, want.RawVector().Data) > 1e-9 || res.Stats.Iterations > 3 {
		t.Fatalf("unconstrained: %v %v x %v want %v after %d iterations", err, res.Status, res.X, want.RawVector().Data, res.Stats.Iterations)
	}
}

// TestInteriorPointScales: random feasible, bounded QPs and LPs whose
// feasible points and bounds lie at scales 1e-2 to 1e4 (far from the start
// x = 0), with equality, one- and two-sided rows: every one is Solved and
// its objective agrees with the ADMM path's.
func TestInteriorPointScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for k := range 500 {
		n, m := 1+rng.IntN(4), 1+rng.IntN(6)
		scale := math.Pow(10, float64(rng.IntN(7)-2))
		var P mat.Matrix
		if rng.IntN(2) == 0 {
			M := mat.NewDense(n, n, nil)
			for i := range n {
				for j := range n {
					M.Set(i, j, rng.NormFloat64())
				}
			}
			var PP mat.Dense
			PP.Mul(M.T(), M)
			P = &PP
		}
		q := make([]float64, n)
		for j := range q {
			q[j] = rng.NormFloat64()
		}
		A := mat.NewDense(m+n, n, nil)
		l, u := make([]float64, m+n), make([]float64, m+n)
		x0 := make([]float64, n)
		for j := range x0 {
			x0[j] = scale * rng.NormFloat64()
		}
		for i := range m {
			var v float64
			for j := range n {
				a := rng.NormFloat64()
				A.Set(i, j, a)
				v += a * x0[j]
			}
			switch rng.IntN(4) {
			case 0:
				l[i], u[i] = math.Inf(-1), v+scale*rng.Float64()
			case 1:
				l[i], u[i] = v-scale*rng.Float64(), math.Inf(1)
			case 2:
				l[i], u[i] = v, v
			default:
				l[i], u[i] = v-scale*rng.Float64(), v+scale*rng.Float64()
			}
		}
		for j := range n { // a box keeps LPs bounded; QPs may drop its lower side
			A.Set(m+j, j, 1)
			l[m+j], u[m+j] = x0[j]-10*scale, x0[j]+10*scale
			if P != nil && rng.IntN(3) == 0 {
				l[m+j] = math.Inf(-1)
			}
		}
		prob := &Problem{P: P, Q: q, A: A, L: l, U: u}
		res, err := InteriorPoint(context.Background(), prob, nil)
		if err != nil || res.Status != Solved {
			t.Fatalf("case %d (scale %g): %v %v after %d iterations", k, scale, err, res.Status, res.Stats.Iterations)
		}
		ref, err := Solve(context.Background(), prob, nil, nil)
		if err != nil || ref.Status != Solved {
			continue // the ADMM path's own tests cover its failures
		}
		// Both at 1e-7 absolute and relative on data of size ~scale.
		if d := math.Abs(res.Objective - ref.Objective); d > 1e-5*math.Max(1, math.Abs(ref.Objective)) {
			t.Errorf("case %d (scale %g): objective %v, ADMM %v", k, scale, res.Objective, ref.Objective)
		}
	}
}

// TestInteriorPointUnbounded: an unbounded LP ends as IterationLimit with
// NaN vectors, not as NonConvex or a panic.
func TestInteriorPointUnbounded(t *testing.T) {
	res, err := InteriorPoint(context.Background(), &Problem{Q: []float64{-1}, A: mat.NewDense(1, 1, []float64{1}), L: []float64{0}, U: []float64{math.Inf(1)}}, nil)
	if err != nil || res.Status != IterationLimit || !math.IsNaN(res.X[0]) {
		t.Fatalf("%v %v %v", err, res.Status, res.X)
	}
}
