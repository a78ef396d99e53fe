package drfl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/fedcon/fedcon/experiments"
)

// Example 4.1 / Appendix D (Figure 1 of the DRFL paper): two clients on
// supports {0,1,2} and {1,2,3} with p₁ = (.5,.3,.2), p₂ = (.2,.3,.5) and
// weights q = (.4,.6).
var (
	fig1Support = [2][3]float64{{0, 1, 2}, {1, 2, 3}}
	fig1P       = [2][3]float64{{0.5, 0.3, 0.2}, {0.2, 0.3, 0.5}}
	fig1Q       = [2]float64{0.4, 0.6}
)

// Figure1Config sets the sizes of Appendix D.
type Figure1Config struct {
	Seed uint64 `mapstructure:"seed" json:"seed"`
	// Runs of Samples samples each for the coverage curve (100 of 1000).
	Runs    int `mapstructure:"runs" json:"runs"`
	Samples int `mapstructure:"samples" json:"samples"`
	// RhoStep and RhoMax: the grid ρ = RhoStep, 2·RhoStep, …, RhoMax
	// (1e-5 … 0.5).
	RhoStep float64 `mapstructure:"rho_step" json:"rho_step"`
	RhoMax  float64 `mapstructure:"rho_max" json:"rho_max"`
	// Draws random distributions P' per level for the volume (10,000).
	Draws int `mapstructure:"draws" json:"draws"`
}

// DefaultFigure1 returns Appendix D's sizes, from the preset.
func DefaultFigure1() Figure1Config {
	return DefaultConfig().Figure1Config(false)
}

// Validate checks the sizes.
func (c Figure1Config) Validate() error {
	switch {
	case c.Runs < 1:
		return &experiments.ConfigError{Field: "runs", Value: c.Runs, Reason: "want ≥ 1"}
	case c.Samples < 1:
		return &experiments.ConfigError{Field: "samples", Value: c.Samples, Reason: "want ≥ 1"}
	case !(c.RhoStep > 0) || !(c.RhoMax >= c.RhoStep):
		return &experiments.ConfigError{Field: "rho_step", Value: c.RhoStep, Reason: "want 0 < rho_step ≤ rho_max"}
	case c.Draws < 1:
		return &experiments.ConfigError{Field: "draws", Value: c.Draws, Reason: "want ≥ 1"}
	}
	return nil
}

// W1Line returns the 1-Wasserstein distance ∫|F − G| between two
// distributions on the same sorted support points xs (weights p and q).
func W1Line(xs, p, q []float64) float64 {
	var F, G, w float64
	for k := 0; k+1 < len(xs); k++ {
		F += p[k]
		G += q[k]
		w += math.Abs(F-G) * (xs[k+1] - xs[k])
	}
	return w
}

// fig1Dist is a two-client distribution: weights q and per-client p_s.
type fig1Dist struct {
	q [2]float64
	p [2][3]float64
}

// agg returns Σ q_s P_s on {0, 1, 2, 3}.
func (d fig1Dist) agg() []float64 {
	a := make([]float64, 4)
	for s := range 2 {
		for i := range 3 {
			a[int(fig1Support[s][i])] += d.q[s] * d.p[s][i]
		}
	}
	return a
}

var fig1Line = []float64{0, 1, 2, 3}

// distances returns max_s W(P_s, R_s) (DRFL: both balls must hold P) and
// W(P_agg, R_agg) (WAFL).
func (d fig1Dist) distances(r fig1Dist) (drfl, wafl float64) {
	for s := range 2 {
		drfl = math.Max(drfl, W1Line(fig1Support[s][:], d.p[s][:], r.p[s][:]))
	}
	return drfl, W1Line(fig1Line, d.agg(), r.agg())
}

