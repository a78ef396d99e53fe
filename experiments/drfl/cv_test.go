package drfl

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/problems/wdro"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// huberClients returns S regression clients of N rows: features in
// [−1, 1], targets from one hyperplane with ‖w‖∞ = 1.6 plus noise and
// outliers, so that the κ grid straddles the unpenalised fit's ‖w‖∞.
func huberClients(S, N int) []wdro.Client {
	rng := rand.New(rand.NewPCG(41, 42))
	w := []float64{1.6, -0.9, 0.4}
	cl := make([]wdro.Client, S)
	for s := range cl {
		for i := range N {
			x := make([]float64, len(w))
			y := 3 + 0.3*float64(s)
			for j := range x {
				x[j] = 2*rng.Float64() - 1
				y += w[j] * x[j]
			}
			y += 0.3 * rng.NormFloat64()
			if i%5 == 2 {
				y += 3 * rng.NormFloat64()
			}
			cl[s].X, cl[s].Y = append(cl[s].X, x), append(cl[s].Y, y)
		}
	}
	return cl
}

// drflObjective is (4) at v: the largest Σ q_s f_s(v) over q ∈ Q, f_s the
// clients' worst-case losses in closed form.
func drflObjective(clients []wdro.Client, p Params, v []float64) float64 {
	obj, _ := drflWorst(clients, p, v)
	return obj
}

