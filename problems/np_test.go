package problems

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/solver"
)

// synthNP draws two Gaussian classes in R^(d-1) plus an intercept column.
func synthNP(rng *rand.Rand, m0, m1, d int) (Rows, Rows) {
	gen := func(m int, shift float64) Rows {
		r := Rows{N: m, D: d, X: make([]float64, m*d)}
		for i := 0; i < m; i++ {
			for j := 0; j < d-1; j++ {
				r.X[i*d+j] = rng.NormFloat64() + shift*float64(j%3-1)
			}
			r.X[i*d+d-1] = 1
		}
		return r
	}
	return gen(m0, 0.6), gen(m1, -0.6)
}

// TestSoftplusSigmoidStable: the loss of a single row with margin z and
// label 0 is softplus(z), its gradient σ(z); both finite and accurate for
// |z| up to 1e300.
func TestSoftplusSigmoidStable(t *testing.T) {
	cases := []struct{ z, sp, sg float64 }{
		{1000, 1000, 1}, {-1000, 0, 0}, {0, math.Ln2, 0.5},
		{40, 40, 1}, {-40, math.Exp(-40), math.Exp(-40)},
		{1e300, 1e300, 1}, {-1e300, 0, 0}, {1e-300, math.Ln2, 0.5},
	}
	for _, c := range cases {
		r := Rows{N: 1, D: 1, X: []float64{1}}
		g := []float64{0}
		sp := r.meanLogistic([]float64{c.z}, 0, 1, g)
		sg := g[0]
		if math.IsNaN(sp) || math.IsInf(sp, 0) || math.Abs(sp-c.sp) > 1e-12*math.Max(1, c.sp) {
			t.Errorf("softplus(%v) = %v, want %v", c.z, sp, c.sp)
		}
		if math.Abs(sg-c.sg) > 1e-15 {
			t.Errorf("sigmoid(%v) = %v, want %v", c.z, sg, c.sg)
		}
	}
}

// TestNPDerivatives checks ∇f, ∇c and ∇²f + y∇²c of NPClient against
// central finite differences (error O(h²) times the third derivative).
func TestNPDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const d = 6
	c0, c1 := synthNP(rng, 40, 25, d)
	p := &NPClient{Class0: c0, Class1: c1, Scale: 0.5, R: 0.2}
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	g, jac, c := make([]float64, d), make([]float64, d), make([]float64, 1)
	p.Eval(w, g, c, jac)
	const h = 1e-5
	y := []float64{0.7}
	hess := mat.NewSymDense(d, nil)
	p.Hessian(hess, w, y)
	for j := 0; j < d; j++ {
		wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
		wp[j] += h
		wm[j] -= h
		cp, cm := make([]float64, 1), make([]float64, 1)
		gp, gm, jp, jm := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		fp := p.Eval(wp, gp, cp, jp)
		fm := p.Eval(wm, gm, cm, jm)
		if fd := (fp - fm) / (2 * h); math.Abs(fd-g[j]) > 1e-8 {
			t.Errorf("df/dw%d = %v, fd %v", j, g[j], fd)
		}
		if fd := (cp[0] - cm[0]) / (2 * h); math.Abs(fd-jac[j]) > 1e-8 {
			t.Errorf("dc/dw%d = %v, fd %v", j, jac[j], fd)
		}
		for k := 0; k < d; k++ {
			fd := (gp[k]-gm[k])/(2*h) + y[0]*(jp[k]-jm[k])/(2*h)
			if math.Abs(fd-hess.At(j, k)) > 1e-7 {
				t.Errorf("H[%d,%d] = %v, fd %v", j, k, hess.At(j, k), fd)
			}
		}
	}
	// Huge weights: finite losses and gradients, never NaN.
	for j := range w {
		w[j] = 1e4 * float64(j%2*2-1)
	}
	f := p.Eval(w, g, c, jac)
	if math.IsNaN(f) || math.IsInf(f, 0) || math.IsNaN(c[0]) || math.IsInf(c[0], 0) {
		t.Fatalf("f = %v, c = %v at large w", f, c)
	}
}

