package ssca

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems/swishnet"
	"github.com/fedcon/fedcon/solver/stochastic"
)

// Step is one row of Section VI's step-size table: ρ_t = A1/t^Alpha,
// γ_t = A2/t^(Alpha+gamma_offset) for batch size Batch.
type Step struct {
	Batch int     `mapstructure:"batch" json:"batch"`
	A1    float64 `mapstructure:"a1" json:"a1"`
	A2    float64 `mapstructure:"a2" json:"a2"`
	Alpha float64 `mapstructure:"alpha" json:"alpha"`
}

// SGDRate is an SGD baseline's learning rate r_t = A/t^Beta.
type SGDRate struct {
	A    float64 `mapstructure:"a" json:"a" yaml:"a"`
	Beta float64 `mapstructure:"beta" json:"beta" yaml:"beta"`
}

// validate checks r as the SGD solvers do (and the tuning grid, SGDGrid).
func (r SGDRate) validate() error {
	switch {
	case !(r.A > 0) || math.IsInf(r.A, 0):
		return errors.New("a must be a finite number > 0")
	case !(r.Beta >= 0 && r.Beta <= 1):
		return errors.New("beta must be in [0, 1]")
	}
	return nil
}

// FedAvgRun is one FedAvg baseline: batch B, E local steps.
type FedAvgRun struct {
	Batch      int `mapstructure:"batch" json:"batch"`
	LocalSteps int `mapstructure:"local_steps" json:"local_steps"`
}

// Config configures the SSCA experiments (Figures 2-4); each field is a
// YAML key of configs/ssca/ssca.yaml.
type Config struct {
	Seed uint64 `mapstructure:"seed" json:"seed"`
	// Runs are the independent runs; run r uses seed Seed+r for everything
	// (shards, w^1, mini-batches) and every algorithm.
	Runs    int     `mapstructure:"runs" json:"runs"`
	Dataset string  `mapstructure:"dataset" json:"dataset"`
	Clients int     `mapstructure:"clients" json:"clients"` // I
	Hidden  int     `mapstructure:"hidden" json:"hidden"`   // J
	Rounds  int     `mapstructure:"rounds" json:"rounds"`   // T
	Tau     float64 `mapstructure:"tau" json:"tau"`
	C       float64 `mapstructure:"c" json:"c"`
	// Lambda is λ of (27); not given in the paper.
	Lambda float64 `mapstructure:"lambda" json:"lambda"`
	// U is the cost limit of (37) per data set; not given in the paper.
	U           map[string]float64 `mapstructure:"u" json:"u"`
	GammaOffset float64            `mapstructure:"gamma_offset" json:"gamma_offset"`
	// Labels: "all" (every feature-based client holds y, as the paper's
	// messages need) or "client0" (client 0 sends Q - y to the others).
	Labels       Labels `mapstructure:"labels" json:"labels"`
	SampleSteps  []Step `mapstructure:"sample_steps" json:"sample_steps"`
	FeatureSteps []Step `mapstructure:"feature_steps" json:"feature_steps"`
	// SampleBatches and FeatureBatches are Figures 2-3's SSCA batch sizes.
	SampleBatches  []int       `mapstructure:"sample_batches" json:"sample_batches"`
	FeatureBatches []int       `mapstructure:"feature_batches" json:"feature_batches"`
	FedAvg         []FedAvgRun `mapstructure:"fedavg" json:"fedavg"`
	FSGDBatches    []int       `mapstructure:"fsgd_batches" json:"fsgd_batches"`
	// Figure 4's sweeps and batch sizes.
	USweep       []float64 `mapstructure:"u_sweep" json:"u_sweep"`
	LambdaSweep  []float64 `mapstructure:"lambda_sweep" json:"lambda_sweep"`
	Fig4SampleB  int       `mapstructure:"figure4_sample_batch" json:"figure4_sample_batch"`
	Fig4FeatureB int       `mapstructure:"figure4_feature_batch" json:"figure4_feature_batch"`
	TargetCost   float64   `mapstructure:"target_cost" json:"target_cost"`
	EvalEvery    int       `mapstructure:"eval_every" json:"eval_every"`
	EvalSubset   int       `mapstructure:"eval_subset" json:"eval_subset"`
	// EvalPrecision is the first layer's arithmetic in the training cost
	// F(w^t): float64, or float32 (swishnet.Float32, within about 1e-7 of
	// it, in 0.6 of the CPU). The test accuracy is always float64.
	EvalPrecision Precision          `mapstructure:"eval_precision" json:"eval_precision"`
	SGDRates      map[string]SGDRate `mapstructure:"sgd_rates" json:"sgd_rates"`
	// QuickRun is set by Quick (not a YAML key).
	QuickRun bool `mapstructure:"-" json:"quick,omitempty"`
}

