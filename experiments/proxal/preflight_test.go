package proxal

import (
	"context"
	"errors"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

// TestCheckFiniteConfigs: CheckFinite names a non-finite number of the
// prox-AL configurations by its YAML key, through their squashed structs.
func TestCheckFiniteConfigs(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		cfg  any
		key  string // "" when finite
	}{
		{"finite", smallQP(), ""},
		{"squashed", func() any { c := smallQP(); c.EpsFloor = nan; return c }(), "eps_floor"},
		{"al config", &NPConfig{ALConfig: ALConfig{Relax: inf}}, "relax"},
	}
	for _, c := range cases {
		err := experiments.CheckFinite(c.cfg)
		var ce *experiments.ConfigError
		if c.key == "" && err != nil || c.key != "" && (!errors.As(err, &ce) || ce.Field != c.key) {
			t.Errorf("%s: err %v, want a ConfigError on %q", c.name, err, c.key)
		}
	}
}

// TestRunQPInterruptedCellBuild: cancelling while a large cell is built
// returns within a second, with context.Canceled and no rows.
func TestRunQPInterruptedCellBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a d = 1500 cell in the background")
	}
	cfg := smallQP()
	cfg.Cells, cfg.Trials = [][]int{{2, 1500, 1}}, 1
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res, err := RunQP(ctx, cfg, experiments.RunOptions{Workers: 1})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 1300*time.Millisecond {
		t.Fatalf("err %v after %v, want context.Canceled within a second of the cancel", err, time.Since(start))
	}
	if res == nil || len(res.Rows) != 0 {
		t.Fatalf("res %+v, want no rows", res)
	}
}

// TestQPCostModel: the memory model bounds what one cell really keeps (its
// instance, exact solution and both methods' factorisations after a trial)
// from above, and not by more than a factor 8.
func TestQPCostModel(t *testing.T) {
	cfg := smallQP()
	n, d, m := 3, 300, 2
	cfg.Cells, cfg.Trials = [][]int{{n, d, m}}, 1
	// An earlier test's cancelled run may still be winding down its
	// workers, whose frees would land inside the measurement (a negative
	// "kept" on a loaded machine): wait until the goroutine count is
	// steady first.
	for i, last := 0, -1; i < 100; i++ {
		g := runtime.NumGoroutine()
		if g == last {
			break
		}
		last = g
		time.Sleep(20 * time.Millisecond)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	inst, err := QPInstance(cfg, n, d, m)
	if err != nil {
		t.Fatal(err)
	}
	wstar, _, fstar, err := inst.ExactKKT()
	if err != nil {
		t.Fatal(err)
	}
	cache := solver.NewQuadCache()
	if _, err := qpTrial(context.Background(), cfg, inst, cache, wstar, fstar, 0, 0, 1); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	runtime.KeepAlive(inst)
	runtime.KeepAlive(cache)
	model := cfg.Cost(1).Bytes
	if kept <= 0 || model < kept || model > 8*kept {
		t.Fatalf("model %s, kept %s: want kept <= model <= 8·kept", experiments.FormatBytes(model), experiments.FormatBytes(kept))
	}
	t.Logf("model %s, kept %s", experiments.FormatBytes(model), experiments.FormatBytes(kept))
}
