package drfl

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-viper/mapstructure/v2"
	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/problems/wdro"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// Preset names the embedded preset of the DRFL commands,
// configs/drfl/drfl.yaml.
const Preset = "drfl/drfl"

// Config is configs/drfl/drfl.yaml: every setting of `fedcon run drfl`
// and `fedcon reproduce drfl-figure1..5`. The keys the flags take as lists
// or names (rho, p, qhat, support) stay strings, parsed by cmd as the
// flags are.
type Config struct {
	// Algorithm 1's settings (solver/adlpmm.Settings).
	C         float64 `mapstructure:"c"`
	Tol       float64 `mapstructure:"tol"`
	MaxRounds int     `mapstructure:"max_rounds"`
	// The model: the norm p and centre q̂ of Q, the SVM's support, the
	// Huber threshold ε, and ρ, κ, θ where they are not cross-validated.
	P       Norm         `mapstructure:"p"`
	QHat    string       `mapstructure:"qhat"`
	Support wdro.Support `mapstructure:"support"`
	Epsilon float64      `mapstructure:"epsilon"`
	Rho     string       `mapstructure:"rho"`
	Kappa   float64      `mapstructure:"kappa"`
	Theta   float64      `mapstructure:"theta"`
	// Seed is the first repetition's seed.
	Seed uint64 `mapstructure:"seed"`
	// The split (DataConfig); TrainNoise by dataset, "default" for
	// the others.
	TrainShare float64               `mapstructure:"train_share"`
	Clients    int                   `mapstructure:"clients"`
	TrainNoise map[string]TrainNoise `mapstructure:"train_noise"`
	Imbalance  []float64             `mapstructure:"imbalance"`
	// Figures 2-5.
	Repetitions      int     `mapstructure:"repetitions"`
	QuickRepetitions int     `mapstructure:"quick_repetitions"`
	NoiseMax         float64 `mapstructure:"noise_max"`
	NoiseStep        float64 `mapstructure:"noise_step"`
	QuickNoiseStep   float64 `mapstructure:"quick_noise_step"`
	Folds            int     `mapstructure:"folds"`
	Grid             Grid    `mapstructure:"cv_grid"`
	QuickGridThin    int     `mapstructure:"quick_grid_thin"`
	// The rows (datasets) of each noise figure.
	Figure2 []NoiseFigure `mapstructure:"figure2"`
	Figure3 []NoiseFigure `mapstructure:"figure3"`
	Figure4 []NoiseFigure `mapstructure:"figure4"`
	Figure5 []NoiseFigure `mapstructure:"figure5"`
	Figure1 Figure1Preset `mapstructure:"figure1"`
}

// TrainNoise is the N(Mean, SD²) noise on client 1's training features.
type TrainNoise struct {
	Mean float64 `mapstructure:"mean"`
	SD   float64 `mapstructure:"sd"`
}

// Figure1Preset is Figure 1's section: its sizes and those of --quick.
type Figure1Preset struct {
	Figure1Config `mapstructure:",squash"`
	QuickDraws    int     `mapstructure:"quick_draws"`
	QuickRhoStep  float64 `mapstructure:"quick_rho_step"`
}

// DefaultConfig returns the embedded preset, the one source of the
// DRFL defaults: a copy the caller may change. It panics if the preset
// does not decode: a build defect, which TestDRFLPreset catches.
func DefaultConfig() *Config {
	c, err := drflPreset()
	if err != nil {
		panic(err)
	}
	return c.Clone()
}

// drflPreset decodes the preset once (about 1 ms; every DRFL command's
// flags read it at start-up).
var drflPreset = sync.OnceValues(func() (*Config, error) {
	b, err := configs.Preset(Preset)
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("experiments: preset %s: %w", Preset, err)
	}
	// The decoder of cmd's loadConfig (viper): weakly typed, no unknown keys.
	c := &Config{}
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{WeaklyTypedInput: true, ErrorUnused: true, DecodeHook: experiments.DecodeHook(), Result: c})
	if err == nil {
		err = dec.Decode(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: preset %s: %w", Preset, err)
	}
	return c, nil
})

