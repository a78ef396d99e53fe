package drfl

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/fedcon/fedcon/internal/testutil"
)

// TestDRFLNoiseFits: the fits the cost model counts are the fits a
// cross-validated figure runs, as its progress reports them.
func TestDRFLNoiseFits(t *testing.T) {
	testutil.Slow(t)
	fig := NoiseFigure{Name: "test", Dataset: "synth", FixedSD: 0.3, FixedMean: 0.1, Ratio: 1}
	grid := &Grid{Rho: []float64{1e-3, 0.1}, Kappa: []float64{0.5}, Theta: []float64{0.01, 1}}
	for _, tc := range []struct {
		name  string
		cv    *Grid
		folds int
		reps  int
	}{
		{"fixed parameters", nil, 0, 2},
		{"cv 3 folds", grid, 3, 1},
		{"cv 2 folds, 2 repetitions", grid, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig().Noise(fig, Params{Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1}, true, false)
			cfg.CV, cfg.Folds, cfg.Repetitions = tc.cv, tc.folds, tc.reps
			runs, cvRuns := 0, 0
			_, err := RunNoise(context.Background(), synthDataset(60, 2), cfg, nil, func(p Progress) {
				runs++
				if p.CV != nil {
					cvRuns += p.CV.Fits
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			fits, cvFits := cfg.Fits()
			if fits != runs || cvFits != cvRuns {
				t.Errorf("model counts %d fits and %d CV fits, the run did %d and %d", fits, cvFits, runs, cvRuns)
			}
		})
	}
}

// TestLongDRFLNoiseCostMeasured: the time estimate of a quick figure row on
// the real data is within 4× of the CPU time the row takes here (both ways:
// CPU time doubles when the core's other hardware thread is busy, as under
// go test's parallel packages; see TestSSCACostMeasured). A long test (about
// 2 min of real fits): make test-long.
func TestLongDRFLNoiseCostMeasured(t *testing.T) {
	testutil.Long(t)
	for _, tc := range []struct {
		dataset string
		cv      bool
	}{
		{"heart", false},
		{"abalone", false},
		{"heart", true},
	} {
		d := drflDataOrSkip(t, tc.dataset)
		c := DefaultConfig()
		fig := NoiseFigure{Name: "test", Dataset: tc.dataset, FixedSD: 0.5, Ratio: 1}
		base, err := c.Params(ModelDRFL, "")
		if err != nil {
			t.Fatal(err)
		}
		if d.Regression {
			base.Loss, base.Epsilon = "huber", c.Epsilon
		}
		cfg := c.Noise(fig, base, true, tc.cv)
		cfg.Repetitions, cfg.Workers = 1, 1
		rows, features := d.X.Dims()
		est := cfg.Cost(rows, features, d.Regression).Seconds
		start := cpuSeconds(t)
		if _, err := RunNoise(context.Background(), d, cfg, nil, nil); err != nil {
			t.Fatal(err)
		}
		got := cpuSeconds(t) - start
		t.Logf("%s cv %v: estimate %.1f s, measured %.1f s CPU", tc.dataset, tc.cv, est, got)
		if est < got/4 || est > 4*got {
			t.Errorf("%s cv %v: estimate %.1f s, measured %.1f s CPU: want measured/4 ≤ estimate ≤ 4·measured", tc.dataset, tc.cv, est, got)
		}
	}
}

// TestDatasetShape: the built-in shapes are those of the loaded data sets.
func TestDatasetShape(t *testing.T) {
	for _, name := range []string{"heart", "breast-cancer-wisc", "abalone"} {
		d := drflDataOrSkip(t, name)
		rows, cols, regression, ok := DatasetShape(name)
		r, c := d.X.Dims()
		if !ok || rows != r || cols != c || regression != d.Regression {
			t.Errorf("%s: shape %d x %d regression %v (ok %v), loaded %d x %d regression %v", name, rows, cols, regression, ok, r, c, d.Regression)
		}
	}
	if _, _, _, ok := DatasetShape("adult-a"); ok {
		t.Error("a data set without a built-in shape reports one")
	}
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds(t *testing.T) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skipf("no CPU time: %v", err)
	}
	tv := func(v syscall.Timeval) float64 {
		return time.Duration(v.Nano()).Seconds()
	}
	return tv(ru.Utime) + tv(ru.Stime)
}
