package experiments

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"golang.org/x/sync/errgroup"

	pd "github.com/fedcon/fedcon/problems/drfl"
	sd "github.com/fedcon/fedcon/solver/drfl"
)

// DRFLGrid is the cross-validation grid of Section 6.
type DRFLGrid struct {
	Rho   []float64 `json:"rho"`
	Kappa []float64 `json:"kappa"`
	Theta []float64 `json:"theta"`
}

// PaperDRFLGrid returns the paper's values (15 radii, 10 κ, 6 θ), the
// preset's cv_grid.
func PaperDRFLGrid() DRFLGrid {
	return DefaultDRFLConfig().Grid
}

// Thin keeps every k-th value of each list (k ≥ 1), starting with the first.
func (g DRFLGrid) Thin(k int) DRFLGrid {
	thin := func(x []float64) []float64 {
		var o []float64
		for i := 0; i < len(x); i += k {
			o = append(o, x[i])
		}
		return o
	}
	return DRFLGrid{Rho: thin(g.Rho), Kappa: thin(g.Kappa), Theta: thin(g.Theta)}
}

// candidates returns the grid points model base.Model is tuned over: DRFL
// ρ × κ × θ, AFL θ, WAFL ρ × κ, DRFA and standard none (base itself).
func (g DRFLGrid) candidates(base DRFLParams) []DRFLParams {
	rho, kappa, theta := []float64{base.Rho}, []float64{base.Kappa}, []float64{base.Theta}
	switch base.Model {
	case DRFLModel:
		rho, kappa, theta = g.Rho, g.Kappa, g.Theta
	case DRFLAFL:
		theta = g.Theta
	case DRFLWAFL:
		rho, kappa = g.Rho, g.Kappa
	}
	var out []DRFLParams
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

// DRFLFolds assigns each training row of each client to one of k folds
// (client by client, stratified by class unless regression, rows dealt
// after a shuffle); fold f of every client together is validation fold f.
// A client with fewer than k rows (of a class) is a *ConfigError naming it.
func DRFLFolds(train []pd.Client, k int, seed uint64, regression bool) ([][]int, error) {
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
				return nil, &ConfigError{Field: "folds", Value: k,
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
// fails, by Algorithm 1 warm-started from start. lp keeps the fold's
// KKT ordering. It returns (w, b), whether the fit was
// central, and Algorithm 1's final state (nil for central fits).
func cvFit(ctx context.Context, fit []pd.Client, lp *pd.CentralLP, p DRFLParams, start *sd.State, set *sd.Settings) ([]float64, bool, *sd.State, error) {
	if spec := newDRFLSpec(fit, p); spec.central() {
		v, _, err := lp.Solve(ctx, spec.clients, spec.model, spec.theta, spec.norm, spec.qhat)
		if err == nil || ctx.Err() != nil {
			return v, true, start, err
		}
		// The interior point can stall in its last digits on some LPs
		// (rounding in the KKT solves); Algorithm 1 then does the fit.
	}
	fs := sd.Settings{}
	if set != nil {
		fs = *set
	}
	fs.Start = start
	// Validation scores only rank the candidates: a looser tolerance than
	// the final fit's is enough and saves most rounds.
	fs.Tol = math.Max(fs.Tol, drflCVTol)
	prob, err := DRFLProblem(fit, p)
	if err != nil {
		return nil, false, nil, err
	}
	res, err := sd.Solve(ctx, prob, &fs)
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
// validation scores of their neighbours.
const drflCVLPEps = 1e-6

// drflCVTol is the stopping tolerance of Algorithm 1 in cross-validation
// fits (the final fits use the Settings' tolerance, 1e-4 by default).
const drflCVTol = 1e-3

// DRFLCV is the outcome of cross-validating one model.
type DRFLCV struct {
	Best DRFLParams `json:"best"`
	// Scores holds the mean validation accuracy of each candidate, in the
	// order of the grid (ρ outermost, then κ, then θ).
	Candidates []DRFLParams `json:"candidates"`
	Scores     []float64    `json:"scores"`
	Fits       int          `json:"fits"`
	// Central counts the fits solved as one central LP (pd.Central); the
	// others ran Algorithm 1.
	Central int `json:"central_fits"`
}

// CrossValidate picks the candidate of grid with the best mean validation
// accuracy over k folds (ties: the first). Folds train on the other folds
// of every client, so clients keep their identity; each fit is warm-started
// (Settings.Start) from the previous candidate's fit on the same fold.
func CrossValidate(ctx context.Context, train []pd.Client, base DRFLParams, grid DRFLGrid, k int, seed uint64, set *sd.Settings) (*DRFLCV, error) {
	cands := grid.candidates(base)
	out := &DRFLCV{Candidates: cands, Best: base}
	if len(cands) == 1 {
		out.Scores = []float64{0}
		out.Best = cands[0]
		return out, nil
	}
	folds, err := DRFLFolds(train, k, seed, base.loss() == pd.LossHuber)
	if err != nil {
		return nil, err
	}
	metric := base.Metric()
	// The folds' training clients and validation rows, once.
	fits := make([][]pd.Client, k)
	vxs, vys := make([][][]float64, k), make([][]float64, k)
	for f := range k {
		fits[f] = make([]pd.Client, len(train))
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
	workers := 1
	if set != nil && set.Workers > 1 {
		workers = set.Workers
	}
	for _, p := range cands {
		if err := p.Validate(); err != nil {
			return nil, err
		}
	}
	// scores[c][f], central[c][f]: candidate c on fold f, each fit into its
	// own slot; a candidate's score is summed in fold order, so it does
	// not depend on the workers.
	scores, central := make([][]float64, len(cands)), make([][]bool, len(cands))
	for c := range cands {
		scores[c], central[c] = make([]float64, k), make([]bool, k)
	}
	lps := make([]pd.CentralLP, k) // one ordering per fold
	for f := range lps {
		lps[f].Eps = drflCVLPEps
	}
	fitOne := func(ctx context.Context, c, f int, start *sd.State) (*sd.State, error) {
		v, isCentral, st, err := cvFit(ctx, fits[f], &lps[f], cands[c], start, set)
		if err != nil {
			return nil, fmt.Errorf("cross-validation %s fold %d: %w", cands[c].Model, f+1, err)
		}
		central[c][f], scores[c][f] = isCentral, metric.Eval(vxs[f], vys[f], v)
		return st, nil
	}
	if newDRFLSpec(fits[0], base).central() {
		// Central LPs are cold-started: every (candidate, fold) fit is
		// independent, so one pool keeps all workers busy.
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(workers)
		for c := range cands {
			for f := range k {
				g.Go(func() error {
					if err := gctx.Err(); err != nil {
						return err // canceled: do not build the remaining LPs
					}
					_, err := fitOne(gctx, c, f, nil)
					return err
				})
			}
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
	} else {
		// Algorithm 1 fits start from the previous candidate's state on the
		// same fold (neighbouring grid points: fewer rounds), so candidates
		// run one after another, their folds concurrently.
		prev := make([]*sd.State, k)
		for c := range cands {
			g, gctx := errgroup.WithContext(ctx)
			g.SetLimit(workers)
			for f := range k {
				g.Go(func() (err error) { prev[f], err = fitOne(gctx, c, f, prev[f]); return err })
			}
			if err := g.Wait(); err != nil {
				return nil, err
			}
		}
	}
	var best float64
	for c, p := range cands {
		var score float64
		for f := range k {
			score += scores[c][f] / float64(k)
			out.Fits++
			if central[c][f] {
				out.Central++
			}
		}
		out.Scores = append(out.Scores, score)
		if len(out.Scores) == 1 || metric.Better(score, best) {
			best, out.Best = score, p
		}
	}
	return out, nil
}