// Clone returns a deep copy of c.
func (c *Config) Clone() *Config {
	d := *c
	d.TrainNoise = maps.Clone(c.TrainNoise)
	d.Imbalance = slices.Clone(c.Imbalance)
	d.Grid = Grid{Rho: slices.Clone(c.Grid.Rho), Kappa: slices.Clone(c.Grid.Kappa), Theta: slices.Clone(c.Grid.Theta)}
	d.Figure2, d.Figure3 = slices.Clone(c.Figure2), slices.Clone(c.Figure3)
	d.Figure4, d.Figure5 = slices.Clone(c.Figure4), slices.Clone(c.Figure5)
	return &d
}

// Data returns the split of dataset: the training share, the clients,
// dataset's training noise (train_noise.default if it has none) and, if
// imbalanced, the imbalance ratios.
func (c *Config) Data(dataset string, imbalanced bool) DataConfig {
	n, ok := c.TrainNoise[dataset]
	if !ok {
		n = c.TrainNoise["default"]
	}
	d := DataConfig{TrainShare: c.TrainShare, Clients: c.Clients, NoiseMean: n.Mean, NoiseSD: n.SD}
	if imbalanced {
		d.Imbalance = slices.Clone(c.Imbalance)
	}
	return d
}

// ValidateData checks the split's keys.
func (c *Config) ValidateData() error {
	if !(c.TrainShare > 0 && c.TrainShare < 1) {
		return &experiments.ConfigError{Field: "train_share", Value: c.TrainShare, Reason: "want in (0, 1)"}
	}
	if c.Clients < 1 {
		return &experiments.ConfigError{Field: "clients", Value: c.Clients, Reason: "want ≥ 1"}
	}
	if _, ok := c.TrainNoise["default"]; !ok {
		return &experiments.ConfigError{Field: "train_noise.default", Value: nil, Reason: "want the noise of datasets without an entry"}
	}
	for name, n := range c.TrainNoise {
		if !(n.SD >= 0) || math.IsInf(n.SD, 1) || math.IsNaN(n.Mean) || math.IsInf(n.Mean, 0) {
			return &experiments.ConfigError{Field: "train_noise." + name, Value: fmt.Sprintf("mean %v, sd %v", n.Mean, n.SD), Reason: "want a finite mean and sd ≥ 0"}
		}
	}
	if len(c.Imbalance) != c.Clients {
		return &experiments.ConfigError{Field: "imbalance", Value: c.Imbalance, Reason: fmt.Sprintf("want %d ratios, one per client", c.Clients)}
	}
	for s, r := range c.Imbalance {
		if !(r > 0 && r <= 1) {
			return &experiments.ConfigError{Field: "imbalance", Value: c.Imbalance, Reason: fmt.Sprintf("ratio of client %d outside (0, 1]", s+1)}
		}
	}
	return nil
}

// FigureRows returns the rows (datasets) of noise figure name
// ("drfl-figure2" to "drfl-figure5"), each named name; nil for another name.
func (c *Config) FigureRows(name string) []NoiseFigure {
	rows := map[string][]NoiseFigure{"drfl-figure2": c.Figure2, "drfl-figure3": c.Figure3,
		"drfl-figure4": c.Figure4, "drfl-figure5": c.Figure5}[name]
	rows = slices.Clone(rows)
	for i := range rows {
		rows[i].Name = name
	}
	return rows
}

