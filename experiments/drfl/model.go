package drfl

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems/wdro"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// DRFL models (issue 10): the paper's model and its four comparisons.
const (
	ModelDRFL     = "drfl"     // Wasserstein ball per client, Q of radius θ
	ModelAFL      = "afl"      // ρ_s = 0: loss epigraph, Q of radius θ, eqs. (17)-(19)
	ModelDRFA     = "drfa"     // AFL with θ = 2 (Q = Δ_S), eqs. (20)-(22)
	ModelWAFL     = "wafl"     // one ball of radius ρ around the pooled P̂, solved centrally
	ModelStandard = "standard" // ρ_s = 0, θ = 0, q̂ = 1/S: Cor. 6.2
)

// Models lists the model names in the figures' order.
func Models() []string {
	return []string{ModelDRFL, ModelDRFA, ModelAFL, ModelWAFL, ModelStandard}
}

// Split is one repetition's data: the clients' training rows (client 1
// with training noise) and the pooled test rows, features min-max scaled to
// [−1, 1] with the training rows' ranges, labels ±1 (classification) or the
// real target (regression: abalone's rings).
type Split struct {
	Regression bool
	Train      []wdro.Client
	TestX      [][]float64
	TestY      []float64
	// TestClient[i] is the client (0-based) test row i belongs to.
	TestClient []int
	Features   []string
}

// DataConfig describes how a repetition's split is drawn.
type DataConfig struct {
	// TrainShare is the training share (0.6), stratified by class.
	TrainShare float64 `json:"train_share"`
	// Clients is the number of clients S (3).
	Clients int `json:"clients"`
	// NoiseMean, NoiseSD: N(mean, sd²) added to client 1's training
	// features (heart, abalone: 0, 0.5; breast-cancer: 0.5, 0.5).
	NoiseMean float64 `json:"noise_mean"`
	NoiseSD   float64 `json:"noise_sd"`
	// Imbalance keeps a random Imbalance[s] share of client s's minority
	// class (nil: all); Figures 4-5 use 0.5, 0.5, 1.
	Imbalance []float64 `json:"imbalance,omitempty"`
}

// DefaultData returns the preset's split of a dataset, balanced.
func DefaultData(dataset string) DataConfig {
	return DefaultConfig().Data(dataset, false)
}

// NewSplit draws repetition seed's split of d (0/1 labels, or a real
// target for a regression dataset, and an intercept column, which is
// dropped). Classification splits are stratified by class; regression
// splits are uniform and cannot be imbalanced.
func NewSplit(d *datasets.Dataset, cfg DataConfig, seed uint64) (*Split, error) {
	if err := validateSplit(d, cfg); err != nil {
		return nil, err
	}
	S := cfg.Clients
	rng := rand.New(rand.NewPCG(seed, 0xd1f1))
	x, y, n := drflRows(d)
	train, test := splitRows(y, d.Regression, cfg.TrainShare, rng)
	scale := minMaxScaler(x, train, n)
	sp := &Split{Train: make([]wdro.Client, S), Features: d.FeatureNames[:n], Regression: d.Regression}
	for k, i := range train {
		s := k * S / len(train)
		sp.Train[s].X = append(sp.Train[s].X, scale(x[i]))
		sp.Train[s].Y = append(sp.Train[s].Y, y[i])
	}
	for k, i := range test {
		sp.TestX = append(sp.TestX, scale(x[i]))
		sp.TestY = append(sp.TestY, y[i])
		sp.TestClient = append(sp.TestClient, k*S/len(test))
	}
	// Class imbalance: clients keep a share of their minority class.
	for s, ratio := range cfg.Imbalance {
		if ratio != 1 {
			imbalance(&sp.Train[s], ratio, rng)
		}
	}
	if !d.Regression {
		if err := checkClasses(sp.Train, cfg.Imbalance); err != nil {
			return nil, err
		}
	}
	// Client 1's training noise.
	for _, r := range sp.Train[0].X {
		for j := range r {
			r[j] += cfg.NoiseMean + cfg.NoiseSD*rng.NormFloat64()
		}
	}
	return sp, nil
}