// npReference solves min L0 s.t. L1 <= r for one client independently:
// bisection on the multiplier μ of L0 + μ(L1 - r), each inner problem by
// damped Newton to ||∇||_∞ <= 1e-11.
func npReference(t *testing.T, c0, c1 Rows, r float64) (w []float64, f float64) {
	d := c0.D
	inner := func(mu float64, w []float64) {
		g := make([]float64, d)
		for it := 0; it < 100; it++ {
			clear(g)
			c0.meanLogistic(w, 0, 1, g)
			c1.meanLogistic(w, 1, mu, g)
			if mat.Norm(mat.NewVecDense(d, g), math.Inf(1)) < 1e-11 {
				return
			}
			h := mat.NewSymDense(d, nil)
			c0.addLogisticHessian(h, w, 1)
			c1.addLogisticHessian(h, w, mu)
			var ch mat.Cholesky
			if !ch.Factorize(h) {
				// A rank-deficient design (monks-1's one-hot columns sum to
				// the intercept): any minimiser will do, so shift slightly.
				for j := range d {
					h.SetSym(j, j, h.At(j, j)+1e-10)
				}
				if !ch.Factorize(h) {
					t.Fatal("reference Hessian not PD")
				}
			}
			var p mat.VecDense
			if err := ch.SolveVecTo(&p, mat.NewVecDense(d, g)); err != nil {
				if _, ill := err.(mat.Condition); !ill { // ill-conditioned still solves
					t.Fatal(err)
				}
			}
			obj := func(x []float64) float64 { return c0.meanLogistic(x, 0, 0, nil) + mu*c1.meanLogistic(x, 1, 0, nil) }
			f0, step := obj(w), 1.0
			for k := 0; k < 50; k++ {
				trial := make([]float64, d)
				for j := range trial {
					trial[j] = w[j] - step*p.AtVec(j)
				}
				if obj(trial) <= f0 || k == 49 {
					copy(w, trial)
					break
				}
				step /= 2
			}
		}
	}
	lo, hi := 0.0, 1.0
	w = make([]float64, d)
	for {
		inner(hi, w)
		if c1.meanLogistic(w, 1, 0, nil) <= r {
			break
		}
		lo, hi = hi, 2*hi
	}
	for k := 0; k < 80 && hi-lo > 1e-13*hi; k++ {
		mid := (lo + hi) / 2
		inner(mid, w)
		if c1.meanLogistic(w, 1, 0, nil) > r {
			lo = mid
		} else {
			hi = mid
		}
	}
	inner(hi, w)
	return w, c0.meanLogistic(w, 0, 0, nil)
}

// TestNPAgainstReference: with n = 1 and tight tolerances both algorithms
// match the independent solve (issue 4: within 1e-5 in objective), with
// Newton and with L-BFGS subproblem solvers; with the paper's tolerances
// the returned point still satisfies Definition 1 with (1e-3, 1e-3).
func TestNPAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	c0, c1 := synthNP(rng, 300, 120, 8)
	const r = 0.45
	// The constraint must be active for the test to mean anything.
	wref, fref := npReference(t, c0, c1, r)
	if l1 := c1.meanLogistic(wref, 1, 0, nil); math.Abs(l1-r) > 1e-9 {
		t.Fatalf("reference infeasible or inactive: L1 = %v", l1)
	}
	prob := &solver.Problem{Dim: 8, Clients: []solver.Party{&NPClient{Class0: c0, Class1: c1, Scale: 1, R: r}}}
	w0 := UnitSphere(rng, 8)
	cases := []struct {
		name   string
		eps    float64
		smooth solver.SmoothSolver
		tolF   float64
	}{
		{"tight-newton", 1e-7, &solver.Newton{}, 1e-5},
		{"tight-lbfgs", 1e-7, solver.LBFGS{}, 1e-5},
		{"paper-tol-newton", 1e-3, &solver.Newton{}, 5e-3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &solver.Settings{Eps1: c.eps, Eps2: c.eps, MaxOuter: 1000, MaxInner: 1000}
			var objs []float64
			for _, m := range []solver.Method{
				&solver.ProxAL{Beta: 300, SBar: 1e-3, Rho: 0.01, Smooth: c.smooth},
				&solver.CProxAL{Beta: 300, SBar: 1e-3, Smooth: c.smooth},
			} {
				res, err := solver.Solve(context.Background(), prob, w0, s, m)
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != solver.Converged {
					t.Fatalf("%T: %v", m, res.Status)
				}
				if res.Residuals.Stationarity > c.eps || res.Residuals.Feasibility > c.eps {
					t.Errorf("%T: residuals %+v > %g", m, res.Residuals, c.eps)
				}
				if gap := math.Abs(res.Objective - fref); gap > c.tolF {
					t.Errorf("%T: f = %.10f, reference %.10f (gap %.2e > %.0e)", m, res.Objective, fref, gap, c.tolF)
				}
				objs = append(objs, res.Objective)
			}
			// Issue 4: with n = 1, Algorithm 1 agrees with cProx-AL to 1e-3.
			if math.Abs(objs[0]-objs[1]) > 1e-3 {
				t.Errorf("Alg1 %v vs cProx %v", objs[0], objs[1])
			}
		})
	}
}