// QuickRuns are the runs of a --quick SSCA reproduction (1 for Figure 4).
const QuickRuns = 2

// Quick shrinks c to the smoke run: 2 runs, evaluation every 10 rounds on
// fixed 5000-image training and test subsets.
func (c *Config) Quick() {
	c.QuickRun = true
	c.Runs = QuickRuns
	c.EvalEvery = 10
	c.EvalSubset = 5000
}

// TrialHash is the hash stored with each trial: everything but the number
// of runs and the SGD rates (a baseline's rate is in its trial key).
func (c *Config) TrialHash() string { return experiments.TrialHash(c, "runs", "sgd_rates") }

// UValue is U for the configured data set.
func (c *Config) UValue() float64 { return c.U[c.Dataset] }

// Validate reports the first invalid value as a *ConfigError.
func (c *Config) Validate() error {
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return &experiments.ConfigError{Field: name, Value: v, Reason: "must be a finite number > 0"}
		}
		return nil
	}
	if !slices.Contains(datasets.IDXSetNames, c.Dataset) {
		return &experiments.ConfigError{Field: "dataset", Value: c.Dataset, Reason: fmt.Sprintf("must be one of %v", datasets.IDXSetNames)}
	}
	for _, p := range []struct {
		n string
		v float64
	}{{"tau", c.Tau}, {"c", c.C}} {
		if err := pos(p.n, p.v); err != nil {
			return err
		}
	}
	if err := pos("u."+c.Dataset, c.UValue()); err != nil {
		return err
	}
	switch {
	case c.Runs < 1:
		return &experiments.ConfigError{Field: "runs", Value: c.Runs, Reason: "must be >= 1"}
	case c.Clients < 1:
		return &experiments.ConfigError{Field: "clients", Value: c.Clients, Reason: "must be >= 1"}
	case c.Hidden < 1:
		return &experiments.ConfigError{Field: "hidden", Value: c.Hidden, Reason: "must be >= 1"}
	case c.Rounds < 2:
		return &experiments.ConfigError{Field: "rounds", Value: c.Rounds, Reason: "must be >= 2"}
	case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
		return &experiments.ConfigError{Field: "lambda", Value: c.Lambda, Reason: "must be a finite number >= 0"}
	case !(c.GammaOffset > 0) || math.IsInf(c.GammaOffset, 0):
		return &experiments.ConfigError{Field: "gamma_offset", Value: c.GammaOffset, Reason: "must be a finite number > 0 (γ_t/ρ_t → 0, condition (6))"}
	case c.Labels != "all" && c.Labels != "client0":
		return &experiments.ConfigError{Field: "labels", Value: c.Labels, Reason: "must be all or client0"}
	case c.EvalPrecision != "float32" && c.EvalPrecision != "float64":
		return &experiments.ConfigError{Field: "eval_precision", Value: c.EvalPrecision, Reason: "must be float32 or float64"}
	case c.EvalEvery < 0 || c.EvalSubset < 0:
		return &experiments.ConfigError{Field: "eval_every/eval_subset", Value: fmt.Sprint(c.EvalEvery, ", ", c.EvalSubset), Reason: "must be >= 0"}
	}
	for _, rows := range [][]Step{c.SampleSteps, c.FeatureSteps} {
		for _, r := range rows {
			switch {
			case !(r.Alpha > 0 && r.Alpha <= 1):
				return &experiments.ConfigError{Field: "alpha", Value: r.Alpha, Reason: fmt.Sprintf("must be in (0, 1] (batch %d)", r.Batch)}
			case !(r.A1 > 0 && r.A1 <= 1) || !(r.A2 > 0 && r.A2 <= 1):
				return &experiments.ConfigError{Field: "a1/a2", Value: fmt.Sprint(r.A1, ", ", r.A2), Reason: fmt.Sprintf("must be in (0, 1] (batch %d)", r.Batch)}
			}
		}
	}
	for _, v := range c.LambdaSweep {
		if !(v >= 0) || math.IsInf(v, 0) {
			return &experiments.ConfigError{Field: "lambda_sweep", Value: v, Reason: "must be a finite number >= 0"}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.SGDRates)) {
		if err := c.SGDRates[k].validate(); err != nil {
			r := c.SGDRates[k]
			return &experiments.ConfigError{Field: "sgd_rates." + k, Value: fmt.Sprintf("{a: %v, beta: %v}", r.A, r.Beta), Reason: err.Error()}
		}
	}
	for _, v := range c.USweep {
		if err := pos("u_sweep", v); err != nil {
			return err
		}
	}
	for _, s := range c.allSpecs() {
		if _, err := c.schedule(s); err != nil {
			return err
		}
	}
	return nil
}

