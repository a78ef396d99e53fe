package drfl

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// transportLP returns min Σ π_ij |x_i − x_j| over couplings π ≥ 0 with
// marginals p and q (lp.Simplex).
func transportLP(t *testing.T, xs, p, q []float64) float64 {
	n := len(xs)
	c := make([]float64, n*n)
	A := mat.NewDense(2*n-1, n*n, nil) // one marginal row is redundant
	b := make([]float64, 2*n-1)
	for i := range n {
		for j := range n {
			c[i*n+j] = math.Abs(xs[i] - xs[j])
			A.Set(i, i*n+j, 1)
			if j < n-1 {
				A.Set(n+j, i*n+j, 1)
			}
		}
		b[i] = p[i]
		if i < n-1 {
			b[n+i] = q[i]
		}
	}
	opt, _, err := lp.Simplex(c, A, b, 1e-12, nil)
	if err != nil {
		t.Fatal(err)
	}
	return opt
}

// TestW1LineIsTransportLP: ∫|F − G| equals the optimal transport LP.
func TestW1LineIsTransportLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := range 40 {
		n := 2 + trial%4
		xs := make([]float64, n)
		for i := 1; i < n; i++ {
			xs[i] = xs[i-1] + 0.1 + rng.Float64()
		}
		p, q := make([]float64, n), make([]float64, n)
		var sp, sq float64
		for i := range n {
			p[i], q[i] = 0.01+rng.Float64(), 0.01+rng.Float64()
			sp += p[i]
			sq += q[i]
		}
		for i := range n {
			p[i] /= sp
			q[i] /= sq
		}
		// 1e-9: the simplex's tolerance on a problem of a few variables.
		if w, l := W1Line(xs, p, q), transportLP(t, xs, p, q); math.Abs(w-l) > 1e-9 {
			t.Fatalf("xs %v p %v q %v: W1Line %v, LP %v", xs, p, q, w, l)
		}
	}
}

// TestDRFLFigure1Small: coverage rises to 1, levels map to increasing
// radii, and volumes are shares in [0, 1], monotone in the level.
func TestDRFLFigure1Small(t *testing.T) {
	cfg := Figure1Config{Seed: 3, Runs: 30, Samples: 500, RhoStep: 1e-4, RhoMax: 0.5, Draws: 2000}
	f, err := RunFigure1(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cov := f.Figure.Panels[0].Series
	for _, s := range cov {
		if s.Y[len(s.Y)-1] != 1 {
			t.Errorf("%s coverage ends at %v", s.Name, s.Y[len(s.Y)-1])
		}
	}
	for i := 1; i < len(f.Levels); i++ {
		if f.RhoDRFL[i] < f.RhoDRFL[i-1] || f.VolumeWAFL[i] < f.VolumeWAFL[i-1] || f.VolumeDRFL[i] < f.VolumeDRFL[i-1] {
			t.Fatalf("not monotone at level %v", f.Levels[i])
		}
	}
	if _, err := RunFigure1(Figure1Config{Runs: 0}); err == nil {
		t.Error("runs = 0 accepted")
	}
	// Coverage is a share: its axis is [0, 1]. The JSON names the figure
	// and says what its curves are, as the report's caption reads them.
	if !f.Figure.Panels[0].YUnit {
		t.Error("coverage panel: y axis not [0, 1]")
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Figure struct{ Title, Caption string } `json:"figure"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Figure.Title != f.Figure.Title || !strings.Contains(doc.Figure.Caption, "30 runs (500 samples each)") {
		t.Errorf("JSON figure label %+v", doc.Figure)
	}
}