// TestNPRhoAdapt: with the paper's small ρ_i = 0.01 and several clients
// whose constraints bind, residual balancing must reach a certified point
// with fewer ADMM iterations than fixed ρ_i.
func TestNPRhoAdapt(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const d, n = 6, 3
	prob := &solver.Problem{Dim: d}
	for i := 0; i < n; i++ {
		c0, c1 := synthNP(rng, 80, 40, d)
		prob.Clients = append(prob.Clients, &NPClient{Class0: c0, Class1: c1, Scale: 1.0 / n, R: 0.45})
	}
	w0 := UnitSphere(rng, d)
	s := &solver.Settings{Eps1: 1e-4, Eps2: 1e-4, MaxOuter: 200, MaxInner: 3000}
	var inner [2]int
	for k, adapt := range []bool{false, true} {
		res, err := solver.Solve(context.Background(), prob, w0, s,
			&solver.ProxAL{Beta: 300, SBar: 1e-3, Rho: 0.01, Smooth: &solver.Newton{}, Rule: ruleOf(adapt)})
		if err != nil {
			t.Fatal(err)
		}
		if adapt && res.Status != solver.Converged {
			t.Fatalf("adapt: %v", res.Status)
		}
		if res.Status == solver.Converged && (res.Residuals.Stationarity > 1e-4 || res.Residuals.Feasibility > 1e-4) {
			t.Errorf("adapt=%v: residuals %+v", adapt, res.Residuals)
		}
		inner[k] = res.Stats.InnerIterations
	}
	if inner[1] >= inner[0] {
		t.Errorf("residual balancing did not reduce ADMM iterations: %d vs %d", inner[1], inner[0])
	}
}

// TestRowsCompressed: rows with mostly zero entries (one-hot-like) are
// compressed, and the compressed passes give the dense passes' loss,
// gradient and Hessian to rounding, including all-zero rows; rows that
// are mostly nonzero stay dense.
func TestRowsCompressed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	const m, d = 300, 40
	x := mat.NewDense(m, d, nil)
	for i := range m {
		if i%17 == 0 {
			continue // an all-zero row
		}
		x.Set(i, d-1, 1)
		for range 5 {
			x.Set(i, rng.IntN(d-1), rng.NormFloat64())
		}
	}
	sparse := NewRows(x, nil)
	if sparse.ptr == nil {
		t.Fatal("mostly-zero rows not compressed")
	}
	dense := sparse
	dense.ptr, dense.col, dense.val = nil, nil, nil
	if r := NewRows(mat.NewDense(2, 2, []float64{1, 2, 3, 0}), nil); r.ptr != nil {
		t.Error("dense rows compressed")
	}
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	for _, y := range []float64{0, 1} {
		gs, gd := make([]float64, d), make([]float64, d)
		fs, fd := sparse.meanLogistic(w, y, 0.7, gs), dense.meanLogistic(w, y, 0.7, gd)
		if math.Abs(fs-fd) > 1e-13*math.Abs(fd) {
			t.Errorf("y = %v: loss %v compressed, %v dense", y, fs, fd)
		}
		for j := range gs {
			if math.Abs(gs[j]-gd[j]) > 1e-13*(1+math.Abs(gd[j])) {
				t.Errorf("y = %v: grad[%d] %v compressed, %v dense", y, j, gs[j], gd[j])
			}
		}
	}
	hs, hd := mat.NewSymDense(d, nil), mat.NewSymDense(d, nil)
	sparse.addLogisticHessian(hs, w, 0.7)
	dense.addLogisticHessian(hd, w, 0.7)
	for i := range d {
		for j := i; j < d; j++ {
			if math.Abs(hs.At(i, j)-hd.At(i, j)) > 1e-13*(1+math.Abs(hd.At(i, j))) {
				t.Errorf("H[%d,%d] %v compressed, %v dense", i, j, hs.At(i, j), hd.At(i, j))
			}
		}
	}
	sub := sparse.subset([]int{0, 5, 17, 299})
	if sub.ptr == nil || sub.N != 4 || sub.dot(1, w) != sparse.dot(5, w) {
		t.Errorf("subset lost rows or compression")
	}
}