// schedule returns the step sizes of spec s (SSCA) or an error naming the
// batch size without a row.
func (c *Config) schedule(s Spec) (stochastic.Schedule, error) {
	if !s.ssca() {
		if _, ok := c.SGDRates[s.rateKey()]; !ok && s.Rate == (SGDRate{}) {
			return stochastic.Schedule{}, &experiments.ConfigError{Field: "sgd_rates", Value: s.rateKey(), Reason: "no learning rate for this baseline: run 'fedcon tune ssca-sgd'"}
		}
		return stochastic.Schedule{}, nil
	}
	rows, key := c.SampleSteps, "sample_steps"
	if s.feature() {
		rows, key = c.FeatureSteps, "feature_steps"
	}
	for _, r := range rows {
		if r.Batch == s.Batch {
			return stochastic.Schedule{A1: r.A1, A2: r.A2, Alpha: r.Alpha, GammaOffset: c.GammaOffset}, nil
		}
	}
	return stochastic.Schedule{}, &experiments.ConfigError{Field: key, Value: s.Batch, Reason: "no step-size row for this batch size"}
}

// Spec is one curve: an algorithm at a batch size (and local steps,
// λ or U where they vary).
type Spec struct {
	Algo       string  `json:"algo"` // alg1..alg4, fedavg, fsgd
	Batch      int     `json:"batch"`
	LocalSteps int     `json:"local_steps,omitempty"`
	Lambda     float64 `json:"lambda,omitempty"`
	U          float64 `json:"u,omitempty"`
	// FinalOnly evaluates w^T only (Figure 4).
	FinalOnly bool `json:"final_only,omitempty"`
	// Rate is an SGD baseline's learning rate (from sgd_rates); part of the
	// key, so re-tuning recomputes only the baselines whose rate changed.
	Rate SGDRate `json:"rate,omitempty"`
}

// Algos are the algorithm names of `run ssca --algo`.
var Algos = []string{"alg1", "alg2", "alg3", "alg4", "fedavg", "fsgd"}

func (s Spec) ssca() bool        { return strings.HasPrefix(s.Algo, "alg") }
func (s Spec) feature() bool     { return s.Algo == "alg3" || s.Algo == "alg4" || s.Algo == "fsgd" }
func (s Spec) constrained() bool { return s.Algo == "alg2" || s.Algo == "alg4" }