// solveDRFL solves model p on the clients by Algorithm 1, which must
// converge, and returns (w, b).
func solveDRFL(t *testing.T, clients []wdro.Client, p Params, set *adlpmm.Settings) []float64 {
	t.Helper()
	prob, err := Problem(clients, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := adlpmm.Solve(context.Background(), prob, set)
	if err != nil || res.Status != adlpmm.Converged {
		t.Fatalf("%+v: %v, %v", p, res.Status, err)
	}
	return res.V
}

// TestHuberShares checks both rules of huberShares against direct solves:
// wherever it shares a fit (from ρ = 0 or any candidate solved before, in
// mixed κ order), that fit's objective equals the optimum of the candidate
// solved on its own to 1e-7; and enough declined fits would have been
// measurably worse, so dropping a condition makes the test fail.
func TestHuberShares(t *testing.T) {
	clients := huberClients(3, 30)
	set := &adlpmm.Settings{Tol: 1e-7, MaxRounds: 20000}
	solve := func(p Params) []float64 { t.Helper(); return solveDRFL(t, clients, p, set) }
	for _, model := range []string{ModelDRFL, ModelWAFL} {
		base := Params{Model: model, Theta: 0.1, P: 1, Loss: "huber"}
		zp := base
		zp.Kappa = 1
		zero := solve(zp)
		wInf := 0.0
		for _, x := range zero[:len(zero)-1] {
			wInf = math.Max(wInf, math.Abs(x))
		}
		if wInf < 1.1 || wInf > 1/0.3 {
			t.Fatalf("%s: unpenalised ‖w‖∞ = %v, the test needs it inside the κ range", model, wInf)
		}
		// Sources: the ρ = 0 fit and every candidate solved before, at any
		// ρ and κ (so that dropping a condition shares a wrong fit).
		type fit struct {
			p Params
			v []float64
		}
		solved := []fit{{zp, zero}}
		var shared, declined int
		for _, rho := range []float64{0.05, 0.5} {
			for _, kappa := range []float64{1, 0.3, 0.9, 0.7, 0.5} {
				p := base
				p.Rho, p.Kappa = rho, kappa
				direct := solve(p)
				opt := drflObjective(clients, p, direct)
				for _, src := range solved {
					got := drflObjective(clients, p, src.v)
					if huberShares(src.p, src.v, p) {
						shared++
						if math.Abs(got-opt) > 1e-5*(1+opt) {
							t.Errorf("%s ρ %v κ %v: shared from ρ %v κ %v: objective %.8f, optimum %.8f", model, rho, kappa, src.p.Rho, src.p.Kappa, got, opt)
						}
					} else if got > opt+1e-3 {
						declined++
					}
				}
				solved = append(solved, fit{p, direct})
			}
		}
		if shared < 5 || declined < 5 {
			t.Errorf("%s: %d shared, %d measurably worse fits declined: the test exercises too little", model, shared, declined)
		}
		// Other θ, ε, models or radii per client: never shared.
		other := base
		other.Rho, other.Kappa = 0.05, 0.3
		for _, edit := range []func(p *Params){
			func(p *Params) { p.Theta = 0.2 },
			func(p *Params) { p.Epsilon = 2 },
			func(p *Params) { p.Model = ModelAFL },
			func(p *Params) { p.Rhos = []float64{0.05, 0.05, 0.05} },
			func(p *Params) { p.Loss = "hinge" },
			func(p *Params) { p.P = 2 },
			func(p *Params) { p.QHat = []float64{0.2, 0.3, 0.5} },
		} {
			o := other
			edit(&o)
			if huberShares(zp, zero, o) {
				t.Errorf("%s: shared with %+v", model, o)
			}
		}
	}
}

// TestCrossValidateHuberShares: a Huber CV over a small ρ × κ × θ grid
// (Algorithm 1 to 1e-8) shares most fits, and every shared fit's
// objective equals a direct solve's on its fold; the scores do not depend
// on the workers.
func TestCrossValidateHuberShares(t *testing.T) {
	clients := huberClients(3, 30)
	grid := Grid{Rho: []float64{0.5, 0.05, 1e-3}, Kappa: []float64{0.2, 0.4, 1}, Theta: []float64{0.01, 0.1}}
	base := Params{Model: ModelDRFL, P: 1, Loss: "huber"}
	set := &adlpmm.Settings{Tol: 1e-8, MaxRounds: 50000}
	var first *CV
	var fits *cvFits
	for _, w := range []int{1, 3} {
		set.Workers = w
		cv, cf, err := crossValidate(context.Background(), clients, base, grid, 3, 5, set, 1e-8)
		if err != nil {
			t.Fatal(err)
		}
		if cv.Fits != 18*3 || cv.ZeroRadius != 2*3 || cv.Shared < cv.Fits/3 || cv.Central != 0 {
			t.Fatalf("%d workers: %d fits, %d shared, %d ρ = 0 fits, %d central", w, cv.Fits, cv.Shared, cv.ZeroRadius, cv.Central)
		}
		if first == nil {
			first, fits = cv, cf
			continue
		}
		for i := range cv.Scores {
			if cv.Scores[i] != first.Scores[i] {
				t.Fatalf("scores %v with 3 workers, %v with 1", cv.Scores, first.Scores)
			}
		}
	}
	for c, p := range first.Candidates {
		for f, fold := range fits.fold {
			if !fits.shared[c][f] {
				continue
			}
			got, opt := drflObjective(fold, p, fits.v[c][f]), drflObjective(fold, p, solveDRFL(t, fold, p, set))
			if math.Abs(got-opt) > 1e-6*(1+opt) {
				t.Errorf("ρ %v κ %v θ %v fold %d: shared fit's objective %.9f, direct solve %.9f", p.Rho, p.Kappa, p.Theta, f+1, got, opt)
			}
		}
	}
	t.Logf("%d fits, %d shared, %d ρ = 0 fits; best %+v", first.Fits, first.Shared, first.ZeroRadius, first.Best)
	if _, err := CrossValidate(context.Background(), clients, base, Grid{Kappa: []float64{1}, Theta: []float64{0.1}}, 3, 5, nil); err == nil {
		t.Error("empty ρ list: no error")
	}
}

func TestAlgorithm1Chains(t *testing.T) {
	g := Grid{Rho: []float64{0.1, 1e-3}, Kappa: []float64{0.2, 1}, Theta: []float64{0.01, 0.1}}
	base := Params{Rho: 0.5, Kappa: 0.5, Theta: 0.3, P: 1}
	for _, tc := range []struct {
		model string
		want  [][]int
	}{
		// ρ outermost, then κ, then θ: (0.1,0.2,0.01)=0, (0.1,0.2,0.1)=1,
		// (0.1,1,0.01)=2, (0.1,1,0.1)=3, (1e-3,0.2,0.01)=4, ...
		{ModelDRFL, [][]int{{6, 4, 2, 0}, {7, 5, 3, 1}}},
		{ModelWAFL, [][]int{{3, 2, 1, 0}}},
		{ModelAFL, [][]int{{0, 1}}},
	} {
		base.Model = tc.model
		got := algorithm1Chains(g.candidates(base))
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%s: chains %v, want %v", tc.model, got, tc.want)
		}
	}
}

