package drfl

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems/wdro"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// Grid is the cross-validation grid of Section 6.
type Grid struct {
	Rho   []float64 `json:"rho"`
	Kappa []float64 `json:"kappa"`
	Theta []float64 `json:"theta"`
}

// PaperGrid returns the paper's values (15 radii, 10 κ, 6 θ), the
// preset's cv_grid.
func PaperGrid() Grid {
	return DefaultConfig().Grid
}

// Thin keeps every k-th value of each list (k ≥ 1), starting with the first.
func (g Grid) Thin(k int) Grid {
	thin := func(x []float64) []float64 {
		var o []float64
		for i := 0; i < len(x); i += k {
			o = append(o, x[i])
		}
		return o
	}
	return Grid{Rho: thin(g.Rho), Kappa: thin(g.Kappa), Theta: thin(g.Theta)}
}

// candidates returns the grid points model base.Model is tuned over: DRFL
// ρ × κ × θ, AFL θ, WAFL ρ × κ, DRFA and standard none (base itself).
func (g Grid) candidates(base Params) []Params {
	rho, kappa, theta := []float64{base.Rho}, []float64{base.Kappa}, []float64{base.Theta}
	switch base.Model {
	case ModelDRFL:
		rho, kappa, theta = g.Rho, g.Kappa, g.Theta
	case ModelAFL:
		theta = g.Theta
	case ModelWAFL:
		rho, kappa = g.Rho, g.Kappa
	}
	var out []Params
	for _, r := range rho {
		for _, k := range kappa {
			for _, t := range theta {
				p := base
				p.Rho, p.Kappa, p.Theta, p.Rhos = r, k, t, nil
				p.PName = normName(p.P)
				out = append(out, p)
			}
		}
	}
	return out
}

// Folds assigns each training row of each client to one of k folds
// (client by client, stratified by class unless regression, rows dealt
// after a shuffle); fold f of every client together is validation fold f.
// A client with fewer than k rows (of a class) is a *ConfigError naming it.
func Folds(train []wdro.Client, k int, seed uint64, regression bool) ([][]int, error) {
	rng := rand.New(rand.NewPCG(seed, 0xc5))
	folds := make([][]int, len(train))
	strata := [][]float64{{-1}, {1}}
	if regression {
		strata = [][]float64{nil}
	}
	for s, c := range train {
		folds[s] = make([]int, len(c.Y))
		for _, cls := range strata {
			var idx []int
			for i, y := range c.Y {
				if cls == nil || y == cls[0] {
					idx = append(idx, i)
				}
			}
			if len(idx) < k {
				what := "rows"
				if cls != nil {
					what = fmt.Sprintf("rows of class %+g", cls[0])
				}
				return nil, &experiments.ConfigError{Field: "folds", Value: k,
					Reason: fmt.Sprintf("client %d has %d %s, fewer than the folds", s+1, len(idx), what)}
			}
			rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
			for j, i := range idx {
				folds[s][i] = j % k
			}
		}
	}
	return folds, nil
}

// cvFit trains model p on one fold's clients: as one central LP when (4)
// is one (hinge loss, p ∈ {1, ∞}: a few dozen interior-point
// factorisations instead of hundreds of rounds), else, or if the LP
// fails, by Algorithm 1 warm-started from start. lps are the fold's
// central LPs at the CV's tolerance and ten times it (each keeps its KKT
// ordering). It returns (w, b), whether the fit was central, and
// Algorithm 1's final state (nil for central fits).
func cvFit(ctx context.Context, fit []wdro.Client, lps *[2]wdro.CentralLP, p Params, start *adlpmm.State, set *adlpmm.Settings, tol float64) ([]float64, bool, *adlpmm.State, error) {
	if spec := NewSpec(fit, p); spec.central() {
		// The interior point can stall in its last digits on degenerate
		// LPs (rounding in the KKT solves): a looser tolerance still gives
		// a fit far more accurate than Algorithm 1's at drflCVTol, at a
		// fraction of its cost (which is high on exactly these LPs);
		// Algorithm 1 does the fits that fail both.
		for k := range lps {
			v, _, err := lps[k].Solve(ctx, spec.Clients, spec.Model, spec.Theta, spec.Norm, spec.Qhat)
			if err == nil || ctx.Err() != nil {
				return v, true, start, err
			}
		}
	}
	fs := adlpmm.Settings{}
	if set != nil {
		fs = *set
	}
	fs.Start = start
	// The cross-validation runs fits concurrently; clients within a fit
	// run in turn (the results do not depend on it).
	fs.Workers = 1
	// Validation scores only rank the candidates: a looser tolerance than
	// the final fit's is enough and saves most rounds.
	fs.Tol = math.Max(fs.Tol, tol)
	prob, err := Problem(fit, p)
	if err != nil {
		return nil, false, nil, err
	}
	res, err := adlpmm.Solve(ctx, prob, &fs)
	if err != nil {
		return nil, false, nil, err
	}
	return res.V, false, res.State, nil
}