// rateKey names an SGD baseline in sgd_rates.
func (s Spec) rateKey() string {
	if s.Algo == "fedavg" {
		return fmt.Sprintf("fedavg-b%d-e%d", s.Batch, max(1, s.LocalSteps))
	}
	return fmt.Sprintf("fsgd-b%d", s.Batch)
}

// Key names the spec's trials in the store.
func (s Spec) Key() string {
	k := fmt.Sprintf("%s-b%d", s.Algo, s.Batch)
	if s.Algo == "fedavg" {
		k += fmt.Sprintf("-e%d", max(1, s.LocalSteps))
	}
	if s.constrained() {
		k += "-u" + strconv.FormatFloat(s.U, 'g', -1, 64)
	} else {
		k += "-l" + strconv.FormatFloat(s.Lambda, 'g', -1, 64)
	}
	if s.FinalOnly {
		k += "-final"
	}
	if !s.ssca() && s.Rate != (SGDRate{}) {
		k += "-a" + strconv.FormatFloat(s.Rate.A, 'g', -1, 64) + "-beta" + strconv.FormatFloat(s.Rate.Beta, 'g', -1, 64)
	}
	return k
}

// Label is the legend entry.
func (s Spec) Label() string {
	switch s.Algo {
	case "fedavg":
		return fmt.Sprintf("FedAvg B=%d E=%d", s.Batch, max(1, s.LocalSteps))
	case "fsgd":
		return fmt.Sprintf("feature SGD B=%d", s.Batch)
	}
	return fmt.Sprintf("Alg. %s B=%d", s.Algo[3:], s.Batch)
}

// withRates sets the SGD baselines' rates from sgd_rates.
func (c *Config) withRates(specs []Spec) []Spec {
	for i, s := range specs {
		if !s.ssca() {
			specs[i].Rate = c.SGDRates[s.rateKey()]
		}
	}
	return specs
}

// allSpecs are the curves of Figures 2-4.
func (c *Config) allSpecs() []Spec {
	var out []Spec
	for _, f := range []string{"figure2", "figure3", "figure4"} {
		out = append(out, c.FigureSpecs(f)...)
	}
	return out
}

// FigureSpecs are the curves of one figure.
func (c *Config) FigureSpecs(fig string) []Spec { return c.withRates(c.figureSpecs(fig)) }

func (c *Config) figureSpecs(fig string) []Spec {
	var out []Spec
	U := c.UValue()
	switch fig {
	case "figure2":
		for _, b := range c.SampleBatches {
			out = append(out, Spec{Algo: "alg1", Batch: b, Lambda: c.Lambda})
		}
		for _, f := range c.FedAvg {
			out = append(out, Spec{Algo: "fedavg", Batch: f.Batch, LocalSteps: f.LocalSteps, Lambda: c.Lambda})
		}
		for _, b := range c.SampleBatches {
			out = append(out, Spec{Algo: "alg2", Batch: b, U: U})
		}
	case "figure3":
		for _, b := range c.FeatureBatches {
			out = append(out, Spec{Algo: "alg3", Batch: b, Lambda: c.Lambda})
		}
		for _, b := range c.FSGDBatches {
			out = append(out, Spec{Algo: "fsgd", Batch: b, Lambda: c.Lambda})
		}
		for _, b := range c.FeatureBatches {
			out = append(out, Spec{Algo: "alg4", Batch: b, U: U})
		}
	case "figure4":
		for _, a := range []struct {
			algo string
			b    int
		}{{"alg2", c.Fig4SampleB}, {"alg4", c.Fig4FeatureB}} {
			for _, u := range c.USweep {
				out = append(out, Spec{Algo: a.algo, Batch: a.b, U: u, FinalOnly: true})
			}
		}
		for _, a := range []struct {
			algo string
			b    int
		}{{"alg1", c.Fig4SampleB}, {"alg3", c.Fig4FeatureB}} {
			for _, l := range c.LambdaSweep {
				out = append(out, Spec{Algo: a.algo, Batch: a.b, Lambda: l, FinalOnly: true})
			}
		}
	}
	return out
}