// TestCrossValidateThetaShares: central (SVM, p = 1) CV over the paper's
// six θ shares fits across θ, and each shared fit's objective at its own
// θ equals a direct central solve's to the LPs' accuracy; AFL (θ only)
// shares too. Scores do not depend on the workers.
func TestCrossValidateThetaShares(t *testing.T) {
	sp, err := NewSplit(synthDataset(90, 2), DataConfig{TrainShare: 0.6, Clients: 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	grid := Grid{Rho: []float64{1e-3, 0.1}, Kappa: []float64{0.5}, Theta: PaperGrid().Theta}
	for _, model := range []string{ModelDRFL, ModelAFL} {
		base := Params{Model: model, Kappa: 0.5, P: 1}
		var first *CV
		var fits *cvFits
		for _, w := range []int{1, 3} {
			cv, cf, err := crossValidate(context.Background(), sp.Train, base, grid, 3, 7, &adlpmm.Settings{Workers: w}, drflCVTol)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first, fits = cv, cf
				continue
			}
			if !slices.Equal(cv.Scores, first.Scores) || cv.Shared != first.Shared {
				t.Fatalf("%s: scores %v (%d shared) with 3 workers, %v (%d) with 1", model, cv.Scores, cv.Shared, first.Scores, first.Shared)
			}
		}
		if first.Shared == 0 || first.Central+first.Shared > first.Fits { // the rest: Algorithm 1 fallbacks
			t.Errorf("%s: %d fits, %d central, %d shared", model, first.Fits, first.Central, first.Shared)
		}
		var lp wdro.CentralLP
		lp.Eps = drflCVLPEps
		for c, p := range first.Candidates {
			for f, fold := range fits.fold {
				if !fits.shared[c][f] {
					continue
				}
				// The fit shared is a solved one at a smaller θ (the lower
				// end of the certified interval), the same ρ and κ.
				lower := false
				for o, q := range first.Candidates {
					lower = lower || !fits.shared[o][f] && q.Rho == p.Rho && q.Kappa == p.Kappa && q.Theta < p.Theta && &fits.v[o][f][0] == &fits.v[c][f][0]
				}
				if !lower {
					t.Errorf("%s ρ %v θ %v fold %d: shared fit is not a solved fit at a smaller θ", model, p.Rho, p.Theta, f+1)
				}
				spec := NewSpec(fold, p)
				v, _, err := lp.Solve(context.Background(), spec.Clients, spec.Model, spec.Theta, spec.Norm, spec.Qhat)
				if err != nil {
					t.Fatal(err)
				}
				got, opt := drflObjective(fold, p, fits.v[c][f]), drflObjective(fold, p, v)
				if math.Abs(got-opt) > 5e-6*(1+opt) {
					t.Errorf("%s ρ %v θ %v fold %d: shared fit's objective %.9f, direct LP %.9f", model, p.Rho, p.Theta, f+1, got, opt)
				}
			}
		}
		t.Logf("%s: %d fits, %d shared", model, first.Fits, first.Shared)
	}
}

// TestThetaBound: drflWorst's slope bounds the growth of (4) at a fixed v
// in θ, for p = 1, 2, ∞ (checked on a θ grid), and is attained for p = 1
// at small θ (so the bound is not loose where the CV uses it).
func TestThetaBound(t *testing.T) {
	sp, err := NewSplit(synthDataset(90, 2), DataConfig{TrainShare: 0.6, Clients: 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 20 {
		v := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		for _, norm := range []float64{1, 2, math.Inf(1)} {
			p := Params{Model: ModelDRFL, Rho: 0.01, Kappa: 0.5, P: norm}
			thetas := []float64{0, 1e-4, 1e-2, 0.1, 0.3, 1, 2}
			for a, ta := range thetas {
				p.Theta = ta
				pa, slope := drflWorst(sp.Train, p, v)
				for _, tb := range thetas[a+1:] {
					p.Theta = tb
					pb, _ := drflWorst(sp.Train, p, v)
					if pb < pa-1e-12 || pb > pa+slope*(tb-ta)+1e-12 {
						t.Errorf("trial %d p %v: P(%v) = %v, P(%v) = %v, slope %v", trial, norm, ta, pa, tb, pb, slope)
					}
					if norm == 1 && tb <= 1e-2 && math.Abs(pb-pa-slope*(tb-ta)) > 1e-12 {
						t.Errorf("trial %d: p = 1 slope %v not attained between θ %v and %v (%v)", trial, slope, ta, tb, (pb-pa)/(tb-ta))
					}
				}
			}
		}
	}
}

// TestCentralLPSaturatedTheta: on breast cancer (repetition 1) the central
// LPs with a large θ, where the worst case saturates and the LP is
// degenerate, used to end at IterationLimit and fall back to Algorithm 1
// (six of these eight; with the other θ = 1 fits, half the CPU time of a
// full-grid CV). They now solve, and each solution is at least as good at
// its own θ as the others' (to the LPs' tolerance). Fold 4 at θ = 1 fails
// at the CV's tolerance and is solved as a central LP at ten times it
// (cvFit), not by Algorithm 1.
func TestCentralLPSaturatedTheta(t *testing.T) {
	testutil.Slow(t)
	d := drflDataOrSkip(t, "breast-cancer-wisc")
	sp, err := NewSplit(d, DefaultData("breast-cancer-wisc"), 1)
	if err != nil {
		t.Fatal(err)
	}
	folds, err := Folds(sp.Train, 5, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	lp := wdro.CentralLP{Eps: drflCVLPEps}
	for f, thetas := range map[int][]float64{1: {0.5, 0.9, 1}, 3: {0.5, 0.9, 1}, 4: {0.5, 0.9, 1}} {
		fit := make([]wdro.Client, len(sp.Train))
		for s, c := range sp.Train {
			for i := range c.Y {
				if folds[s][i] != f {
					fit[s].X, fit[s].Y = append(fit[s].X, c.X[i]), append(fit[s].Y, c.Y[i])
				}
			}
		}
		vs := make([][]float64, len(thetas))
		for k, theta := range thetas {
			p := Params{Model: ModelDRFL, Rho: 1e-6, Kappa: 0.5, Theta: theta, P: 1}
			if f == 3 && theta == 1 {
				lps := [2]wdro.CentralLP{{Eps: drflCVLPEps}, {Eps: 10 * drflCVLPEps}}
				var central bool
				if vs[k], central, _, err = cvFit(context.Background(), fit, &lps, p, nil, nil, drflCVTol); err != nil || !central {
					t.Fatalf("fold 4 θ 1: central %v, %v", central, err)
				}
				continue
			}
			spec := NewSpec(fit, p)
			if vs[k], _, err = lp.Solve(context.Background(), spec.Clients, spec.Model, spec.Theta, spec.Norm, spec.Qhat); err != nil {
				t.Fatalf("fold %d θ %v: %v", f+1, theta, err)
			}
		}
		for k, theta := range thetas {
			p := Params{Model: ModelDRFL, Rho: 1e-6, Kappa: 0.5, Theta: theta, P: 1}
			own := drflObjective(fit, p, vs[k])
			for o := range thetas {
				if other := drflObjective(fit, p, vs[o]); other < own-2e-6*(1+own) {
					t.Errorf("fold %d θ %v: its LP solution scores %.9f, θ = %v's %.9f", f+1, theta, own, thetas[o], other)
				}
			}
		}
	}
}

// TestThetaSharesRule: thetaShares on hand-built fits: the certificate
// t·(P_a + slope·(θ_b − θ_a) − P_b) against the tolerance on both sides,
// no sharing from a fit that is not a central LP, or with θ_b ≤ θ_a, or a
// NaN objective.
func TestThetaSharesRule(t *testing.T) {
	thetas := []float64{0.01, 0.02, 0.1} // k = 1 has t = 1/9
	theta := func(k int) float64 { return thetas[k] }
	tol := drflCVLPEps * (1 + 0.5) // P_b = 0.5
	// gap = P_a + slope·0.09 − P_b; t·gap against tol at t = 1/9.
	fit := func(th, obj, slope float64) thetaFit {
		return thetaFit{theta: th, obj: obj, slope: slope, central: true}
	}
	for _, tc := range []struct {
		name string
		a, b thetaFit
		want bool
	}{
		{"gap just under", fit(0.01, 0.5, 0), fit(0.1, 0.5-9*tol*0.99, 0), true},
		{"gap just over", fit(0.01, 0.5, 0), fit(0.1, 0.5-9*tol*1.01, 0), false},
		{"slope counts", fit(0.01, 0.5, 1e-3), fit(0.1, 0.5, 0), false},
		{"b better than its bound", fit(0.01, 0.5, 1), fit(0.1, 0.59, 0), true},
		{"a not central", thetaFit{theta: 0.01, obj: 0.5}, fit(0.1, 0.5, 0), false},
		{"b not central", fit(0.01, 0.5, 0), thetaFit{theta: 0.1, obj: 0.5}, false},
		{"theta order", fit(0.1, 0.5, 0), fit(0.01, 0.5, 0), false},
		{"NaN", fit(0.01, math.NaN(), 0), fit(0.1, 0.5, 0), false},
	} {
		if got := thetaShares(tc.a, tc.b, theta, 0, 2); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSplitFolds: fold f validates on the rows assigned to it, in client
// order, and each client trains on its own other rows.
func TestSplitFolds(t *testing.T) {
	row := func(v float64) []float64 { return []float64{v} }
	train := []wdro.Client{
		{X: [][]float64{row(1), row(2), row(3)}, Y: []float64{1, -1, 1}},
		{X: [][]float64{row(4), row(5)}, Y: []float64{-1, 1}},
	}
	fits, vxs, vys := splitFolds(train, [][]int{{0, 1, 0}, {1, 0}}, 2)
	flat := func(x [][]float64) []float64 {
		var o []float64
		for _, r := range x {
			o = append(o, r[0])
		}
		return o
	}
	for _, c := range []struct {
		name      string
		got, want []float64
	}{
		{"fold 1 validation x", flat(vxs[0]), []float64{1, 3, 5}},
		{"fold 1 validation y", vys[0], []float64{1, 1, 1}},
		{"fold 2 validation x", flat(vxs[1]), []float64{2, 4}},
		{"fold 2 validation y", vys[1], []float64{-1, -1}},
		{"fold 1 client 1 x", flat(fits[0][0].X), []float64{2}},
		{"fold 1 client 2 y", fits[0][1].Y, []float64{-1}},
		{"fold 2 client 1 x", flat(fits[1][0].X), []float64{1, 3}},
		{"fold 2 client 2 x", flat(fits[1][1].X), []float64{5}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}