// drflCVLPEps is the interior point's tolerance in cross-validation's
// central fits (default 1e-7): on small ρ the LPs are dual degenerate
// (λ is nearly free) and 2-3% of them stalled at a dual residual of
// ~1.5e-6, falling back to Algorithm 1 (20 times slower); at 1e-6 (and
// SolvedInaccurate at 1e-5) three quarters of those pass, with the
// validation scores of their neighbours. A fit that still fails is tried
// at ten times this tolerance before Algorithm 1 (cvFit).
const drflCVLPEps = 1e-6

// drflCVTol is the stopping tolerance of Algorithm 1 in cross-validation
// fits (the final fits use the Settings' tolerance, 1e-4 by default).
const drflCVTol = 1e-3

// CV is the outcome of cross-validating one model.
type CV struct {
	Best Params `json:"best"`
	// Scores holds the mean validation score (Metric: accuracy, or MSE for
	// Huber regression) of each candidate, in the order of the grid (ρ
	// outermost, then κ, then θ). A model with one candidate (DRFA,
	// standard FL) is not cross-validated: Scores = [0] and Fits = 0.
	Candidates []Params  `json:"candidates"`
	Scores     []float64 `json:"scores"`
	// Fits counts the (candidate, fold) fits scored. Central counts those
	// solved as one central LP (wdro.Central), Shared those taken from
	// another fit that is provably as good (huberShares, thetaShares), not solved; the
	// others ran Algorithm 1. ZeroRadius counts the ρ = 0 fits solved for
	// the sharing, on top of Fits.
	Fits       int `json:"fits"`
	Central    int `json:"central_fits"`
	Shared     int `json:"shared_fits,omitempty"`
	ZeroRadius int `json:"zero_radius_fits,omitempty"`
}

// CrossValidate picks the candidate of grid with the best mean validation
// score over k folds (Metric: higher accuracy, lower MSE; ties: the first
// in grid order, which follows the configured lists, not sorted values). Folds train on the other folds
// of every client, so clients keep their identity. Fits that are not one
// central LP run Algorithm 1, warm-started (Settings.Start) from the
// previous fit on the same fold; Huber fits share solutions where
// huberShares proves them equally good, central fits across θ where
// thetaShares certifies them.
func CrossValidate(ctx context.Context, train []wdro.Client, base Params, grid Grid, k int, seed uint64, set *adlpmm.Settings) (*CV, error) {
	out, _, err := crossValidate(ctx, train, base, grid, k, seed, set, drflCVTol)
	return out, err
}

// cvFits are a cross-validation's fits, for tests: the folds' training
// clients, and per candidate and fold (w, b) and whether it was shared.
type cvFits struct {
	fold   [][]wdro.Client
	v      [][][]float64
	shared [][]bool
}

// crossValidate is CrossValidate with Algorithm 1's tolerance tol (at
// least the Settings'), also returning the fits.
func crossValidate(ctx context.Context, train []wdro.Client, base Params, grid Grid, k int, seed uint64, set *adlpmm.Settings, tol float64) (*CV, *cvFits, error) {
	cands := grid.candidates(base)
	out := &CV{Candidates: cands, Best: base}
	if len(cands) == 0 {
		return nil, nil, &experiments.ConfigError{Field: "cv_grid", Value: grid, Reason: "an empty list leaves no candidate for " + base.Model}
	}
	if len(cands) == 1 {
		out.Scores = []float64{0}
		out.Best = cands[0]
		return out, nil, nil
	}
	folds, err := Folds(train, k, seed, base.loss() == wdro.LossHuber)
	if err != nil {
		return nil, nil, err
	}
	fits, vxs, vys := splitFolds(train, folds, k)
	workers := 1
	if set != nil && set.Workers > 1 {
		workers = set.Workers
	}
	for _, p := range cands {
		if err := p.Validate(); err != nil {
			return nil, nil, err
		}
	}
	r := newCVRun(cands, k, base.Metric(), fits, vxs, vys, set, tol)
	if NewSpec(fits[0], base).central() {
		err = r.runCentral(ctx, workers)
	} else {
		err = r.runAlgorithm1(ctx, workers, base.Model, out)
	}
	if err != nil {
		return nil, nil, err
	}
	r.score(out)
	return out, &cvFits{fold: fits, v: r.vs, shared: r.shared}, nil
}