// CheckSpec validates one spec (`run ssca`): algorithm, sizes, step-size row.
func (c *Config) CheckSpec(s Spec) error {
	switch {
	case !slices.Contains(Algos, s.Algo):
		return &experiments.ConfigError{Field: "algo", Value: s.Algo, Reason: fmt.Sprintf("must be one of %v", Algos)}
	case s.Batch < 1:
		return &experiments.ConfigError{Field: "batch", Value: s.Batch, Reason: "must be >= 1"}
	case s.LocalSteps < 0:
		return &experiments.ConfigError{Field: "local_steps", Value: s.LocalSteps, Reason: "must be >= 1"}
	}
	_, err := c.schedule(s)
	return err
}

// Data is the loaded data set with the fixed evaluation subsets.
type Data struct {
	Set *datasets.IDXSet
	// EvalTrain and EvalTest are what costs and accuracies are computed on:
	// the full sets, or fixed subsets (eval_subset).
	EvalTrain, EvalTest *datasets.Images
}

// LoadData reads cfg's data set from dirs and picks the evaluation sets.
func LoadData(cfg *Config, dirs []string) (*Data, error) {
	set, err := datasets.LoadIDXSet(cfg.Dataset, dirs, 10)
	if err != nil {
		return nil, err
	}
	d := &Data{Set: set, EvalTrain: set.Train, EvalTest: set.Test}
	if n := cfg.EvalSubset; n > 0 {
		// Fixed subsets (independent of the runs): a permutation from stream 0xE5.
		rng := rand.New(rand.NewPCG(cfg.Seed, 0xE5))
		if n < set.Train.N {
			d.EvalTrain = set.Train.Subset(rng.Perm(set.Train.N)[:n])
		}
		if n < set.Test.N {
			d.EvalTest = set.Test.Subset(rng.Perm(set.Test.N)[:n])
		}
	}
	return d, nil
}

// Trial is one run of one spec: the curve points and the costs.
type Trial struct {
	Spec Spec   `json:"spec"`
	Run  int    `json:"run"`
	Seed uint64 `json:"seed"`
	// T are the evaluated iterations; TrainCost is F(w^t) (25) on the
	// (evaluation) training set, Objective F + λ‖w‖² (27), TestAcc the
	// test accuracy and Norm2 ‖w^t‖².
	T         []int            `json:"t"`
	TrainCost []float64        `json:"train_cost"`
	Objective []float64        `json:"objective"`
	TestAcc   []float64        `json:"test_acc"`
	Norm2     []float64        `json:"norm2"`
	Status    string           `json:"status"`
	Nu        float64          `json:"nu,omitempty"`
	Slack     float64          `json:"slack,omitempty"`
	Stats     stochastic.Stats `json:"stats"`
	// FinalW names the file of w^T, stored for run 0 of each curve
	// (WeightsRun) so that `fedcon check` recomputes the last point's cost
	// and accuracy; absent in other runs and in files of an older fedcon.
	FinalW *FinalWeights `json:"final_w,omitempty"`
	// W is w^T as the run returned it (not in the file: see FinalW).
	W []float64 `json:"-"`
}

// WeightsRun is the run of each curve whose final weights are stored: one
// per curve, 0.8 MB for the 784-128-10 network.
const WeightsRun = 0

// FinalWeights is the file of a run's w^T next to its trial file: the d
// weights as little-endian float64 (the training's precision, so that the
// recomputation starts from the very point the run evaluated), and their
// SHA-256.
type FinalWeights struct {
	File   string `json:"file"` // relative to the trial file's directory
	N      int    `json:"n"`
	SHA256 string `json:"sha256"`
}

// WeightsFile is the name of trial key's weights file of SHA-256 sum: the
// hash in the name keeps the weights of a trial file set aside (another
// configuration, experiments.SetAside) from being replaced.
func WeightsFile(key, sum string) string { return key + "-" + sum[:16] + ".w64" }