// TestNPLocalMisses: a client solve of (19) that stops short of ε_{t+1} is
// counted (Stats.LocalMisses), not silent: with the local solver capped at
// one iteration most are; a run with room to solve each one counts few.
func TestNPLocalMisses(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	c0, c1 := synthNP(rng, 300, 120, 8)
	prob := &solver.Problem{Dim: 8, Clients: []solver.Party{&NPClient{Class0: c0, Class1: c1, Scale: 1, R: 0.45}}}
	w0 := UnitSphere(rng, 8)
	m := &solver.ProxAL{Beta: 300, SBar: 1e-3, Rho: 0.01, Smooth: solver.LBFGS{}}
	capped, err := solver.Solve(context.Background(), prob, w0, &solver.Settings{MaxOuter: 3, MaxInner: 1}, m)
	if err != nil {
		t.Fatal(err)
	}
	if capped.Stats.LocalMisses < capped.Stats.InnerIterations/2 {
		t.Errorf("local solves capped at one iteration: %d misses in %d ADMM iterations", capped.Stats.LocalMisses, capped.Stats.InnerIterations)
	}
	free, err := solver.Solve(context.Background(), prob, w0, &solver.Settings{MaxOuter: 3, MaxInner: 1000}, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("misses: capped %d of %d, free %d of %d", capped.Stats.LocalMisses, capped.Stats.InnerIterations, free.Stats.LocalMisses, free.Stats.InnerIterations)
	if free.Stats.LocalMisses >= capped.Stats.LocalMisses {
		t.Errorf("free local solves missed as often as capped ones: %d vs %d", free.Stats.LocalMisses, capped.Stats.LocalMisses)
	}
}

// TestNPAgainstReferenceDatasets: issue 4's oracle on the real datasets:
// with n = 1 and ε1 = ε2 = 1e-7 both algorithms reach the independent
// solve's objective within 1e-5, and the constraint L1 ≤ 0.2 is active.
//
// adult-a and monks-1 have no minimiser (TestNoMinimizer): the infimum
// lies at infinity along a one-hot column, where the loss decays like
// exp(−|w_j|). A proximal step moves w_j by about β times that gradient,
// so at the paper's β = 300 stationarity falls only like 1/(βk) along the
// outer iterations (5e-6 after 1,000 cProx-AL iterations on adult-a): ε =
// 1e-7 needs tens of thousands of them. With β = 1e5 both algorithms
// converge in under 200. Algorithm 1 then takes ρ_i = 1e-4: the server's
// proximal curvature 1/(2β) is tiny, and at the paper's ρ_i = 0.01 (fixed
// or balanced) its ADMM needs hundreds of iterations per call on adult-a.
// breast-cancer-wisc attains its minimum and also runs at the paper's
// β = 300 with residual balancing.
func TestNPAgainstReferenceDatasets(t *testing.T) {
	dirs := datasets.SearchPath("", os.Getenv("FEDCON_DATA_DIR"))
	dirs = append(dirs, "../../shared/datasets")
	if testing.Short() {
		t.Skip("25 s")
	}
	type params struct {
		beta, rho float64
		adapt     bool
	}
	far := params{beta: 1e5, rho: 1e-4}
	type data struct {
		c0, c1 Rows
		fref   float64
	}
	loaded := map[string]*data{} // the reference solve takes seconds
	for _, tc := range []struct {
		name string
		p    params
	}{
		{"breast-cancer-wisc", params{beta: 300, rho: 0.01, adapt: true}},
		{"breast-cancer-wisc", far},
		{"monks-1", far},
		{"adult-a", far},
	} {
		t.Run(fmt.Sprintf("%s/beta=%g", tc.name, tc.p.beta), func(t *testing.T) {
			const r = 0.2
			dt := loaded[tc.name]
			if dt == nil {
				ds, err := datasets.Load(tc.name, dirs)
				if err != nil {
					t.Skipf("%s not available: %v", tc.name, err)
				}
				dt = &data{}
				dt.c0, dt.c1 = classRows(ds)
				var wref []float64
				wref, dt.fref = npReference(t, dt.c0, dt.c1, r)
				if l1 := dt.c1.meanLogistic(wref, 1, 0, nil); math.Abs(l1-r) > 1e-7 {
					t.Fatalf("reference infeasible or inactive: L1 = %v", l1)
				}
				loaded[tc.name] = dt
			}
			c0, c1, fref := dt.c0, dt.c1, dt.fref
			d := c0.D
			prob := &solver.Problem{Dim: d, Clients: []solver.Party{&NPClient{Class0: c0, Class1: c1, Scale: 1, R: r}}}
			w0 := UnitSphere(rand.New(rand.NewPCG(3, 3)), d)
			const eps = 1e-7
			s := &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 1000, MaxInner: 5000}
			for _, m := range []solver.Method{
				&solver.ProxAL{Beta: tc.p.beta, SBar: 1e-3, Rho: tc.p.rho, Rule: ruleOf(tc.p.adapt), Smooth: &solver.Newton{}},
				&solver.CProxAL{Beta: tc.p.beta, SBar: 1e-3, Smooth: &solver.Newton{}},
			} {
				res, err := solver.Solve(context.Background(), prob, w0, s, m)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%T: %v, f = %.10f (reference %.10f), residuals %+v, outer %d, inner %d, passes %d, %v",
					m, res.Status, res.Objective, fref, res.Residuals, res.Stats.OuterIterations, res.Stats.InnerIterations, res.Stats.Evaluations, res.Stats.Runtime)
				if res.Status != solver.Converged || math.Abs(res.Objective-fref) > 1e-5 {
					t.Errorf("%T: %v, f = %.10f, reference %.10f", m, res.Status, res.Objective, fref)
				}
				if res.Residuals.Stationarity > eps || res.Residuals.Feasibility > eps {
					t.Errorf("%T: residuals %+v > %g", m, res.Residuals, eps)
				}
			}
		})
	}
}