// validateSplit checks the keys of cfg that the split uses, before any
// random draw, so that a bad preset fails whatever the data.
func validateSplit(d *datasets.Dataset, cfg DataConfig) error {
	if d.Regression && cfg.Imbalance != nil {
		return &experiments.ConfigError{Field: "imbalance", Value: cfg.Imbalance, Reason: "class imbalance needs a classification dataset, " + d.Name + " is a regression one"}
	}
	if !(cfg.TrainShare > 0 && cfg.TrainShare < 1) {
		return &experiments.ConfigError{Field: "train_share", Value: cfg.TrainShare, Reason: "want in (0, 1)"}
	}
	S := cfg.Clients
	if S < 1 {
		return &experiments.ConfigError{Field: "clients", Value: S, Reason: "want ≥ 1"}
	}
	if cfg.Imbalance != nil && len(cfg.Imbalance) != S {
		return &experiments.ConfigError{Field: "imbalance", Value: cfg.Imbalance, Reason: fmt.Sprintf("want %d ratios, one per client", S)}
	}
	for s, r := range cfg.Imbalance {
		if !(r > 0 && r <= 1) {
			return &experiments.ConfigError{Field: "imbalance", Value: r, Reason: fmt.Sprintf("ratio of client %d outside (0, 1]", s+1)}
		}
	}
	return nil
}

// drflRows copies d's rows without the intercept column (n features
// left), labels as ±1, the hinge loss's classes, or the regression target
// as is.
func drflRows(d *datasets.Dataset) (x [][]float64, y []float64, n int) {
	rows, cols := d.X.Dims()
	n = cols - 1 // drop the intercept
	x = make([][]float64, rows)
	y = make([]float64, rows)
	for i := range rows {
		x[i] = slices.Clone(d.X.RawRowView(i)[:n])
		y[i] = 2*d.Y[i] - 1
		if d.Regression {
			y[i] = d.Y[i]
		}
	}
	return x, y, n
}

// splitRows draws the training and test rows, share of each class
// (stratified, for classification: both parts keep the class balance) or of
// all rows (regression), each part shuffled so that dealing it out in
// order gives each client a random share.
func splitRows(y []float64, regression bool, share float64, rng *rand.Rand) (train, test []int) {
	strata := [][]float64{{-1}, {1}}
	if regression {
		strata = [][]float64{nil}
	}
	for _, cls := range strata {
		var idx []int
		for i := range y {
			if cls == nil || y[i] == cls[0] {
				idx = append(idx, i)
			}
		}
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		k := int(math.Round(share * float64(len(idx))))
		train, test = append(train, idx[:k]...), append(test, idx[k:]...)
	}
	rng.Shuffle(len(train), func(a, b int) { train[a], train[b] = train[b], train[a] })
	rng.Shuffle(len(test), func(a, b int) { test[a], test[b] = test[b], test[a] })
	return train, test
}

// minMaxScaler maps each of the n features to [−1, 1] by its range on the
// training rows only (the test rows must not inform the model); a
// constant feature maps to 0.
func minMaxScaler(x [][]float64, train []int, n int) func(r []float64) []float64 {
	lo, hi := make([]float64, n), make([]float64, n)
	for j := range n {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
		for _, i := range train {
			lo[j], hi[j] = math.Min(lo[j], x[i][j]), math.Max(hi[j], x[i][j])
		}
	}
	return func(r []float64) []float64 {
		o := make([]float64, n)
		for j := range n {
			if hi[j] > lo[j] {
				o[j] = 2*(r[j]-lo[j])/(hi[j]-lo[j]) - 1
			}
		}
		return o
	}
}

// imbalance keeps a share ratio of c's minority class (+1 on a tie),
// drawn from rng, and every row of the other class, in their order.
func imbalance(c *wdro.Client, ratio float64, rng *rand.Rand) {
	var pos int
	for _, v := range c.Y {
		if v > 0 {
			pos++
		}
	}
	minority := 1.0
	if 2*pos > len(c.Y) {
		minority = -1
	}
	var idx []int
	for i, v := range c.Y {
		if v == minority {
			idx = append(idx, i)
		}
	}
	rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
	drop := map[int]bool{}
	for _, i := range idx[int(math.Round(ratio*float64(len(idx)))):] {
		drop[i] = true
	}
	var nx [][]float64
	var ny []float64
	for i := range c.Y {
		if !drop[i] {
			nx, ny = append(nx, c.X[i]), append(ny, c.Y[i])
		}
	}
	c.X, c.Y = nx, ny
}

// checkClasses fails a classification split in which a client lacks a
// class: its local hinge loss would have nothing to separate.
func checkClasses(train []wdro.Client, ratios []float64) error {
	for s, c := range train {
		for _, cls := range []float64{-1, 1} {
			if !slices.Contains(c.Y, cls) {
				return &experiments.ConfigError{Field: "imbalance", Value: ratios,
					Reason: fmt.Sprintf("client %d has no rows of class %+g", s+1, cls)}
			}
		}
	}
	return nil
}

