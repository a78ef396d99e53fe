package drfl

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems/wdro"
)

// The gate's recomputation of a DRFL noise figure (Figures 2-5) at each
// fit's stored weights v = (w, b): the split and the noisy test sets are
// drawn again from the configuration and the data set (the runs' own data
// preparation), and the model's worst-case objective max_{q∈Q} Σ q_s f_s(v)
// and every plotted score are recomputed by the plain loops below, which
// share no code with problems/wdro or solver/adlpmm.

// drflAgree bounds the relative disagreement of a recomputed worst-case
// objective with the stored one. The hinge f_s is the minimum over λ of a
// convex piecewise-linear function, found by the runs with golden-section
// steps to 1e-14·(1 + λ) and here by a ternary search to the last bits:
// each is within its slope (<= ρ + κ + ||w||₁ + 1) times its last interval
// of the minimum; the Huber f_s is a closed form (sums of N < 3000 rows:
// < 1e-12). The quick Figures 2-5 agree to 1e-16; an edited weight moves
// the objective by orders more than 1e-9.
const drflAgree = 1e-9

// drflScoreAgree bounds a recomputed score's disagreement: accuracy is k/N,
// so a single flipped prediction moves it by 1/N > 1e-4; MSE sums squares
// in row order as the runs do (a few ulps).
const drflScoreAgree = 1e-12

// sameScore reports whether a stored score agrees with its recomputation
// (within drflScoreAgree, or both NaN: a client without test rows).
func sameScore(got, want float64) bool {
	return math.Abs(got-want) <= drflScoreAgree*(1+math.Abs(want)) || (math.IsNaN(got) && math.IsNaN(want))
}

// plainMargin is ⟨w, x⟩ + b with v = (w, b), in index order.
func plainMargin(v, x []float64) float64 {
	n := len(x)
	m := v[n]
	for j := range n {
		m += v[j] * x[j]
	}
	return m
}

// plainScore is the metric of v on rows (x, y): accuracy (a margin within
// wdro.MarginTol·(1 + ||x||₁) of 0 predicts +1, the runs' definition) or the
// mean squared error. NaN without rows.
func plainScore(mse bool, x [][]float64, y, v []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for i, r := range x {
		m := plainMargin(v, r)
		if mse {
			e := m - y[i]
			s += e * e
			continue
		}
		var l1 float64
		for _, xj := range r {
			l1 += math.Abs(xj)
		}
		pred := 1.0
		if m < 0 && -m > wdro.MarginTol*(1+l1) {
			pred = -1
		}
		if pred == y[i] {
			s++
		}
	}
	return s / float64(len(x))
}

// plainHuber is H_ε(t): t²/2 for |t| <= ε, ε(|t| − ε/2) beyond.
func plainHuber(t, eps float64) float64 {
	if a := math.Abs(t); a > eps {
		return eps * (a - eps/2)
	}
	return t * t / 2
}

// coordSup is sup_{x ∈ X} a(x − x̂) − λ|x − x̂| for one coordinate, X =
// [−1, 1] (box) or R (free): concave and piecewise linear in x, so on the
// box its supremum is at x̂ clipped or at an end; on R it is 0 when
// |a| <= λ and +∞ otherwise.
func coordSup(a, lam, xh float64, free bool) float64 {
	if free {
		if math.Abs(a) <= lam {
			return 0
		}
		return math.Inf(1)
	}
	best := math.Inf(-1)
	for _, x := range []float64{math.Max(-1, math.Min(1, xh)), -1, 1} {
		best = math.Max(best, a*(x-xh)-lam*math.Abs(x-xh))
	}
	return best
}

// hingeDual is ρλ + (1/N)Σ_i max(0, keep_i, flip_i − κλ): the dual of
// client c's worst-case hinge loss at λ (Prop. 6.3, inner suprema in
// closed form), keep and flip the suprema of 1 − y(⟨w, x⟩ + b) − λ||x − x̂||₁
// for y = ŷ_i and y = −ŷ_i.
func hingeDual(c wdro.Client, kappa float64, free bool, v []float64, lam float64) float64 {
	n := len(v) - 1
	var s float64
	for i, x := range c.X {
		m := plainMargin(v, x)
		keep, flip := 1-c.Y[i]*m, 1+c.Y[i]*m-kappa*lam
		for j := range n {
			keep += coordSup(-c.Y[i]*v[j], lam, x[j], free)
			flip += coordSup(c.Y[i]*v[j], lam, x[j], free)
		}
		s += math.Max(0, math.Max(keep, flip))
	}
	return c.Rho*lam + s/float64(len(c.X))
}