// TestNoMinimizer: why the Neyman-Pearson problems of monks-1 and adult-a
// have no minimiser. A one-hot column that is nonzero in one class only
// gives a direction along which one loss stays constant and the other
// falls strictly:
//   - monks-1's concept is "a1 = a2 or a5 = 1", so a5=1 is zero in every
//     class-0 row: raising w[a5=1] leaves L0 unchanged and lowers L1, which
//     slackens the constraint, so L0 can be lowered elsewhere;
//   - adult-a's level education=Preschool (51 rows) never earns >50K (four
//     more levels are like it): lowering w there lowers L0, the objective,
//     and leaves L1 unchanged.
//
// The infimum is approached only as such weights go to ±∞, and a KKT
// residual falls like exp(−|w_j|).
func TestNoMinimizer(t *testing.T) {
	dirs := append(datasets.SearchPath("", os.Getenv("FEDCON_DATA_DIR")), "../../shared/datasets")
	for _, tc := range []struct {
		name, column string
		class        float64 // the only class whose rows use column
		step         float64 // direction that lowers that class's loss
	}{
		{"monks-1", "a5=1", 1, +1},
		{"adult-a", "education=Preschool", 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := datasets.Load(tc.name, dirs)
			if err != nil {
				t.Skipf("%s not available: %v", tc.name, err)
			}
			col := slices.Index(ds.FeatureNames, tc.column)
			if col < 0 {
				t.Fatalf("no column %s in %v", tc.column, ds.FeatureNames)
			}
			used := 0
			for i, y := range ds.Y {
				switch v := ds.X.At(i, col); {
				case v != 0 && y == tc.class:
					used++
				case v != 0:
					t.Fatalf("row %d of class %v has %s", i, y, tc.column)
				}
			}
			if used == 0 {
				t.Fatalf("no class-%v row has %s", tc.class, tc.column)
			}
			c0, c1 := classRows(ds)
			w := UnitSphere(rand.New(rand.NewPCG(1, 2)), c0.D)
			l := [2]float64{c0.meanLogistic(w, 0, 0, nil), c1.meanLogistic(w, 1, 0, nil)}
			moved := int(tc.class)
			for _, step := range []float64{1, 10, 30} {
				v := slices.Clone(w)
				v[col] += tc.step * step
				m := [2]float64{c0.meanLogistic(v, 0, 0, nil), c1.meanLogistic(v, 1, 0, nil)}
				if m[1-moved] != l[1-moved] || m[moved] >= l[moved] {
					t.Errorf("step %g along %s: (L0, L1) %v -> %v; want L%d unchanged, L%d lower", tc.step*step, tc.column, l, m, 1-moved, moved)
				}
				l[moved] = m[moved]
			}
		})
	}
}