// NoisyTest returns the test features with fresh N(mean, sd²) noise from
// rng (shared by all models of a repetition when given the same stream).
func (sp *Split) NoisyTest(mean, sd float64, rng *rand.Rand) [][]float64 {
	out := make([][]float64, len(sp.TestX))
	for i, r := range sp.TestX {
		out[i] = make([]float64, len(r))
		for j, v := range r {
			out[i][j] = v + mean + sd*rng.NormFloat64()
		}
	}
	return out
}

// Params are one model's hyperparameters, as configured: a model
// ignores what it fixes (newDRFLSpec), so result files record the inputs,
// not the values used: AFL ignores ρ and κ, DRFA also θ, p and q̂ (θ = 2,
// p = 1, Q = Δ_S), standard FL everything but the loss (θ = 0, q̂ = 1/S),
// WAFL θ and q̂.
type Params struct {
	Model string  `json:"model"`
	Rho   float64 `json:"rho"`
	// Rhos, if set, gives each client its own ρ_s (drfl only; length S).
	Rhos    []float64    `json:"rhos,omitempty"`
	Kappa   float64      `json:"kappa"`
	Theta   float64      `json:"theta"`
	P       float64      `json:"-"`              // see PName
	PName   string       `json:"p"`              // "1", "2" or "inf" (JSON has no +Inf), set by Run
	QHat    []float64    `json:"qhat,omitempty"` // nil: N_s/N
	Support wdro.Support `json:"-"`              // see SupportName
	// SupportName is "box" or "free", set by Run.
	SupportName string `json:"support,omitempty"`
	// Loss is "hinge" (the SVM; "" means hinge) or "huber" (regression,
	// threshold Epsilon, 0 meaning 1.35).
	Loss    string  `json:"loss,omitempty"`
	Epsilon float64 `json:"epsilon,omitempty"`
}

// Spell sets PName and SupportName, the JSON forms of P and Support.
func (p *Params) Spell() {
	p.PName, p.SupportName = normName(p.P), p.Support.String()
}

// loss returns the problems/wdro loss of p: Huber's, or else the hinge
// loss (hinge, svm or empty: Validate refuses any other name).
func (p Params) loss() wdro.Loss {
	if p.Loss == wdro.LossHuber.String() {
		return wdro.LossHuber
	}
	return wdro.LossHinge
}

func (p Params) lossName() string {
	if p.Loss == "" {
		return "hinge"
	}
	return p.Loss
}

// Metric returns the test metric of p's loss: accuracy for the hinge loss,
// MSE for Huber regression.
func (p Params) Metric() Metric {
	if p.loss() == wdro.LossHuber {
		return Metric{Name: "mse", LowerIsBetter: true}
	}
	return Metric{Name: "accuracy"}
}

// Metric is a test metric of the DRFL experiments.
type Metric struct {
	Name          string
	LowerIsBetter bool
}

// Eval returns the metric of v = (w, b) on the rows (x, y).
func (m Metric) Eval(x [][]float64, y, v []float64) float64 {
	if m.LowerIsBetter {
		return wdro.MSE(x, y, v)
	}
	return wdro.Accuracy(x, y, v)
}

// Better reports whether score a is strictly better than b; NaN (a
// diverged fit, a client without test rows) is worse than any number.
func (m Metric) Better(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return !math.IsNaN(a) && math.IsNaN(b)
	}
	if m.LowerIsBetter {
		return a < b
	}
	return a > b
}

// Worst returns the worse of a and b.
func (m Metric) Worst(a, b float64) float64 {
	if m.Better(a, b) {
		return b
	}
	return a
}