// splitFolds builds, once for all candidates, each fold's training
// clients (fits[f]) and validation rows (vxs[f], vys[f]), rows in client
// order.
func splitFolds(train []wdro.Client, folds [][]int, k int) (fits [][]wdro.Client, vxs [][][]float64, vys [][]float64) {
	fits = make([][]wdro.Client, k)
	vxs, vys = make([][][]float64, k), make([][]float64, k)
	for f := range k {
		fits[f] = make([]wdro.Client, len(train))
		for s, c := range train {
			for i := range c.Y {
				if folds[s][i] == f {
					vxs[f], vys[f] = append(vxs[f], c.X[i]), append(vys[f], c.Y[i])
				} else {
					fits[f][s].X, fits[f][s].Y = append(fits[f][s].X, c.X[i]), append(fits[f][s].Y, c.Y[i])
				}
			}
		}
	}
	return fits, vxs, vys
}

// cvRun is the state one cross-validation's fits share. Every (candidate,
// fold) fit writes only its own slots, so the pools' tasks need no lock.
type cvRun struct {
	cands  []Params
	k      int
	metric Metric
	fits   [][]wdro.Client
	vxs    [][][]float64
	vys    [][]float64
	set    *adlpmm.Settings
	tol    float64
	lps    [][2]wdro.CentralLP // one ordering per fold and tolerance
	// scores[c][f], central[c][f]: candidate c on fold f, each fit into its
	// own slot; a candidate's score is summed in fold order, so it does
	// not depend on the workers.
	scores  [][]float64
	central [][]bool
	vs      [][][]float64
	// shared[c][f]: candidate c's fit on fold f is another fit
	// (huberShares, thetaShares), not solved.
	shared [][]bool
	chains [][]int
	// zero[f][ch], zeroSt[f][ch]: the ρ = 0 fit (and its state) on fold f
	// that chain ch's Huber candidates share where huberShares allows.
	zero   [][][]float64
	zeroSt [][]*adlpmm.State
}

// newCVRun allocates every slot up front, so that the tasks that fill
// them can run in any order.
func newCVRun(cands []Params, k int, metric Metric, fits [][]wdro.Client, vxs [][][]float64, vys [][]float64, set *adlpmm.Settings, tol float64) *cvRun {
	r := &cvRun{cands: cands, k: k, metric: metric, fits: fits, vxs: vxs, vys: vys, set: set, tol: tol}
	r.scores, r.central, r.vs = make([][]float64, len(cands)), make([][]bool, len(cands)), make([][][]float64, len(cands))
	for c := range cands {
		r.scores[c], r.central[c], r.vs[c] = make([]float64, k), make([]bool, k), make([][]float64, k)
	}
	r.lps = make([][2]wdro.CentralLP, k)
	for f := range r.lps {
		r.lps[f][0].Eps, r.lps[f][1].Eps = drflCVLPEps, 10*drflCVLPEps
	}
	r.shared = make([][]bool, len(cands))
	for c := range cands {
		r.shared[c] = make([]bool, k)
	}
	r.chains = algorithm1Chains(cands)
	r.zero, r.zeroSt = make([][][]float64, k), make([][]*adlpmm.State, k)
	return r
}

// fitOne solves candidate c on fold f from start and scores it.
func (r *cvRun) fitOne(ctx context.Context, c, f int, start *adlpmm.State) ([]float64, *adlpmm.State, error) {
	v, isCentral, st, err := cvFit(ctx, r.fits[f], &r.lps[f], r.cands[c], start, r.set, r.tol)
	if err != nil {
		return nil, nil, fmt.Errorf("cross-validation %s fold %d: %w", r.cands[c].Model, f+1, err)
	}
	r.central[c][f], r.scores[c][f], r.vs[c][f] = isCentral, r.metric.Eval(r.vxs[f], r.vys[f], v), v
	return v, st, nil
}

// share scores candidate c on fold f with another fit's v, unsolved.
func (r *cvRun) share(c, f int, v []float64) {
	r.shared[c][f], r.scores[c][f], r.vs[c][f] = true, r.metric.Eval(r.vxs[f], r.vys[f], v), v
}

