package proxal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
)

// TestBuiltinShapes: the cost model's sizes are the pipelines' own.
func TestBuiltinShapes(t *testing.T) {
	dir := os.Getenv("FEDCON_DATA_DIR")
	if _, err := os.Stat(filepath.Join(dir, "adult", "adult.data")); dir == "" || err != nil {
		t.Skip("FEDCON_DATA_DIR does not hold the raw data files")
	}
	for name, want := range builtinShapes {
		ds, err := datasets.Load(name, []string{dir})
		if err != nil {
			t.Fatal(err)
		}
		rows := ds.Rows()
		if ds.Server != nil {
			rows += ds.Server.Rows()
		}
		if got := [2]float64{float64(rows), float64(ds.X.RawMatrix().Cols)}; got != want {
			t.Errorf("%s: %v rows and columns, the model says %v", name, got, want)
		}
	}
}

// TestClassCost: the model grows with the work asked for, and a typo-sized
// run is refused by its estimate.
func TestClassCost(t *testing.T) {
	base := &NPConfig{TrialConfig: experiments.TrialConfig{Trials: 10}, Datasets: []string{"adult-a"}, Clients: []int{10}}
	c := base.Cost(2)
	if c.Bytes <= 24*32561*109 || c.Seconds <= 0 || c.Model == "" {
		t.Fatalf("cost %+v", c)
	}
	huge := *base
	huge.Trials = 100000
	if h := huge.Cost(2); h.Seconds < 2*3600*2 {
		t.Errorf("100,000 adult-a trials estimated at %.0f s", h.Seconds)
	}
	more := *base
	more.Clients = []int{10, 20}
	if m := more.Cost(2); m.Seconds <= 2*c.Seconds || m.Bytes <= c.Bytes {
		t.Errorf("cells n = 10, 20 %+v vs n = 10 alone %+v: want more than twice the time (per-client work) and more memory", m, c)
	}
	// Within 4x of the CPU measured per adult-a trial (both algorithms,
	// 10 trials per n, the presets): the model's constants say where they
	// come from (cost.go).
	for _, m := range []struct {
		n   int
		cpu float64
	}{{50, 2.5}, {100, 3.0}, {200, 10.4}, {500, 24.7}} {
		one := *base
		one.Trials, one.Clients = 1, []int{m.n}
		if e := one.Cost(1).Seconds; e < m.cpu/4 || e > 4*m.cpu {
			t.Errorf("adult-a n = %d: estimate %.1f s, measured %.1f s of CPU", m.n, e, m.cpu)
		}
	}
	// A user's file: bounded by its size.
	f := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(f, make([]byte, 2_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	own := &FairConfig{TrialConfig: experiments.TrialConfig{Trials: 1}, Data: &DataSource{File: f}, Clients: []int{5}}
	if o := own.Cost(1); o.Bytes < 24*1e6 {
		t.Errorf("a 2 MB file modelled at %.0f bytes", o.Bytes)
	}
}