// classRows splits a classification dataset's rows by label: class 0, class 1.
func classRows(ds *datasets.Dataset) (c0, c1 Rows) {
	var i0, i1 []int
	for i, y := range ds.Y {
		if y == 1 {
			i1 = append(i1, i)
		} else {
			i0 = append(i0, i)
		}
	}
	return NewRows(ds.X, i0), NewRows(ds.X, i1)
}

// ruleOf is residual balancing when adapt, else the paper's fixed ρ_i.
func ruleOf(adapt bool) solver.RhoRule {
	if adapt {
		return solver.RhoBalance
	}
	return solver.RhoFixed
}

// npBarrierReference minimises Σ_i scale·L0_i(w) subject to L1_i(w) ≤ r for
// every part i by a log-barrier method with damped Newton steps: a solver
// that shares nothing with the proximal AL methods. The barrier's duality gap
// is m/t, so t = 1e11 leaves f within 1e-10 of the optimum (m ≤ 20 parts).
func npBarrierReference(t *testing.T, c0, c1 []Rows, scale, r float64) (w []float64, f float64) {
	t.Helper()
	d, m := c0[0].D, len(c0)
	obj := func(x []float64) float64 {
		s := 0.0
		for i := range c0 {
			s += scale * c0[i].meanLogistic(x, 0, 0, nil)
		}
		return s
	}
	slack := func(x []float64) ([]float64, bool) {
		s := make([]float64, m)
		for i := range c1 {
			s[i] = r - c1[i].meanLogistic(x, 1, 0, nil)
			if !(s[i] > 0) {
				return nil, false
			}
		}
		return s, true
	}
	newton := func(phi func([]float64) (float64, bool), grad func([]float64, []float64, *mat.SymDense), w []float64) {
		g, h := make([]float64, d), mat.NewSymDense(d, nil)
		for it := 0; it < 200; it++ {
			clear(g)
			h.Zero()
			grad(w, g, h)
			// monks-style rank deficiency (any minimiser will do), and on
			// data sets without a minimiser (TestNoMinimizer) curvature that
			// vanishes along the escaping weights: a ridge relative to the
			// largest curvature, raised until the factorisation succeeds.
			var hmax float64
			for j := range d {
				hmax = max(hmax, h.At(j, j))
			}
			var ch mat.Cholesky
			ridge, added := 1e-14*max(hmax, 1), 0.0
			for {
				for j := range d {
					h.SetSym(j, j, h.At(j, j)+ridge-added)
				}
				added = ridge
				if ch.Factorize(h) {
					break
				}
				if ridge *= 10; ridge > 1e-4*max(hmax, 1) {
					t.Fatal("barrier Hessian not PD")
				}
			}
			var p mat.VecDense
			if err := ch.SolveVecTo(&p, mat.NewVecDense(d, g)); err != nil {
				if _, ill := err.(mat.Condition); !ill {
					t.Fatal(err)
				}
			}
			if dec := mat.Dot(&p, mat.NewVecDense(d, g)); dec < 1e-20 {
				return
			}
			f0, _ := phi(w)
			trial := make([]float64, d)
			for step := 1.0; step > 1e-12; step /= 2 {
				for j := range trial {
					trial[j] = w[j] - step*p.AtVec(j)
				}
				if f1, ok := phi(trial); ok && f1 <= f0 {
					copy(w, trial)
					break
				}
			}
		}
	}
	// Phase I: the unconstrained minimiser of Σ L1_i is strictly feasible
	// on a data set whose classes are nearly separable.
	w = make([]float64, d)
	newton(func(x []float64) (float64, bool) {
		s := 0.0
		for i := range c1 {
			s += c1[i].meanLogistic(x, 1, 0, nil)
		}
		return s, true
	}, func(x, g []float64, h *mat.SymDense) {
		for i := range c1 {
			c1[i].meanLogistic(x, 1, 1, g)
			c1[i].addLogisticHessian(h, x, 1)
		}
		for j := range d { // a ridge keeps the iterates bounded
			g[j] += 1e-6 * x[j]
			h.SetSym(j, j, h.At(j, j)+1e-6)
		}
	}, w)
	if _, ok := slack(w); !ok {
		t.Fatal("barrier reference: no strictly feasible start")
	}
	for bt := 1.0; bt <= 1e11; bt *= 10 {
		newton(func(x []float64) (float64, bool) {
			s, ok := slack(x)
			if !ok {
				return math.Inf(1), false
			}
			v := bt * obj(x)
			for _, si := range s {
				v -= math.Log(si)
			}
			return v, true
		}, func(x, g []float64, h *mat.SymDense) {
			s, _ := slack(x)
			gi := make([]float64, d)
			for i := range c0 {
				c0[i].meanLogistic(x, 0, bt*scale, g)
				c0[i].addLogisticHessian(h, x, bt*scale)
				clear(gi)
				c1[i].meanLogistic(x, 1, 1, gi)
				for j := range d {
					g[j] += gi[j] / s[i]
				}
				c1[i].addLogisticHessian(h, x, 1/s[i])
				h.SymRankOne(h, 1/(s[i]*s[i]), mat.NewVecDense(d, gi))
			}
		}, w)
	}
	return w, obj(w)
}