// ValidateNoise checks the keys of Figures 2-5; the grid only with cv.
// folds is checked always: a bad --folds without --cv is a mistake too.
func (c *Config) ValidateNoise(cv bool) error {
	if c.Repetitions < 1 {
		return &experiments.ConfigError{Field: "repetitions", Value: c.Repetitions, Reason: "want ≥ 1"}
	}
	if c.QuickRepetitions < 1 {
		return &experiments.ConfigError{Field: "quick_repetitions", Value: c.QuickRepetitions, Reason: "want ≥ 1"}
	}
	if !(c.NoiseMax >= 0) || math.IsInf(c.NoiseMax, 1) {
		return &experiments.ConfigError{Field: "noise_max", Value: c.NoiseMax, Reason: "want a finite value ≥ 0"}
	}
	for _, s := range []struct {
		key  string
		step float64
	}{{"noise_step", c.NoiseStep}, {"quick_noise_step", c.QuickNoiseStep}} {
		// The cap keeps a typo from allocating millions of levels.
		if !(s.step > 0) || c.NoiseMax/s.step > 1000 {
			return &experiments.ConfigError{Field: s.key, Value: s.step, Reason: "want > 0 and at most 1000 levels up to noise_max"}
		}
	}
	for _, name := range []string{"drfl-figure2", "drfl-figure3", "drfl-figure4", "drfl-figure5"} {
		key := strings.TrimPrefix(name, "drfl-")
		rows := c.FigureRows(name)
		if len(rows) == 0 {
			return &experiments.ConfigError{Field: key, Value: nil, Reason: "want at least one row (dataset)"}
		}
		for _, f := range rows {
			finite := !math.IsNaN(f.FixedMean+f.Ratio) && !math.IsInf(f.FixedMean, 0) && !math.IsInf(f.Ratio, 0)
			if f.Dataset == "" || !(f.FixedSD >= 0) || math.IsInf(f.FixedSD, 1) || !finite {
				return &experiments.ConfigError{Field: key, Value: fmt.Sprintf("%+v", f), Reason: "want a dataset, fixed_sd ≥ 0 and a finite fixed_mean and ratio"}
			}
		}
	}
	if c.Folds < 2 {
		return &experiments.ConfigError{Field: "folds", Value: c.Folds, Reason: "want ≥ 2"}
	}
	if !cv {
		return nil
	}
	if c.QuickGridThin < 1 {
		return &experiments.ConfigError{Field: "quick_grid_thin", Value: c.QuickGridThin, Reason: "want ≥ 1"}
	}
	g := c.Grid
	for _, l := range []struct {
		key      string
		vals     []float64
		positive bool
	}{{"cv_grid.rho", g.Rho, false}, {"cv_grid.kappa", g.Kappa, true}, {"cv_grid.theta", g.Theta, false}} {
		ok := len(l.vals) > 0
		for _, v := range l.vals {
			ok = ok && v >= 0 && !(l.positive && v == 0) && !math.IsInf(v, 1)
		}
		if !ok {
			want := "want one or more finite values ≥ 0"
			if l.positive {
				want = "want one or more finite values > 0"
			}
			return &experiments.ConfigError{Field: l.key, Value: l.vals, Reason: want}
		}
	}
	return nil
}

// Noise returns the run of one row of a noise figure: every model at
// base's parameters (tuned by cross-validation over the grid if cv), the
// preset's repetitions, levels, split and solver settings; quick takes the
// quick_ keys.
func (c *Config) Noise(fig NoiseFigure, base Params, quick, cv bool) NoiseConfig {
	n := NoiseConfig{Figure: fig, Repetitions: c.Repetitions, Seed: c.Seed, Data: c.Data(fig.Dataset, fig.Imbalanced),
		C: c.C, Tol: c.Tol, MaxRounds: c.MaxRounds}
	step := c.NoiseStep
	if quick {
		n.Repetitions, step = c.QuickRepetitions, c.QuickNoiseStep
	}
	for k := 0; float64(k)*step <= c.NoiseMax+1e-9; k++ {
		// Rounded, so that the CSV reads 0.6, not 0.6000000000000001.
		n.Levels = append(n.Levels, math.Round(float64(k)*step*1e9)/1e9)
	}
	for _, m := range Models() {
		p := base
		p.Model = m
		p.Spell() // for the run record
		n.Params = append(n.Params, p)
	}
	if cv {
		g := c.Grid
		if quick {
			g = g.Thin(c.QuickGridThin)
		}
		n.CV, n.Folds = &g, c.Folds
	}
	return n
}

// Figure1Config returns Figure 1's sizes; quick takes quick_draws and
// quick_rho_step.
func (c *Config) Figure1Config(quick bool) Figure1Config {
	f := c.Figure1.Figure1Config
	if quick {
		f.Draws, f.RhoStep = c.Figure1.QuickDraws, c.Figure1.QuickRhoStep
	}
	return f
}

// FloatList parses comma-separated numbers as a config error on failure.
func FloatList(field, s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil {
			return nil, &experiments.ConfigError{Field: field, Value: s, Reason: "want comma-separated numbers"}
		}
		out = append(out, v)
	}
	return out, nil
}