// worstHinge is client c's worst-case hinge loss: the least value of the
// convex hingeDual over λ >= λ_min (0 on the box; ||w||_∞ on R, below which
// it is +∞), by ternary search on [λ_min, h] with h doubled until the
// function rises from h to 2h.
func worstHinge(c wdro.Client, kappa float64, free bool, v []float64) float64 {
	f := func(l float64) float64 { return hingeDual(c, kappa, free, v, l) }
	lo := 0.0
	if free {
		for _, wj := range v[:len(v)-1] {
			lo = math.Max(lo, math.Abs(wj))
		}
	}
	hi := lo + 1
	for range 200 {
		if f(2*hi) >= f(hi) {
			break
		}
		hi *= 2
	}
	hi *= 2
	best := math.Min(f(lo), f(hi))
	for range 300 {
		m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
		if m1 <= lo || m2 >= hi {
			break
		}
		f1, f2 := f(m1), f(m2)
		best = math.Min(best, math.Min(f1, f2))
		if f1 <= f2 {
			hi = m2
		} else {
			lo = m1
		}
	}
	return math.Min(best, f(lo+(hi-lo)/2))
}

// clientLoss is f_s(v) of spec client c under model m: the empirical loss
// for the epigraph models (AFL, DRFA, standard FL); for DRFL and WAFL the
// worst case over the client's Wasserstein ball: Huber ρε·max(||w||_∞,
// 1/κ) plus the empirical loss (Cor. B.1), hinge worstHinge.
func clientLoss(c wdro.Client, m wdro.Model, v []float64) float64 {
	n := len(v) - 1
	if m.Loss == wdro.LossHuber {
		eps := m.Epsilon
		if eps == 0 {
			eps = wdro.DefaultHuberEpsilon
		}
		var s float64
		for i, x := range c.X {
			s += plainHuber(plainMargin(v, x)-c.Y[i], eps)
		}
		emp := s / float64(len(c.X))
		if m.Epigraph {
			return emp
		}
		lip := 1 / m.Kappa
		for _, wj := range v[:n] {
			lip = math.Max(lip, math.Abs(wj))
		}
		return c.Rho*eps*lip + emp
	}
	if m.Epigraph {
		var s float64
		for i, x := range c.X {
			s += math.Max(0, 1-c.Y[i]*plainMargin(v, x))
		}
		return s / float64(len(c.X))
	}
	return worstHinge(c, m.Kappa, m.Support == wdro.Free, v)
}

// worstOverQ is max Σ q_s f_s over Q = {q ∈ Δ_S : ||q − q̂||_p <= θ}:
// p = ∞ fills the box [max(0, q̂ − θ), q̂ + θ] with the mass left above
// its lower ends, largest f first; p = 1 moves min(θ/2, 1 − q̂_top) of mass
// to the largest f from the smallest; p = 2 takes the best of the KKT
// points: each vertex of Δ_S inside the ball, and for each set Z of zero
// coordinates the maximiser over the ball's sphere in that face, when it
// lies in Δ_S.
func worstOverQ(f, qhat []float64, theta, p float64) float64 {
	S := len(f)
	dot := func(q []float64) float64 {
		var s float64
		for k := range q {
			s += q[k] * f[k]
		}
		return s
	}
	if theta == 0 || S == 1 {
		return dot(qhat)
	}
	byF := make([]int, S) // largest f first
	for k := range byF {
		byF[k] = k
	}
	slices.SortStableFunc(byF, func(a, b int) int {
		switch {
		case f[a] > f[b]:
			return -1
		case f[a] < f[b]:
			return 1
		}
		return 0
	})
	q := slices.Clone(qhat)
	switch {
	case math.IsInf(p, 1):
		left := 1.0
		for k := range q {
			q[k] = math.Max(0, qhat[k]-theta)
			left -= q[k]
		}
		for _, k := range byF {
			add := math.Min(math.Min(1, qhat[k]+theta)-q[k], left)
			q[k] += add
			left -= add
		}
		return dot(q)
	case p == 1:
		top := byF[0]
		move := math.Min(theta/2, 1-q[top])
		for i := S - 1; i > 0 && move > 0; i-- {
			k := byF[i]
			take := math.Min(move, q[k])
			q[k] -= take
			q[top] += take
			move -= take
		}
		return dot(q)
	}
	best := math.Inf(-1)
	for k := range S { // vertices inside the ball
		var d2 float64
		for j := range S {
			e := qhat[j]
			if j == k {
				e = 1 - qhat[j]
			}
			d2 += e * e
		}
		if d2 <= theta*theta {
			best = math.Max(best, f[k])
		}
	}
	for zero := 0; zero < 1<<S-1; zero++ { // Z = the set bits; some coordinate stays free
		var free []int
		var gap, r2 float64 // mass to place, radius² left for the free coordinates
		r2 = theta * theta
		for k := range S {
			if zero&(1<<k) != 0 {
				gap += qhat[k]
				r2 -= qhat[k] * qhat[k]
			} else {
				free = append(free, k)
			}
		}
		kf := float64(len(free))
		var mean float64
		for _, k := range free {
			mean += f[k]
		}
		mean /= kf
		var dn float64 // ||f_F − mean||₂
		for _, k := range free {
			dn += (f[k] - mean) * (f[k] - mean)
		}
		dn = math.Sqrt(dn)
		t2 := r2 - gap*gap/kf
		if t2 < 0 {
			continue
		}
		t := math.Sqrt(t2)
		ok := true
		for k := range q {
			q[k] = 0
		}
		for _, k := range free {
			q[k] = qhat[k] + gap/kf
			if dn > 0 {
				q[k] += t * (f[k] - mean) / dn
			}
			ok = ok && q[k] >= -1e-15
		}
		if ok {
			best = math.Max(best, dot(q))
		}
	}
	return best
}