// empirical draws n samples from the true distribution (client by q, value
// by p_s) and returns the empirical q̂ and p̂_s.
func fig1Empirical(rng *rand.Rand, n int) fig1Dist {
	var e fig1Dist
	var counts [2][3]float64
	var ns [2]float64
	for range n {
		s := 0
		if rng.Float64() >= fig1Q[0] {
			s = 1
		}
		u, i := rng.Float64(), 0
		for i < 2 && u >= fig1P[s][i] {
			u -= fig1P[s][i]
			i++
		}
		counts[s][i]++
		ns[s]++
	}
	for s := range 2 {
		e.q[s] = ns[s] / float64(n)
		for i := range 3 {
			if ns[s] > 0 {
				e.p[s][i] = counts[s][i] / ns[s]
			}
		}
	}
	return e
}

// fig1Random draws a random distribution P': q = (u, 1 − u) and each p_s
// uniform weights normalised.
func fig1Random(rng *rand.Rand) fig1Dist {
	var d fig1Dist
	u := rng.Float64()
	d.q = [2]float64{u, 1 - u}
	for s := range 2 {
		var sum float64
		for i := range 3 {
			d.p[s][i] = rng.Float64()
			sum += d.p[s][i]
		}
		for i := range 3 {
			d.p[s][i] /= sum
		}
	}
	return d
}

// fig1Stream is the PCG stream of Figure 1's draws under its seed.
const fig1Stream = 0xf161

// Figure1 is Figure 1's data.
type Figure1 struct {
	Config Figure1Config `json:"config"`
	// Distances per run: DRFL's max_s W(P*_s, P̂_s), WAFL's W(P*, P̂_agg).
	DistDRFL []float64 `json:"dist_drfl"`
	DistWAFL []float64 `json:"dist_wafl"`
	// Levels 0.10 … 1.00, the smallest grid ρ reaching each, and the
	// share of random P' inside the ball of that ρ around the fixed P̂_f.
	Levels     []float64          `json:"levels"`
	RhoDRFL    []float64          `json:"rho_drfl"`
	RhoWAFL    []float64          `json:"rho_wafl"`
	VolumeDRFL []float64          `json:"volume_drfl"`
	VolumeWAFL []float64          `json:"volume_wafl"`
	Figure     experiments.Figure `json:"-"` // drawn from the fields above; the CSV has the curves
	// Label is the figure's title and caption, as every figure's JSON
	// records them under "figure" for the report; the curves themselves
	// (thousands of grid points) are in the CSV, not repeated here.
	Label FigureLabel `json:"figure"`
}

// FigureLabel is a figure's title and caption without its curves.
type FigureLabel struct {
	Title   string `json:"title"`
	Caption string `json:"caption"`
}

// coverageAt returns the share of sorted distances ≤ rho.
func coverageAt(sorted []float64, rho float64) float64 {
	k, _ := slices.BinarySearchFunc(sorted, rho, func(a, b float64) int {
		if a <= b {
			return -1
		}
		return 1
	})
	return float64(k) / float64(len(sorted))
}

// smallestRho returns the smallest grid ρ = k·step (k ≥ 1, ρ ≤ max) with
// coverage ≥ level, or NaN if none.
func smallestRho(sorted []float64, level, step, max float64) float64 {
	need := int(math.Ceil(level*float64(len(sorted)) - 1e-9))
	if need < 1 {
		return step
	}
	d := sorted[need-1]
	k := math.Max(1, math.Ceil(d/step-1e-9))
	for k*step < d {
		k++
	}
	if k*step > max+step/2 {
		return math.NaN()
	}
	return k * step
}