// zeroP is chain ch's first candidate at ρ = 0, the fit its Huber
// candidates may share.
func (r *cvRun) zeroP(ch int) Params { p := r.cands[r.chains[ch][0]]; p.Rho = 0; return p }

// runChain fits chain ch's candidates on fold f one after another,
// each warm-started from the last fit solved.
func (r *cvRun) runChain(ctx context.Context, f, ch int) error {
	var prev *adlpmm.State
	var z []float64
	if r.zero[f] != nil {
		z, prev = r.zero[f][ch], r.zeroSt[f][ch]
	}
	var last []float64
	var lastP Params
	for _, c := range r.chains[ch] {
		p := r.cands[c]
		var v []float64
		switch {
		case z != nil && huberShares(r.zeroP(ch), z, p):
			v = z
		case last != nil && huberShares(lastP, last, p):
			v = last
		default:
			var err error
			if last, prev, err = r.fitOne(ctx, c, f, prev); err != nil {
				return err
			}
			lastP = p
			continue
		}
		r.share(c, f, v)
	}
	return nil
}

// runThetas fits on fold f the central candidates of group grp (equal
// but for θ, ascending), sharing fits across θ where thetaShares
// certifies them.
func (r *cvRun) runThetas(ctx context.Context, f int, grp []int) error {
	sols := make([]thetaFit, len(grp))
	theta := func(k int) float64 { return r.cands[grp[k]].Theta }
	solve := func(k int) error {
		c := grp[k]
		v, _, err := r.fitOne(ctx, c, f, nil)
		if err != nil {
			return err
		}
		obj, slope := drflWorst(r.fits[f], r.cands[c], v)
		sols[k] = thetaFit{theta: r.cands[c].Theta, v: v, obj: obj, slope: slope, central: r.central[c][f]}
		return nil
	}
	var split func(i, j int) error
	split = func(i, j int) error {
		if j-i < 2 {
			return nil
		}
		if thetaShares(sols[i], sols[j], theta, i, j) {
			for k := i + 1; k < j; k++ {
				r.share(grp[k], f, sols[i].v)
			}
			return nil
		}
		m := thetaMiddle(theta, i, j)
		if err := solve(m); err != nil {
			return err
		}
		if err := split(i, m); err != nil {
			return err
		}
		return split(m, j)
	}
	if err := solve(0); err != nil || len(grp) == 1 {
		return err
	}
	if err := solve(len(grp) - 1); err != nil {
		return err
	}
	return split(0, len(grp)-1)
}

// runCentral fits every candidate as a central LP. The LPs are
// cold-started: the (θ group, fold) tasks are independent, so one pool
// keeps all workers busy.
func (r *cvRun) runCentral(ctx context.Context, workers int) error {
	groups := thetaGroups(r.cands)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, grp := range groups {
		for f := range r.k {
			g.Go(func() error {
				if err := gctx.Err(); err != nil {
					return err // canceled: do not build the remaining LPs
				}
				return r.runThetas(gctx, f, grp)
			})
		}
	}
	return g.Wait()
}

