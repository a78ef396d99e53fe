package drfl

import (
	"context"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// BenchmarkDRFLHeart: Algorithm 1 on heart (repetition 1, three clients of
// 54 rows, 13 features, box support), one grid point ρ = 0.01, κ = 0.5,
// θ = 0.01, p = 1, c = 1, tolerance 1e-4; the target is ≤ 10 s.
func BenchmarkDRFLHeart(b *testing.B) {
	d := heartOrSkip(b)
	sp, err := NewSplit(d, DefaultData("heart"), 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []string{ModelDRFL, ModelAFL} {
		b.Run(m, func(b *testing.B) {
			p := Params{Model: m, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}
			var rounds, qpIt int
			for b.Loop() {
				r, err := Run(context.Background(), sp, p, sp.TestX, &adlpmm.Settings{Workers: 2})
				if err != nil {
					b.Fatal(err)
				}
				rounds, qpIt = r.Rounds, r.QPIterations
			}
			b.ReportMetric(float64(rounds), "rounds")
			b.ReportMetric(float64(qpIt)/float64(rounds*len(sp.Train)), "qp-iters/solve")
		})
	}
}

// BenchmarkDRFLCrossValidate: the quick grid's cross-validation (every
// third value, 5 folds) of one model on Figure 3's first repetition
// (breast-cancer, three clients of ~137 rows, 9 features): DRFL is 40
// candidates × 5 folds of central LPs. drfl-theta: the paper's six θ on
// a 5 × 3 subgrid of ρ × κ (90 candidates), where fits are shared across
// θ (thetaShares).
func BenchmarkDRFLCrossValidate(b *testing.B) {
	d := drflDataOrSkip(b, "breast-cancer-wisc")
	sp, err := NewSplit(d, DefaultData("breast-cancer-wisc"), 1)
	if err != nil {
		b.Fatal(err)
	}
	quick := PaperGrid().Thin(3)
	theta := Grid{Rho: []float64{1e-6, 1e-4, 1e-2, 5e-2, 0.5}, Kappa: []float64{0.1, 0.5, 1}, Theta: PaperGrid().Theta}
	for _, tc := range []struct {
		name, model string
		grid        Grid
	}{{"drfl", ModelDRFL, quick}, {"wafl", ModelWAFL, quick}, {"afl", ModelAFL, quick}, {"drfl-theta", ModelDRFL, theta}} {
		b.Run(tc.name, func(b *testing.B) {
			p := Params{Model: tc.model, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}
			var cv *CV
			for b.Loop() {
				if cv, err = CrossValidate(context.Background(), sp.Train, p, tc.grid, 5, 1, &adlpmm.Settings{Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cv.Fits), "fits")
			b.ReportMetric(float64(cv.Central), "central")
			b.ReportMetric(float64(cv.Shared), "shared")
		})
	}
}

// BenchmarkDRFLCrossValidateHuber: the quick grid's cross-validation of
// the Huber models on Figure 2's abalone row, repetition 1 (three clients
// of ~835 rows, 10 features): Algorithm 1 fits warm-started along chains,
// with the fits huberShares proves equal taken, not solved.
func BenchmarkDRFLCrossValidateHuber(b *testing.B) {
	d := drflDataOrSkip(b, "abalone")
	sp, err := NewSplit(d, DefaultData("abalone"), 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		model string
		grid  Grid
	}{
		{"drfl", ModelDRFL, PaperGrid().Thin(3)},
		{"wafl", ModelWAFL, PaperGrid().Thin(3)},
		{"drfl-full", ModelDRFL, PaperGrid()}, // 900 candidates × 5 folds
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := Params{Model: tc.model, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1, Loss: "huber"}
			var cv *CV
			for b.Loop() {
				if cv, err = CrossValidate(context.Background(), sp.Train, p, tc.grid, 5, 1, &adlpmm.Settings{Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cv.Fits), "fits")
			b.ReportMetric(float64(cv.Fits-cv.Shared+cv.ZeroRadius), "solved")
		})
	}
}

// BenchmarkDRFLFigures: the figure-level targets, each as the CLI
// runs it from the default preset. figure1: `reproduce drfl-figure1` (full
// size; target ≤ 30 s). figure2-5: `reproduce drfl-figureK --quick --cv`
// (2 repetitions, every third grid value, noise step 0.4; target ≤ 5 min
// each), all rows of the figure, workers 2. Minutes each: run one at a
// time, e.g. -bench 'DRFLFigures/figure3' -benchtime 1x.
func BenchmarkDRFLFigures(b *testing.B) {
	cfg := DefaultConfig()
	b.Run("figure1", func(b *testing.B) {
		for b.Loop() {
			if _, err := RunFigure1(cfg.Figure1Config(false)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, name := range []string{"drfl-figure2", "drfl-figure3", "drfl-figure4", "drfl-figure5"} {
		b.Run(name[5:], func(b *testing.B) {
			rows := cfg.FigureRows(name)
			data := make([]*datasets.Dataset, len(rows))
			for i, fig := range rows {
				data[i] = drflDataOrSkip(b, fig.Dataset)
			}
			var reps int
			for b.Loop() {
				for i, fig := range rows {
					base := Params{Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}
					if data[i].Regression {
						base.Loss = "huber"
					}
					n := cfg.Noise(fig, base, true, true)
					n.Workers = 2
					res, err := RunNoise(context.Background(), data[i], n, nil, nil)
					if err != nil {
						b.Fatal(err)
					}
					reps += len(res.Runs[0])
				}
			}
			b.ReportMetric(float64(reps)/float64(b.N), "repetitions")
		})
	}
}