// parseP reads a Params.PName.
func parseP(s string) (float64, error) {
	if s == "inf" {
		return math.Inf(1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// drflNoiseFile is what the gate reads of a noise figure's result file:
// Figure 2 holds rows (one per data set), Figures 3-5 one.
type drflNoiseFile struct {
	Rows []*NoiseResult `json:"rows"`
	NoiseResult
}

// genericDRFL is the recomputation rows of a DRFL noise figure's result
// (drfl-figure2..5); other results: none.
func genericDRFL(in experiments.VerifyInput) []experiments.CheckRow {
	var f drflNoiseFile
	if json.Unmarshal(in.Result, &f) != nil {
		return nil
	}
	results := f.Rows
	if len(results) == 0 && len(f.Runs) > 0 {
		results = []*NoiseResult{&f.NoiseResult}
	}
	if len(results) == 0 || results[0].Config.Figure.Dataset == "" {
		return nil
	}
	var obj, score experiments.Verifier
	fits, scores := 0, 0
	for _, r := range results {
		f, s := recheckNoise(r, in.DataDirs, &obj, &score)
		fits, scores = fits+f, scores+s
	}
	return []experiments.CheckRow{
		obj.Row(in.Name, "objective recomputed", fmt.Sprintf("%d fits: the worst-case objective max_{q∈Q} Σ q_s f_s(w, b) recomputed at the stored weights on the split drawn again, agreeing within %g relative", fits, drflAgree)),
		score.Row(in.Name, "scores recomputed", fmt.Sprintf("%d scores (train, test, per client, worst client, every noise protocol and level) recomputed at the stored weights, agreeing within %g", scores, drflScoreAgree)),
	}
}

// recheckNoise recomputes one data set's noise figure into obj and score
// and returns how many fits and scores it compared.
func recheckNoise(r *NoiseResult, dirs []string, obj, score *experiments.Verifier) (fits, scores int) {
	cfg := r.Config
	name := cfg.Figure.Dataset
	d, err := datasets.Load(name, dirs)
	if err != nil {
		obj.Fail("%s: %v", name, err)
		score.Fail("%s: %v", name, err)
		return 0, 0
	}
	if len(r.Runs) != len(cfg.Params) {
		obj.Fail("%s: %d models' runs, the configuration has %d", name, len(r.Runs), len(cfg.Params))
		return 0, 0
	}
	same := func(what string, got, want float64) {
		scores++
		if !sameScore(got, want) {
			score.Fail("%s: %s %.12g, recomputed at the stored weights %.12g", name, what, got, want)
		}
	}
	for rep := range cfg.Repetitions {
		seed := cfg.Seed + uint64(rep)
		sp, err := NewSplit(d, cfg.Data, seed)
		if err != nil {
			obj.Fail("%s repetition %d: %v", name, rep+1, err)
			continue
		}
		tests := noisyTests(sp, cfg, seed)
		for m, runs := range r.Runs {
			if rep >= len(runs) {
				obj.Fail("%s: %d repetitions of %s, want %d", name, len(runs), cfg.Params[m].Model, cfg.Repetitions)
				continue
			}
			run := runs[rep]
			at := fmt.Sprintf("repetition %d %s", rep+1, run.Params.Model)
			mse, ok := recheckFit(name, at, sp, sp.TestX, run, obj, same)
			if !ok {
				continue
			}
			fits++
			for k := range tests {
				for l := range tests[k] {
					pooled, _, worst := plainScores(sp, mse, tests[k][l], run.V)
					lv := fmt.Sprintf("%s protocol %c level %g", at, 'A'+k, cfg.Levels[l])
					if m < len(r.Score) && k < len(r.Score[m]) && l < len(r.Score[m][k]) && rep < len(r.Score[m][k][l]) {
						same(lv+" score", r.Score[m][k][l][rep], pooled)
						same(lv+" worst client's score", r.WorstClient[m][k][l][rep], worst)
					} else {
						score.Fail("%s %s: no stored score", name, lv)
					}
				}
			}
		}
	}
	return fits, scores
}

// recheckFit recomputes one fit (at, of data set name) on split sp, scored
// on test rows testX, at its stored weights: its worst-case objective into obj, its train, test,
// per-client and worst client's scores through same. It returns whether
// the fit is scored by MSE, and false when its weights or parameters
// cannot be read (a failure recorded in obj).
func recheckFit(name, at string, sp *Split, testX [][]float64, run *RunResult, obj *experiments.Verifier, same func(what string, got, want float64)) (mse, ok bool) {
	if len(run.V) != len(sp.Features)+1 {
		obj.Fail("%s %s: %d weights for %d features and b", name, at, len(run.V), len(sp.Features))
		return false, false
	}
	p := run.Params
	var err error
	if p.P, err = parseP(p.PName); err != nil {
		obj.Fail("%s %s: p %q", name, at, p.PName)
		return false, false
	}
	if p.Support, err = wdro.ParseSupport(p.SupportName); err != nil {
		obj.Fail("%s %s: support %q", name, at, p.SupportName)
		return false, false
	}
	spec := NewSpec(sp.Train, p)
	fs := make([]float64, len(spec.Clients))
	for k, c := range spec.Clients {
		fs[k] = clientLoss(c, spec.Model, run.V)
	}
	qhat := spec.Qhat
	if qhat == nil {
		var all int
		for _, c := range spec.Clients {
			all += len(c.X)
		}
		for _, c := range spec.Clients {
			qhat = append(qhat, float64(len(c.X))/float64(all))
		}
	}
	if w := worstOverQ(fs, qhat, spec.Theta, spec.Norm); !(math.Abs(run.WorstCase-w) <= drflAgree*(1+math.Abs(w))) {
		obj.Fail("%s %s: worst-case objective %.12g, recomputed at the stored weights %.12g", name, at, run.WorstCase, w)
	}
	mse = p.Metric().LowerIsBetter
	var tx [][]float64
	var ty []float64
	for _, c := range sp.Train {
		tx, ty = append(tx, c.X...), append(ty, c.Y...)
	}
	same(at+" train score", run.Train, plainScore(mse, tx, ty, run.V))
	pooled, clients, worst := plainScores(sp, mse, testX, run.V)
	same(at+" test score", run.Test, pooled)
	same(at+" worst client's test score", run.WorstClient, worst)
	for s := range clients {
		if s < len(run.ClientTest) {
			same(fmt.Sprintf("%s client %d's test score", at, s+1), run.ClientTest[s], clients[s])
		}
	}
	return mse, true
}

// plainScores is the score of v on test rows x (labels sp.TestY): pooled,
// per client and the worst client's (lowest accuracy, highest MSE; NaN,
// a client without rows, is the worst).
func plainScores(sp *Split, mse bool, x [][]float64, v []float64) (pooled float64, clients []float64, worst float64) {
	pooled = plainScore(mse, x, sp.TestY, v)
	for s := range sp.Train {
		var cx [][]float64
		var cy []float64
		for i, k := range sp.TestClient {
			if k == s {
				cx, cy = append(cx, x[i]), append(cy, sp.TestY[i])
			}
		}
		a := plainScore(mse, cx, cy, v)
		clients = append(clients, a)
		switch {
		case s == 0, math.IsNaN(a):
			worst = a
		case math.IsNaN(worst):
		case mse && a > worst, !mse && a < worst:
			worst = a
		}
	}
	return pooled, clients, worst
}

func init() { experiments.RegisterGenericCheck(genericDRFL) }