// runAlgorithm1 fits every candidate with Algorithm 1, warm-started along
// a chain per (fold, θ), radii ascending (neighbouring grid points: fewer
// rounds); the chains are independent, so one pool runs them. The Huber
// models' ρ = 0 fits come first (counted in out.ZeroRadius).
func (r *cvRun) runAlgorithm1(ctx context.Context, workers int, model string, out *CV) error {
	if huberKappaOnBall(r.zeroP(0)) {
		if err := r.fitZeros(ctx, workers, model); err != nil {
			return err
		}
		out.ZeroRadius = r.k * len(r.chains)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for f := range r.k {
		for ch := range r.chains {
			g.Go(func() error {
				if err := gctx.Err(); err != nil {
					return err
				}
				return r.runChain(gctx, f, ch)
			})
		}
	}
	return g.Wait()
}

// fitZeros solves each chain's ρ = 0 fit, per fold warm-started along θ
// (one task per fold).
func (r *cvRun) fitZeros(ctx context.Context, workers int, model string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for f := range r.k {
		g.Go(func() error {
			r.zero[f], r.zeroSt[f] = make([][]float64, len(r.chains)), make([]*adlpmm.State, len(r.chains))
			var prev *adlpmm.State
			for ch := range r.chains {
				v, _, st, err := cvFit(gctx, r.fits[f], &r.lps[f], r.zeroP(ch), prev, r.set, r.tol)
				if err != nil {
					return fmt.Errorf("cross-validation %s (ρ = 0) fold %d: %w", model, f+1, err)
				}
				r.zero[f][ch], r.zeroSt[f][ch], prev = v, st, st
			}
			return nil
		})
	}
	return g.Wait()
}

// score sums each candidate's fold scores in fold order, counts the fits
// and picks the best candidate (the first of equals, in grid order).
func (r *cvRun) score(out *CV) {
	var best float64
	for c, p := range r.cands {
		var score float64
		for f := range r.k {
			score += r.scores[c][f] / float64(r.k)
			out.Fits++
			if r.central[c][f] {
				out.Central++
			}
			if r.shared[c][f] {
				out.Shared++
			}
		}
		out.Scores = append(out.Scores, score)
		if len(out.Scores) == 1 || r.metric.Better(score, best) {
			best, out.Best = score, p
		}
	}
}

// algorithm1Chains groups the candidates' indices into warm-start chains:
// one per θ (in grid order), radii ascending and, per radius, κ
// descending (the order huberShares' second rule needs); one chain in
// grid order if only θ varies (AFL), which would leave chains of one.
func algorithm1Chains(cands []Params) [][]int {
	thetaOnly := true
	for _, p := range cands {
		thetaOnly = thetaOnly && p.Rho == cands[0].Rho && p.Kappa == cands[0].Kappa
	}
	var chains [][]int
	var thetas []float64
	for c, p := range cands {
		i := slices.Index(thetas, p.Theta)
		if thetaOnly {
			i = 0
		}
		if i < 0 || i == len(chains) {
			i = len(chains)
			thetas, chains = append(thetas, p.Theta), append(chains, nil)
		}
		chains[i] = append(chains[i], c)
	}
	for _, ch := range chains {
		slices.SortStableFunc(ch, func(a, b int) int {
			if c := cmp.Compare(cands[a].Rho, cands[b].Rho); c != 0 {
				return c
			}
			return cmp.Compare(cands[b].Kappa, cands[a].Kappa)
		})
	}
	return chains
}

// huberKappaOnBall reports whether p is a Huber model whose worst-case
// loss has the form huberShares needs: the DRFL or WAFL model with one
// radius for all clients.
func huberKappaOnBall(p Params) bool {
	return p.loss() == wdro.LossHuber && (p.Model == ModelDRFL || p.Model == ModelWAFL) && p.Rhos == nil
}

// huberShares reports whether v, a fit of from, is as good a fit of to
// (the same gap to the optimum). With the Huber loss and one radius ρ,
// each client's worst-case loss is ρε·max(‖w‖∞, 1/κ) plus its empirical
// loss L_s (Cor. B.1), and since Σ q_s = 1, problem (4) reads
//
//	P_{ρ,κ}(w) = ρε·max(‖w‖∞, 1/κ) + G(w),  G(w) = max_{q∈Q} Σ q_s L_s(w),
//
// κ's only appearance. Hence (b is not in the norm):
//   - v minimising G (ρ = 0) with ‖w‖∞ ≤ 1/κ minimises every P_{ρ,κ}:
//     P_{ρ,κ}(w') ≥ ρε/κ + G(w') ≥ ρε/κ + G(v) = P_{ρ,κ}(v);
//   - v minimising P_{ρ,κ} with ‖w‖∞ ≥ 1/κ' minimises P_{ρ,κ'} for κ' ≤ κ:
//     P_{ρ,κ'} ≥ P_{ρ,κ} everywhere, with equality at v.
func huberShares(from Params, v []float64, to Params) bool {
	if !huberKappaOnBall(from) || !huberKappaOnBall(to) || from.Model != to.Model ||
		from.Theta != to.Theta || from.P != to.P || from.Epsilon != to.Epsilon || !slices.Equal(from.QHat, to.QHat) {
		return false
	}
	var wInf float64
	for _, x := range v[:len(v)-1] {
		wInf = math.Max(wInf, math.Abs(x))
	}
	bound := 1 / to.Kappa
	if from.Rho == 0 {
		return to.Rho == 0 || wInf <= bound // ρ = 0: P = G for every κ
	}
	return from.Rho == to.Rho && from.Kappa >= to.Kappa && wInf >= bound
}

// thetaGroups groups the candidates' indices by all but θ, each group θ
// ascending (groups of one where θ is not tuned).
func thetaGroups(cands []Params) [][]int {
	var groups [][]int
	var keys [][2]float64
	for c, p := range cands {
		key := [2]float64{p.Rho, p.Kappa}
		i := slices.Index(keys, key)
		if i < 0 {
			i = len(keys)
			keys, groups = append(keys, key), append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b int) int { return cmp.Compare(cands[a].Theta, cands[b].Theta) })
	}
	return groups
}