// RunFigure1 computes Figure 1: coverage P(P* ∈ ball) against ρ, and
// the normalised volume of the ball at each guarantee level.
func RunFigure1(cfg Figure1Config) (*Figure1, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, fig1Stream))
	truth := fig1Dist{q: fig1Q, p: fig1P}
	out := &Figure1{Config: cfg}
	for range cfg.Runs {
		e := fig1Empirical(rng, cfg.Samples)
		a, b := truth.distances(e)
		out.DistDRFL, out.DistWAFL = append(out.DistDRFL, a), append(out.DistWAFL, b)
	}
	sd, sw := slices.Sorted(slices.Values(out.DistDRFL)), slices.Sorted(slices.Values(out.DistWAFL))
	// Stage 2: one fixed empirical P̂_f and random P'.
	fixed := fig1Empirical(rng, cfg.Samples)
	draws := make([][2]float64, cfg.Draws)
	for k := range draws {
		a, b := fig1Random(rng).distances(fixed)
		draws[k] = [2]float64{a, b}
	}
	for l := 10; l <= 100; l += 5 {
		level := float64(l) / 100
		rd, rw := smallestRho(sd, level, cfg.RhoStep, cfg.RhoMax), smallestRho(sw, level, cfg.RhoStep, cfg.RhoMax)
		var vd, vw float64
		for _, d := range draws {
			if d[0] <= rd {
				vd++
			}
			if d[1] <= rw {
				vw++
			}
		}
		out.Levels = append(out.Levels, level)
		out.RhoDRFL, out.RhoWAFL = append(out.RhoDRFL, rd), append(out.RhoWAFL, rw)
		out.VolumeDRFL = append(out.VolumeDRFL, vd/float64(cfg.Draws))
		out.VolumeWAFL = append(out.VolumeWAFL, vw/float64(cfg.Draws))
	}
	// Coverage curves on the grid, up to where both reach 1 (then flat).
	top := math.Min(cfg.RhoMax, math.Max(sd[len(sd)-1], sw[len(sw)-1])*1.2)
	cov := experiments.Panel{Title: "P(P* in ambiguity set) against radius", XLabel: "ρ", YLabel: "coverage", YUnit: true}
	cd, cw := experiments.Series{Name: "DRFL", Color: 0}, experiments.Series{Name: "WAFL", Color: 1, Dash: "dash"}
	steps := int(math.Round(top / cfg.RhoStep))
	for k := 1; k <= steps; k++ {
		rho := float64(k) * cfg.RhoStep
		cd.X, cd.Y = append(cd.X, rho), append(cd.Y, coverageAt(sd, rho))
		cw.X, cw.Y = append(cw.X, rho), append(cw.Y, coverageAt(sw, rho))
	}
	cov.Series = []experiments.Series{cd, cw}
	vol := experiments.Panel{Title: "Normalised volume at each guarantee level", XLabel: "P(P* in ambiguity set)", YLabel: "volume",
		Series: []experiments.Series{{Name: "DRFL", Color: 0, X: out.Levels, Y: out.VolumeDRFL}, {Name: "WAFL", Color: 1, Dash: "dash", X: out.Levels, Y: out.VolumeWAFL}}}
	out.Figure = experiments.Figure{Title: "DRFL Figure 1 (Example 4.1): coverage and volume, DRFL vs WAFL", Panels: []experiments.Panel{cov, vol},
		Caption: fmt.Sprintf("Left: the share of %d runs (%d samples each) whose true distribution lies in the ball of radius ρ "+
			"(DRFL: every client's around its own empirical distribution; WAFL: the pooled one). Right: the share of %d random "+
			"distributions inside the ball of the smallest radius reaching each coverage level.", cfg.Runs, cfg.Samples, cfg.Draws)}
	out.Label = FigureLabel{Title: out.Figure.Title, Caption: out.Figure.Caption}
	return out, nil
}

// CSV returns the figure's numbers: the volume table, then the coverage
// curve (ρ, DRFL, WAFL) on the grid up to where both reach 1.
func (f *Figure1) CSV() string {
	var b strings.Builder
	b.WriteString("level,rho_drfl,rho_wafl,volume_drfl,volume_wafl\n")
	for i, l := range f.Levels {
		fmt.Fprintf(&b, "%.2f,%g,%g,%g,%g\n", l, f.RhoDRFL[i], f.RhoWAFL[i], f.VolumeDRFL[i], f.VolumeWAFL[i])
	}
	b.WriteString("\nrho,coverage_drfl,coverage_wafl\n")
	cov := f.Figure.Panels[0]
	for i, x := range cov.Series[0].X {
		fmt.Fprintf(&b, "%g,%g,%g\n", x, cov.Series[0].Y[i], cov.Series[1].Y[i])
	}
	return b.String()
}