// roundRobin deals rows' rows to n parts in turn: any partition is a
// valid instance of the partitioned problem.
func roundRobin(rows Rows, n int) []Rows {
	parts := make([]Rows, n)
	for i := range n {
		var idx []int
		for k := i; k < rows.N; k += n {
			idx = append(idx, k)
		}
		parts[i] = rows.subset(idx)
	}
	return parts
}

// TestNPPartitionedAgainstBarrier: Algorithm 1 with the default rule
// (hessian metric, relaxed outer step) and cProx-AL on the partitioned
// Neyman-Pearson problem, n = 5, 10, 20 clients each with its own
// constraint, against the barrier reference. breast-cancer-wisc attains its
// minimum (monks-1 and adult-a do not: TestNoMinimizer).
func TestNPPartitionedAgainstBarrier(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds per n")
	}
	dirs := append(datasets.SearchPath("", os.Getenv("FEDCON_DATA_DIR")), "../../shared/datasets")
	ds, err := datasets.Load("breast-cancer-wisc", dirs)
	if err != nil {
		t.Skipf("breast-cancer-wisc not available: %v", err)
	}
	all0, all1 := classRows(ds)
	const r = 0.2
	for _, n := range []int{5, 10, 20} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			c0, c1 := roundRobin(all0, n), roundRobin(all1, n)
			_, fref := npBarrierReference(t, c0, c1, 1/float64(n), r)
			prob := &solver.Problem{Dim: all0.D}
			for i := range n {
				prob.Clients = append(prob.Clients, &NPClient{Class0: c0[i], Class1: c1[i], Scale: 1 / float64(n), R: r})
			}
			w0 := UnitSphere(rand.New(rand.NewPCG(5, uint64(n))), all0.D)
			const eps = 1e-6
			s := &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 1000, MaxInner: 5000}
			for _, m := range []solver.Method{
				&solver.ProxAL{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Test: solver.InnerTestMeasured, Rule: solver.RhoHessian,
					MetricShift: 0.01, Relax: 1, EpsRel: 0.1, OuterRelax: 1.9, Smooth: &solver.Newton{}},
				&solver.CProxAL{Beta: 300, SBar: 1e-3, OuterRelax: 1.9, Smooth: &solver.Newton{}},
			} {
				res, err := solver.Solve(context.Background(), prob, w0, s, m)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%T: %v, f = %.10f (reference %.10f), residuals %+v, outer %d, inner %d",
					m, res.Status, res.Objective, fref, res.Residuals, res.Stats.OuterIterations, res.Stats.InnerIterations)
				if res.Status != solver.Converged || math.Abs(res.Objective-fref) > 1e-6 {
					t.Errorf("%T: %v, f = %.10f, reference %.10f", m, res.Status, res.Objective, fref)
				}
			}
		})
	}
}