// thetaFit is a central fit at θ: (w, b), the objective of (4) there, an
// upper bound on the rate at which (4) at v grows with θ (drflWorst), and
// whether it is a central LP solution.
type thetaFit struct {
	theta, obj, slope float64
	v                 []float64
	central           bool
}

// thetaShares reports whether a's fit may stand for the fits at the
// θ_k = theta(k) strictly between a (index i) and b (index j). Only the
// term θ‖·‖_{p*} of (4) depends on θ, so the optimal value V(θ) is
// concave (a minimum of functions concave in θ). At θ_k = (1 − t)θ_a + tθ_b
// that gives V(θ_k) ≥ (1 − t)V(θ_a) + tV(θ_b), while the objective of a's
// fit grows at most linearly: P_{θ_k}(v_a) ≤ P_a + slope_a·(θ_k − θ_a).
// Taking the fits as optimal at their own θ (both central LPs), v_a's gap
// at θ_k is at most t·(P_a + slope_a·(θ_b − θ_a) − P_b); it is accepted
// at the LPs' own tolerance (with the endpoints' own gaps ε_a, ε_b the
// bound grows by (1 − t)ε_a + tε_b: about ten times that tolerance for a
// SolvedInaccurate endpoint, as for a direct solve ending so). On the paper's logarithmic θ grid t is small
// (θ_k = 1e-4 between 1e-5 and 1 has t ≈ 1e-4), and the small θ often
// share one LP vertex.
func thetaShares(a, b thetaFit, theta func(k int) float64, i, j int) bool {
	if !a.central || !b.central || !(b.theta > a.theta) {
		return false
	}
	gap := a.obj + a.slope*(b.theta-a.theta) - b.obj
	tol := drflCVLPEps * (1 + math.Abs(b.obj))
	for k := i + 1; k < j; k++ {
		if t := (theta(k) - a.theta) / (b.theta - a.theta); !(t*gap <= tol) { // NaN: no
			return false
		}
	}
	return true
}

// thetaMiddle returns the index strictly between i and j (j − i ≥ 2)
// whose θ is closest to the geometric mean of θ_i and θ_j (the middle
// index if θ_i is 0).
func thetaMiddle(theta func(k int) float64, i, j int) int {
	if !(theta(i) > 0) {
		return (i + j) / 2
	}
	mid := (math.Log(theta(i)) + math.Log(theta(j))) / 2
	best := i + 1
	for k := i + 1; k < j; k++ {
		if math.Abs(math.Log(theta(k))-mid) < math.Abs(math.Log(theta(best))-mid) {
			best = k
		}
	}
	return best
}

// drflWorst returns (4) at v for model p on the clients, the largest
// Σ q_s f_s(v) over q ∈ Q with the clients' worst-case losses f_s in
// closed form, and an upper bound on its growth rate in θ:
// S^{1−1/p}·(max_s f_s − min_s f_s)/2. (For θ < θ', each q' ∈ Q_θ' has
// q = q̂ + (θ/θ')(q' − q̂) ∈ Q_θ with ‖q' − q‖₁ ≤ S^{1−1/p}(θ' − θ), and
// (q' − q)·f ≤ ‖q' − q‖₁(max f − min f)/2 as both sum to 1.)
func drflWorst(clients []wdro.Client, p Params, v []float64) (obj, slope float64) {
	sp := NewSpec(clients, p)
	S := len(sp.Clients)
	f, qhat := make([]float64, S), sp.Qhat
	if qhat == nil {
		qhat = wdro.SampleShares(sp.Clients)
	}
	for s, c := range sp.Clients {
		f[s], _ = wdro.WorstCaseLoss(c, sp.Model, v)
	}
	for s, q := range adlpmm.WorstWeights(f, qhat, sp.Theta, sp.Norm) {
		obj += q * f[s]
	}
	cp := float64(S) // p = ∞
	if !math.IsInf(sp.Norm, 1) {
		cp = math.Pow(float64(S), 1-1/sp.Norm)
	}
	return obj, cp * (slices.Max(f) - slices.Min(f)) / 2
}