// Validate checks the parameters the model uses.
func (p Params) Validate() error {
	if !slices.Contains(Models(), p.Model) {
		return &experiments.ConfigError{Field: "model", Value: p.Model, Reason: "want one of drfl, afl, drfa, wafl, standard"}
	}
	if !(p.P == 1 || p.P == 2 || math.IsInf(p.P, 1)) {
		return &experiments.ConfigError{Field: "p", Value: p.P, Reason: "want 1, 2 or inf"}
	}
	if !(p.Theta >= 0) || math.IsInf(p.Theta, 1) {
		return &experiments.ConfigError{Field: "theta", Value: p.Theta, Reason: "want a finite value ≥ 0"}
	}
	if _, err := wdro.ParseLoss(p.lossName()); err != nil {
		return &experiments.ConfigError{Field: "loss", Value: p.Loss, Reason: "want hinge or huber"}
	}
	if !(p.Epsilon >= 0) || math.IsInf(p.Epsilon, 1) {
		return &experiments.ConfigError{Field: "epsilon", Value: p.Epsilon, Reason: "want > 0 (0: 1.35)"}
	}
	if (p.Model == ModelDRFL || p.Model == ModelWAFL) && (!(p.Kappa > 0) || math.IsInf(p.Kappa, 1)) {
		return &experiments.ConfigError{Field: "kappa", Value: p.Kappa, Reason: "want a finite value > 0"}
	}
	if !(p.Rho >= 0) || math.IsInf(p.Rho, 1) {
		return &experiments.ConfigError{Field: "rho", Value: p.Rho, Reason: "want a finite value ≥ 0"}
	}
	for s, r := range p.Rhos {
		if !(r >= 0) || math.IsInf(r, 1) {
			return &experiments.ConfigError{Field: "rho", Value: p.Rhos, Reason: fmt.Sprintf("ρ of client %d is %v, want a finite value ≥ 0", s+1, r)}
		}
	}
	return nil
}

// Spec is model p on the clients in problems/wdro terms: the clients
// (with their radii; WAFL's pooled into one), the model, θ, the norm p and
// q̂ (nil: N_s/N).
type Spec struct {
	Clients     []wdro.Client
	Model       wdro.Model
	Theta, Norm float64
	Qhat        []float64
}

// NewSpec is model p on clients (copied; WAFL pools them into one).
func NewSpec(clients []wdro.Client, p Params) Spec {
	cl := make([]wdro.Client, len(clients))
	copy(cl, clients)
	loss, eps := p.loss(), p.Epsilon
	sp := Spec{Clients: cl, Model: wdro.Model{Loss: loss, Epsilon: eps, Support: p.Support, Kappa: p.Kappa},
		Theta: p.Theta, Norm: p.P, Qhat: p.QHat}
	epigraph := wdro.Model{Loss: loss, Epsilon: eps, Epigraph: true}
	switch p.Model {
	case ModelDRFL:
		for s := range cl {
			cl[s].Rho = p.Rho
			if p.Rhos != nil {
				cl[s].Rho = p.Rhos[s]
			}
		}
	case ModelAFL:
		sp.Model = epigraph
	case ModelDRFA:
		sp.Model = epigraph
		sp.Theta, sp.Norm, sp.Qhat = 2, 1, nil
	case ModelStandard:
		sp.Model = epigraph
		sp.Theta = 0
		sp.Qhat = make([]float64, len(cl))
		for s := range cl {
			sp.Qhat[s] = 1 / float64(len(cl))
		}
	case ModelWAFL:
		var pooled wdro.Client
		for _, c := range cl {
			pooled.X = append(pooled.X, c.X...)
			pooled.Y = append(pooled.Y, c.Y...)
		}
		pooled.Rho = p.Rho
		sp.Clients = []wdro.Client{pooled}
		sp.Theta, sp.Qhat = 0, nil
	}
	return sp
}

// central reports whether (4) is an LP for this spec (hinge loss, p ∈
// {1, ∞}), so that wdro.Central can solve it.
func (sp Spec) central() bool {
	return sp.Model.Loss == wdro.LossHinge && (sp.Norm == 1 || math.IsInf(sp.Norm, 1))
}

// Problem returns the solver problem of model p on the clients.
func Problem(clients []wdro.Client, p Params) (*adlpmm.Problem, error) {
	sp := NewSpec(clients, p)
	fed, n, err := wdro.Federate(sp.Clients, sp.Model, nil)
	if err != nil {
		return nil, err
	}
	return &adlpmm.Problem{Clients: fed, Features: n, P: sp.Norm, Theta: sp.Theta, QHat: sp.Qhat}, nil
}