// writeWeights stores w as trial key's weights file in dir.
func writeWeights(dir, key string, w []float64) (*FinalWeights, error) {
	b := make([]byte, 8*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	h := sha256.Sum256(b)
	sum := hex.EncodeToString(h[:])
	name := WeightsFile(key, sum)
	if err := experiments.WriteAtomic(filepath.Join(dir, name), b); err != nil {
		return nil, fmt.Errorf("ssca: final weights: %w", err)
	}
	return &FinalWeights{File: name, N: len(w), SHA256: sum}, nil
}

// ReadWeights reads the weights file fw names in dir, refusing a file
// whose size or SHA-256 differs from fw's.
func ReadWeights(dir string, fw *FinalWeights) ([]float64, error) {
	if fw.File != filepath.Base(fw.File) {
		return nil, fmt.Errorf("ssca: weights file %q is not in the trial's directory", fw.File)
	}
	b, err := os.ReadFile(filepath.Join(dir, fw.File))
	if err != nil {
		return nil, fmt.Errorf("ssca: final weights: %w", err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != fw.SHA256 {
		return nil, fmt.Errorf("ssca: %s: SHA-256 %x, the trial records %s", fw.File, sum, fw.SHA256)
	}
	if len(b) != 8*fw.N {
		return nil, fmt.Errorf("ssca: %s holds %d bytes, the trial records %d weights", fw.File, len(b), fw.N)
	}
	w := make([]float64, fw.N)
	for i := range w {
		w[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return w, nil
}

// Random streams of a run (seed Seed+r): w^1 and the sample shards.
const (
	streamInit  = 0x1417
	streamShard = 0x5AAD
)

// evalAt reports whether iteration t is evaluated.
func (c *Config) evalAt(s Spec) func(int) bool {
	return func(t int) bool {
		switch {
		case s.FinalOnly:
			return t == c.Rounds
		case c.EvalEvery > 0:
			return t == 1 || t%c.EvalEvery == 0 || t == c.Rounds
		default: // t ≤ 10, then every 5
			return t <= 10 || t%5 == 0 || t == c.Rounds
		}
	}
}

// RunTrial runs spec s with run index r.
func RunTrial(ctx context.Context, cfg *Config, data *Data, s Spec, r int) (Trial, error) {
	seed := cfg.Seed + uint64(r)
	tr := Trial{Spec: s, Run: r, Seed: seed}
	train := data.Set.Train
	net := swishnet.Net{K: train.K, J: cfg.Hidden, L: 10}
	w1 := make([]float64, net.Dim())
	net.Init(w1, rand.New(rand.NewPCG(seed, streamInit)))
	lambda := s.Lambda
	prec := swishnet.Float64
	if cfg.EvalPrecision == "float32" {
		prec = swishnet.Float32
	}
	rec := func(t int, w []float64) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		cost := net.EvaluateCost(w, data.EvalTrain, 1, prec)
		_, acc := net.Evaluate(w, data.EvalTest, 1)
		var n2 float64
		for _, v := range w {
			n2 += v * v
		}
		if math.IsNaN(cost) || math.IsInf(cost, 0) || math.IsInf(n2, 0) {
			return errDiverged // finite w, overflowing logits: a diverged run
		}
		tr.T = append(tr.T, t)
		tr.TrainCost = append(tr.TrainCost, cost)
		tr.Objective = append(tr.Objective, cost+lambda*n2)
		tr.TestAcc = append(tr.TestAcc, acc)
		tr.Norm2 = append(tr.Norm2, n2)
		return nil
	}
	sched, err := cfg.schedule(s)
	if err != nil {
		return tr, err
	}
	st := &stochastic.Settings{Rounds: cfg.Rounds, Batch: s.Batch, Tau: cfg.Tau, C: cfg.C, Schedule: sched, Seed: seed,
		Recorder: rec, Record: cfg.evalAt(s)}
	rate := s.Rate
	if rate == (SGDRate{}) {
		rate = cfg.SGDRates[s.rateKey()]
	}
	sgd := &stochastic.SGDSettings{Rounds: cfg.Rounds, Batch: s.Batch, LocalSteps: s.LocalSteps, LR: rate.A, Beta: rate.Beta,
		Lambda: lambda, Seed: seed, Recorder: rec, Record: cfg.evalAt(s)}
	prob := stochastic.Problem{Constrained: s.constrained(), Lambda: s.Lambda, U: s.U}
	var res *stochastic.Result
	if s.feature() {
		fp, err := featureProblem(cfg, net, train)
		if err != nil {
			return tr, err
		}
		if s.Batch > train.N {
			return tr, &experiments.ConfigError{Field: "batch", Value: s.Batch, Reason: fmt.Sprintf("larger than the %d samples", train.N)}
		}
		if s.Algo == "fsgd" {
			res, err = stochastic.FeatureSGD(ctx, fp, w1, sgd)
		} else {
			res, err = stochastic.SolveFeature(ctx, fp, w1, prob, st)
		}
		if res == nil {
			return tr, err
		}
		return tr, tr.fill(res, err)
	}
	clients, err := sampleClients(cfg, net, train, seed, s.Batch)
	if err != nil {
		return tr, err
	}
	if s.Algo == "fedavg" {
		res, err = stochastic.FedAvg(ctx, clients, w1, sgd)
	} else {
		res, err = stochastic.SolveSample(ctx, clients, w1, prob, st)
	}
	if res == nil {
		return tr, err
	}
	return tr, tr.fill(res, err)
}

// errDiverged stops a run whose cost is no longer finite.
var errDiverged = errors.New("diverged")

// statusDiverged is solver.Diverged as a trial file records it, spelled
// out so that this package needs the solver package for nothing else
// (TestStatusDiverged holds it to the solver's name).
const statusDiverged = "Diverged"

// fill copies res into tr; a run stopped by errDiverged is Diverged, not an error.
func (tr *Trial) fill(res *stochastic.Result, err error) error {
	tr.Status, tr.Stats, tr.Nu, tr.Slack = res.Status.String(), res.Stats, res.Nu, res.Slack
	tr.W = res.W
	if errors.Is(err, errDiverged) {
		tr.Status = statusDiverged
		return nil
	}
	if math.IsNaN(tr.Nu) || math.IsInf(tr.Nu, 0) || math.IsNaN(tr.Slack) || math.IsInf(tr.Slack, 0) {
		tr.Nu, tr.Slack = 0, 0
	}
	return err
}

// sampleClients shuffles the training set iid into I shards (seed-driven).
func sampleClients(cfg *Config, net swishnet.Net, train *datasets.Images, seed uint64, B int) ([]stochastic.SampleClient, error) {
	perm := rand.New(rand.NewPCG(seed, streamShard)).Perm(train.N)
	I := cfg.Clients
	var out []stochastic.SampleClient
	for i := 0; i < I; i++ {
		rows := perm[i*train.N/I : (i+1)*train.N/I]
		if B > len(rows) {
			return nil, &experiments.ConfigError{Field: "batch", Value: B, Reason: fmt.Sprintf("larger than client %d's %d samples (B <= N_i)", i, len(rows))}
		}
		out = append(out, swishnet.NewSampleClient(net, train, rows))
	}
	return out, nil
}

// featureProblem splits the pixels into I contiguous blocks.
func featureProblem(cfg *Config, net swishnet.Net, train *datasets.Images) (*stochastic.FeatureProblem, error) {
	if cfg.Clients > net.K {
		return nil, &experiments.ConfigError{Field: "clients", Value: cfg.Clients, Reason: fmt.Sprintf("more clients than the %d features", net.K)}
	}
	fp := &stochastic.FeatureProblem{Top: [2]int{net.K * net.J, net.Dim()}, LabelsAtClient0: cfg.Labels == "client0"}
	for _, b := range swishnet.Blocks(net.K, cfg.Clients) {
		fp.Clients = append(fp.Clients, swishnet.NewFeatureClient(net, train, b[0], b[1]))
		fp.Blocks = append(fp.Blocks, [2]int{b[0] * net.J, b[1] * net.J})
	}
	return fp, nil
}

// Curve is one spec's trials.
type Curve struct {
	Spec   Spec    `json:"spec"`
	Trials []Trial `json:"trials"`
}

// RunSpecs runs cfg.Runs trials of every spec, opt.Workers at a time,
// reusing stored trials; the curves come back in spec order.
func RunSpecs(ctx context.Context, cfg *Config, data *Data, specs []Spec, runs int, opt experiments.RunOptions) ([]Curve, error) {
	out := make([]Curve, len(specs))
	pc := experiments.NewProgressCounter(len(specs)*runs, opt.Progress)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.NumWorkers())
	for k, s := range specs {
		out[k] = Curve{Spec: s, Trials: make([]Trial, runs)}
		for r := 0; r < runs; r++ {
			g.Go(func() error {
				if err := gctx.Err(); err != nil {
					return err
				}
				key := experiments.TrialKey(s.Key(), r)
				tr, err := experiments.Cached(opt.Store, key, cfg.Seed+uint64(r), func() (Trial, error) {
					tr, err := RunTrial(gctx, cfg, data, s, r)
					// w^T is stored before the trial file that names it.
					if err == nil && r == WeightsRun && opt.Store != nil && tr.W != nil && tr.Status != statusDiverged {
						tr.FinalW, err = writeWeights(opt.Store.Dir, key, tr.W)
					}
					return tr, err
				})
				if err != nil {
					return fmt.Errorf("%s run %d: %w", s.Label(), r, err)
				}
				out[k].Trials[r] = tr
				pc.Tick(fmt.Sprintf("%s run %d", s.Label(), r))
				return nil
			})
		}
	}
	return out, g.Wait()
}

// curveKeys are the configuration keys that only some curves read, each
// with what it sets; every run reads the others.
var curveKeys = map[string]string{
	"lambda":    "λ of (27): Algorithms 1, 3 and the SGD baselines; Figure 4 sweeps lambda_sweep",
	"u":         "U of (37): Algorithms 2 and 4; Figure 4 sweeps u_sweep",
	"c":         "slack penalty: Algorithms 2 and 4",
	"tau":       "τ of the surrogates: Algorithms 1-4, not the SGD baselines",
	"labels":    "feature-based labels: Algorithms 3, 4 and feature SGD",
	"sgd_rates": "learning rates of the SGD baselines, FedAvg and feature SGD",
}

// reads returns the keys of curveKeys that curve s reads. Figure 4's curves
// (FinalOnly) take their U or λ from u_sweep or lambda_sweep.
func (s Spec) reads() []string {
	var k []string
	switch {
	case !s.ssca():
		k = append(k, "sgd_rates", "lambda")
	case s.constrained():
		k = append(k, "tau", "c")
		if !s.FinalOnly {
			k = append(k, "u")
		}
	default:
		k = append(k, "tau")
		if !s.FinalOnly {
			k = append(k, "lambda")
		}
	}
	if s.feature() {
		k = append(k, "labels")
	}
	return k
}

// UnreadKeys returns the keys that only some curves read and that no curve
// of specs reads, each with what it sets: the keys a command running
// specs must refuse.
func UnreadKeys(specs []Spec) map[string]string {
	out := maps.Clone(curveKeys)
	for _, s := range specs {
		for _, k := range s.reads() {
			delete(out, k)
		}
	}
	return out
}

// FigureCurves are the kinds of curve figure fig draws (one per algorithm
// and role, whatever the configured batch sizes and sweeps), known before
// any configuration is loaded.
func FigureCurves(fig string) []Spec {
	one := &Config{SampleBatches: []int{1}, FeatureBatches: []int{1}, FedAvg: []FedAvgRun{{Batch: 1}},
		FSGDBatches: []int{1}, USweep: []float64{1}, LambdaSweep: []float64{1}}
	return one.figureSpecs(fig)
}