// Params turns cfg's model and solver keys into validated parameters of
// model; loss "" is settled by the dataset later.
func (cfg *Config) Params(model, loss string) (Params, error) {
	S := cfg.Clients
	p := Params{Model: model, Kappa: cfg.Kappa, Theta: cfg.Theta, Loss: loss}
	if loss == "huber" {
		p.Epsilon = cfg.Epsilon
	}
	if !(cfg.Epsilon > 0) || math.IsInf(cfg.Epsilon, 1) {
		return p, &experiments.ConfigError{Field: "epsilon", Value: cfg.Epsilon, Reason: "want a finite value > 0"}
	}
	rhos, err := FloatList("rho", cfg.Rho)
	if err != nil {
		return p, err
	}
	switch {
	case len(rhos) == 1:
		p.Rho = rhos[0]
	case len(rhos) == S && model == ModelDRFL:
		p.Rhos = rhos
	default:
		return p, &experiments.ConfigError{Field: "rho", Value: cfg.Rho, Reason: fmt.Sprintf("want one radius or %d (drfl only), got %d", S, len(rhos))}
	}
	if !cfg.P.valid() {
		return p, &experiments.ConfigError{Field: "p", Value: float64(cfg.P), Reason: "want 1, 2 or inf"}
	}
	p.P, p.Support = float64(cfg.P), cfg.Support
	switch cfg.QHat {
	case "size":
	case "uniform":
		p.QHat = make([]float64, S)
		for s := range p.QHat {
			p.QHat[s] = 1 / float64(S)
		}
	default:
		parts := strings.Split(cfg.QHat, ",")
		if len(parts) != S {
			return p, &experiments.ConfigError{Field: "qhat", Value: cfg.QHat, Reason: fmt.Sprintf("want %d weights, got %d", S, len(parts))}
		}
		var sum float64
		for _, s := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !(v >= 0) || math.IsInf(v, 1) {
				return p, &experiments.ConfigError{Field: "qhat", Value: cfg.QHat, Reason: "weights must be finite numbers ≥ 0"}
			}
			p.QHat = append(p.QHat, v)
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			return p, &experiments.ConfigError{Field: "qhat", Value: cfg.QHat, Reason: "weights must sum to 1 (q̂ ∈ Δ_S)"}
		}
	}
	if !(cfg.C > 0) || math.IsInf(cfg.C, 1) {
		return p, &experiments.ConfigError{Field: "c", Value: cfg.C, Reason: "want a finite value > 0"}
	}
	if !(cfg.Tol > 0) || math.IsInf(cfg.Tol, 1) || cfg.MaxRounds < 1 {
		return p, &experiments.ConfigError{Field: "tol/max_rounds", Value: fmt.Sprint(cfg.Tol, "/", cfg.MaxRounds), Reason: "want a finite tol > 0 and max rounds ≥ 1"}
	}
	return p, p.Validate()
}

// Settings are Algorithm 1's settings of cfg, workers clients at a time.
func (cfg *Config) Settings(workers int) *adlpmm.Settings {
	return &adlpmm.Settings{C: cfg.C, Tol: cfg.Tol, MaxRounds: cfg.MaxRounds, Workers: workers}
}

// Norm is the norm p of the weight set Q: 1, 2 or inf (also Inf, +inf).
// Its text is its name, so that the configuration key p reads "inf".
type Norm float64

func (n Norm) valid() bool { return n == 1 || n == 2 || math.IsInf(float64(n), 1) }

// UnmarshalText reads 1, 2 or inf.
func (n *Norm) UnmarshalText(b []byte) error {
	switch string(b) {
	case "1":
		*n = 1
	case "2":
		*n = 2
	case "inf", "Inf", "+inf":
		*n = Norm(math.Inf(1))
	default:
		return fmt.Errorf("%q: want 1, 2 or inf", string(b))
	}
	return nil
}

// MarshalText writes 1, 2 or inf.
func (n Norm) MarshalText() ([]byte, error) {
	if !n.valid() {
		return nil, fmt.Errorf("drfl: norm %v: want 1, 2 or inf", float64(n))
	}
	return []byte(normName(float64(n))), nil
}