// RunResult is the outcome of one model on one split.
type RunResult struct {
	Params    Params    `json:"params"`
	Status    string    `json:"status"`
	Rounds    int       `json:"rounds"`
	Objective float64   `json:"objective"`
	WorstCase float64   `json:"worst_case"`
	QStar     []float64 `json:"q_star"`
	V         []float64 `json:"w_b"`
	// Metric names the scores: "accuracy" (hinge) or "mse" (Huber).
	Metric string `json:"metric"`
	// Train and Test are pooled; ClientTest per client, WorstClient the
	// worst of them (lowest accuracy, highest MSE).
	Train         float64   `json:"train_score"`
	Test          float64   `json:"test_score"`
	ClientTest    []float64 `json:"client_test_score"`
	WorstClient   float64   `json:"worst_client_test_score"`
	BytesPerRound int64     `json:"bytes_per_round"`
	// BytesReport (λ_s and f_s at the end) is 0, and missing from
	// BytesTotal, in runs stored before fedcon counted it; so is
	// InnerCapHits, which only the Huber client can have.
	BytesReport int64 `json:"bytes_report"`
	BytesTotal  int64 `json:"bytes_total"`
	// QPIterations counts the clients' inner iterations: QP iterations
	// (hinge) or proximal-gradient iterations (Huber).
	QPIterations int `json:"inner_iterations"`
	// InnerCapHits counts client solves stopped by an iteration cap.
	InnerCapHits int     `json:"inner_cap_hits"`
	Seconds      float64 `json:"seconds"`
}

// CheckLoss rejects a loss that does not fit the split's labels.
func (sp *Split) CheckLoss(p Params) error {
	if sp.Regression != (p.loss() == wdro.LossHuber) {
		kind := map[bool]string{true: "regression", false: "classification"}[sp.Regression]
		return &experiments.ConfigError{Field: "loss", Value: p.lossName(),
			Reason: fmt.Sprintf("the dataset is a %s one: use huber for regression, hinge for classification", kind)}
	}
	return nil
}

// Run solves model p on split sp and scores it on testX (the split's
// test rows, possibly noisy).
func Run(ctx context.Context, sp *Split, p Params, testX [][]float64, set *adlpmm.Settings) (*RunResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := sp.CheckLoss(p); err != nil {
		return nil, err
	}
	if p.Rhos != nil && len(p.Rhos) != len(sp.Train) {
		return nil, &experiments.ConfigError{Field: "rho", Value: p.Rhos, Reason: fmt.Sprintf("%d radii for %d clients", len(p.Rhos), len(sp.Train))}
	}
	p.Spell()
	prob, err := Problem(sp.Train, p)
	if err != nil {
		return nil, err
	}
	res, err := adlpmm.Solve(ctx, prob, set)
	if res == nil {
		return nil, err
	}
	m := p.Metric()
	out := &RunResult{Params: p, Status: res.Status.String(), Rounds: res.Rounds, Objective: res.Objective,
		WorstCase: res.WorstCase, QStar: res.QStar, V: res.V, BytesPerRound: res.BytesPerRound,
		BytesReport: res.BytesReport, BytesTotal: res.BytesTotal, InnerCapHits: res.InnerCapHits, QPIterations: res.QPIterations, Seconds: res.Runtime.Seconds(), Metric: m.Name}
	var tx [][]float64
	var ty []float64
	for _, c := range sp.Train {
		tx, ty = append(tx, c.X...), append(ty, c.Y...)
	}
	out.Train = m.Eval(tx, ty, res.V)
	out.Test, out.ClientTest, out.WorstClient = sp.score(m, testX, res.V)
	return out, err
}

// score returns metric m of v on testX: pooled, per client, and the worst
// client's.
func (sp *Split) score(m Metric, testX [][]float64, v []float64) (pooled float64, clients []float64, worst float64) {
	pooled = m.Eval(testX, sp.TestY, v)
	for s := range sp.Train {
		var cx [][]float64
		var cy []float64
		for i, k := range sp.TestClient {
			if k == s {
				cx, cy = append(cx, testX[i]), append(cy, sp.TestY[i])
			}
		}
		a := m.Eval(cx, cy, v)
		clients = append(clients, a)
		if s == 0 {
			worst = a
		}
		worst = m.Worst(worst, a)
	}
	return pooled, clients, worst
}

// Converged reports whether Algorithm 1 met its tolerance.
func (r *RunResult) Converged() bool { return r.Status == adlpmm.Converged.String() }

// StatusFlags is Status with the inner cap hits, if any: "Converged
// (2 inner caps)".
func (r *RunResult) StatusFlags() string {
	if r.InnerCapHits > 0 {
		return fmt.Sprintf("%s (%d inner caps)", r.Status, r.InnerCapHits)
	}
	return r.Status
}

// normName spells p for JSON: "1", "2" or "inf".
func normName(p float64) string {
	if math.IsInf(p, 1) {
		return "inf"
	}
	return strconv.FormatFloat(p, 'g', -1, 64)
}