// TestPolishAgainstBarrier: with the KKT polish both algorithms reach
// ε1 = ε2 = 1e-8, certified by the recomputed residuals, on partitioned
// breast-cancer-wisc, monks-1 and adult-a (n = 5, 10, the default rule),
// and their objectives agree with the barrier reference to 1e-6 relative.
// monks-1 and adult-a have no minimiser (TestNoMinimizer): an ε-KKT point
// then lies on the way to the infimum, which the barrier method approaches
// too, so the objectives still agree. adult-a's cells are
// TestLongPolishAgainstBarrier's.
func TestPolishAgainstBarrier(t *testing.T) {
	if testing.Short() {
		t.Skip("a barrier reference per cell")
	}
	polishAgainstBarrier(t, "breast-cancer-wisc", "monks-1")
}

// TestLongPolishAgainstBarrier: TestPolishAgainstBarrier on adult-a, whose
// barrier references and ε = 1e-8 solves take about 3 min on 2 cores.
func TestLongPolishAgainstBarrier(t *testing.T) {
	testutil.Long(t)
	polishAgainstBarrier(t, "adult-a")
}

func polishAgainstBarrier(t *testing.T, names ...string) {
	dirs := append(datasets.SearchPath("", os.Getenv("FEDCON_DATA_DIR")), "../../shared/datasets")
	for _, name := range names {
		ds, err := datasets.Load(name, dirs)
		if err != nil {
			t.Skipf("%s not available: %v", name, err)
		}
		all0, all1 := classRows(ds)
		const r = 0.2
		for _, n := range []int{5, 10} {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				c0, c1 := roundRobin(all0, n), roundRobin(all1, n)
				_, fref := npBarrierReference(t, c0, c1, 1/float64(n), r)
				prob := &solver.Problem{Dim: all0.D}
				for i := range n {
					prob.Clients = append(prob.Clients, &NPClient{Class0: c0[i], Class1: c1[i], Scale: 1 / float64(n), R: r})
				}
				w0 := UnitSphere(rand.New(rand.NewPCG(7, uint64(n))), all0.D)
				const eps = 1e-8
				s := &solver.Settings{Eps1: eps, Eps2: eps, MaxOuter: 100, MaxInner: 300}
				for _, m := range []solver.Method{
					&solver.ProxAL{Beta: 300, SBar: 1e-3, Rho: 0.01, Q: 0.9, Test: solver.InnerTestMeasured, Rule: solver.RhoHessian,
						Relax: 1, EpsRel: 0.1, OuterRelax: 1.9, Smooth: &solver.Newton{}, Polish: true},
					&solver.CProxAL{Beta: 300, SBar: 1e-3, OuterRelax: 1.9, Smooth: &solver.Newton{}, Polish: true},
				} {
					res, err := solver.Solve(context.Background(), prob, w0, s, m)
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("%T: %v (test %v, polished %v), f = %.12f (reference %.12f), residuals %+v, outer %d, rounds %d",
						m, res.Status, res.Test, res.Polished, res.Objective, fref, res.Residuals, res.Stats.OuterIterations, res.Stats.Rounds)
					if res.Status != solver.Converged || res.Residuals.Stationarity > eps || res.Residuals.Feasibility > eps {
						t.Errorf("%T: %v, residuals %+v", m, res.Status, res.Residuals)
					}
					if math.Abs(res.Objective-fref) > 1e-6*math.Abs(fref) {
						t.Errorf("%T: f = %.12f, reference %.12f (relative %.1e)", m, res.Objective, fref, math.Abs(res.Objective-fref)/math.Abs(fref))
					}
				}
			})
		}
	}
}
