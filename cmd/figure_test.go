package cmd

import (
	"context"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/fedcon/fedcon/experiments"
)

// TestRenderFigureTitleWidth: a one-panel figure (conic-figure2 in the
// quick run) widens to its title instead of clipping it; three panels keep
// their 3 × 4.2 in.
func TestRenderFigureTitleWidth(t *testing.T) {
	panel := experiments.Panel{Title: "n = 5", Series: []experiments.Series{{Name: "loss", X: []float64{1, 2}, Y: []float64{0.7, 0.6}}}}
	title := "Conic paper, " + strings.Repeat("a long title ", 8)
	for _, tc := range []struct {
		panels  int
		minPx   int // 110 dpi
		exactPx int
	}{{1, 700, 0}, {3, 0, 1386}} {
		fig := &experiments.Figure{Title: title}
		for range tc.panels {
			fig.Panels = append(fig.Panels, panel)
		}
		base := filepath.Join(t.TempDir(), "fig")
		if _, err := renderFigure(fig, base); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(base + ".png")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Width < tc.minPx || tc.exactPx > 0 && cfg.Width != tc.exactPx {
			t.Errorf("%d panels: width %d px, want >= %d (exactly %d if set)", tc.panels, cfg.Width, tc.minPx, tc.exactPx)
		}
	}
}

// TestIntTicks: an iteration axis gets whole-number major ticks only.
func TestIntTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 3}, {0, 15}, {1, 100}, {0, 1}, {2, 2.5}} {
		majors := 0
		for _, tk := range (intTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			majors++
			if tk.Value != math.Trunc(tk.Value) || strings.Contains(tk.Label, ".") {
				t.Errorf("range %v: tick %v %q", r, tk.Value, tk.Label)
			}
		}
		if majors == 0 && r[1]-r[0] >= 1 {
			t.Errorf("range %v: no major tick", r)
		}
	}
}

// Every tick has a label; at most 7 linear ticks (as many as fit) at a 1, 2, 2.5 or 5 step;
// whole numbers only on an integer axis; 1-2-5 on a log axis.
func TestTicks(t *testing.T) {
	tests := []struct {
		name   string
		marker plot.Ticker
		lo, hi float64
		want   string // labels, space-separated
	}{
		{"breast-cancer losses", niceTicks{}, 0, 0.28, "0.00 0.05 0.10 0.15 0.20 0.25"},
		{"losses to 1", niceTicks{}, 0, 0.95, "0.0 0.2 0.4 0.6 0.8"},
		{"MSE", niceTicks{}, 0, 110, "0 20 40 60 80 100"},
		{"MSE to 74", niceTicks{}, 0, 74, "0 20 40 60"},
		{"negative", niceTicks{}, -7.5, -0.4, "-7 -6 -5 -4 -3 -2 -1"},
		{"accuracy", niceTicks{}, 0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{"iterations 1-46", intTicks{}, 1, 46, "10 20 30 40"},
		{"iterations 1-12", intTicks{}, 1, 12, "2 4 6 8 10 12"},
		{"iterations 1-4", intTicks{}, 1, 4, "1 2 3 4"},
		{"iterations 1-2", intTicks{}, 1, 2, "1 2"},
		{"log cost", logTicks125{}, 0.4, 6, "0.5 1 2 5"},
		{"log many decades", logTicks125{}, 0.3, 20000, "1 10 100 1000 1e4"},
		{"log norms", logTicks125{}, 3, 5e8, "10 100 1000 1e4 1e5 1e6 1e7 1e8"},
		{"log small", logTicks125{}, 1e-5, 0.003, "1e-5 2e-5 5e-5 1e-4 2e-4 5e-4 0.001 0.002"},
		{"log one decade", logTicks125{}, 0.004, 0.06, "0.005 0.01 0.02 0.05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var labels []string
			for _, tk := range tt.marker.Ticks(tt.lo, tt.hi) {
				if tk.Label == "" {
					t.Errorf("tick at %g has no label", tk.Value)
				}
				labels = append(labels, tk.Label)
			}
			if got := strings.Join(labels, " "); got != tt.want {
				t.Errorf("ticks on [%g, %g] = %q, want %q", tt.lo, tt.hi, got, tt.want)
			}
		})
	}
}

// Axes fit the data: an accuracy panel is [0, 1], a log panel keeps its
// spike (no curve is clipped), a linear one starts at 0 or below.
func TestPanelAxes(t *testing.T) {
	curve := func(ys ...float64) experiments.Series {
		s := experiments.Series{Name: "c"}
		for i, y := range ys {
			s.X, s.Y = append(s.X, float64(i+1)), append(s.Y, y)
		}
		return s
	}
	tests := []struct {
		name       string
		pn         experiments.Panel
		wantMin    float64
		wantMaxMin float64 // the axis reaches at least this
		wantMaxMax float64 // and at most this
	}{
		{"accuracy", experiments.Panel{YUnit: true, Series: []experiments.Series{curve(0.1, 0.6, 0.8)}}, 0, 1, 1},
		{"log with a spike", experiments.Panel{YLog: true, Series: []experiments.Series{curve(2.3, 35, 1.1, 0.9)}}, 0, 35, math.Inf(1)},
		{"linear", experiments.Panel{Series: []experiments.Series{curve(0.05, 0.15, 0.2)}}, 0, 0.2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := panelPlot(tt.pn)
			if err != nil {
				t.Fatal(err)
			}
			if p.Y.Min < tt.wantMin || p.Y.Min > 0.9 || p.Y.Max < tt.wantMaxMin || p.Y.Max > tt.wantMaxMax {
				t.Errorf("y axis [%g, %g]", p.Y.Min, p.Y.Max)
			}
		})
	}
}

// TestFigureManifestTrials: a figure runs one trial per data set, and its
// manifest and result record trials: 1, whatever the preset says.
func TestFigureManifestTrials(t *testing.T) {
	data := "../../shared/datasets"
	if _, err := os.Stat(data); err != nil {
		t.Skip("needs ../shared/datasets")
	}
	dir := t.TempDir()
	f, _, errOut := testFactory()
	if code := run(context.Background(), f, []string{"reproduce", "figure1", "--clients", "2", "--data-dir", data, "--out", dir, "--quiet"}); code != 0 {
		t.Fatalf("exit %d (%s)", code, errOut)
	}
	for _, file := range []string{"manifest.json", "figure1.json"} {
		var m struct {
			Config struct {
				Trials int `json:"trials"`
			} `json:"config"`
			Run *struct {
				Config struct {
					Trials int `json:"trials"`
				} `json:"config"`
			} `json:"run"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "figure1", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		got := m.Config.Trials
		if m.Run != nil {
			got = m.Run.Config.Trials
		}
		if got != 1 {
			t.Errorf("%s records trials: %d, the figure ran 1", file, got)
		}
	}
}

// TestPanelLogBandBelowZero: a log panel whose band's lower edge (mean −
// std) is ≤ 0 while the curves are positive stays on a log axis (a linear
// one flattens everything but the spike); the band runs to the axis'
// bottom, no curve or band top is clipped, and a spike at the left does not
// take the legend's headroom (the axis ends within a decade of it).
func TestPanelLogBandBelowZero(t *testing.T) {
	s := experiments.Series{Name: "Alg. 1 B=100"}
	for i, y := range []float64{2.3, 12000, 40, 1.5, 1.4, 1.37} {
		s.X, s.Y = append(s.X, float64(1+20*i)), append(s.Y, y)
		sd := 0.3
		if i == 1 {
			sd = 50000 // a few runs blow up: std ≫ mean
		}
		s.Lo, s.Hi = append(s.Lo, y-sd), append(s.Hi, y+sd)
	}
	q := experiments.Series{Name: "FedAvg B=100 E=1", Color: 1, Dash: "dash"}
	for i, y := range []float64{2.3, 1.2, 0.9, 0.7, 0.65, 0.6} {
		q.X, q.Y = append(q.X, float64(1+20*i)), append(q.Y, y)
		q.Lo, q.Hi = append(q.Lo, y-0.05), append(q.Hi, y+0.05)
	}
	p, err := panelPlot(experiments.Panel{YLog: true, Series: []experiments.Series{s, q}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Y.Scale.(plot.LogScale); !ok {
		t.Fatalf("y scale %T, want plot.LogScale", p.Y.Scale)
	}
	if !(p.Y.Min > 0 && p.Y.Min <= 0.55/1.5+1e-12) || p.Y.Max < 62000 || p.Y.Max > 620000 {
		t.Errorf("y axis [%g, %g], want (0, %g] to [62000, 620000]", p.Y.Min, p.Y.Max, 0.55/1.5)
	}
}

// TestLegendAtDataTop: a log panel's top legend starts at the top of its
// data area, not above it (gonum/plot shrinks a log panel's data area from
// the top for its centred y label), and a linear panel's stays within a
// tick label's height of where it was.
func TestLegendAtDataTop(t *testing.T) {
	s := experiments.Series{Name: "Alg. 1 B=100", X: []float64{1, 7, 50, 100}, Y: []float64{2.3, 12000, 1.6, 1.4}}
	for _, log := range []bool{true, false} {
		p, err := panelPlot(experiments.Panel{Title: "(a) training cost", YLabel: "training cost F(w)", XLabel: "iteration t", YLog: log, Series: []experiments.Series{s}})
		if err != nil {
			t.Fatal(err)
		}
		c := draw.New(vgimg.New(4*vg.Inch, 3.6*vg.Inch))
		legendAtDataTop(p, c)
		top := c.Max.Y - p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y - p.Title.Padding
		if got, want := top+p.Legend.YOffs, p.DataCanvas(c).Max.Y; math.Abs(float64(got-want)) > 1e-9 || p.Legend.YOffs > 0 {
			t.Errorf("log %v: legend top %v, data area top %v (offset %v)", log, got, want, p.Legend.YOffs)
		}
		if log && p.Legend.YOffs > -vg.Points(20) {
			t.Errorf("log panel: legend offset %v, want the label's spurious padding (> 20 pt) removed", p.Legend.YOffs)
		}
	}
}

// TestPanelTitlesAligned: the titles of a row's panels share one height
// even when one panel has a log axis (plot.Align stretches its canvas
// above the tile), and a series' point labels and markers are drawn.
func TestPanelTitlesAligned(t *testing.T) {
	s := experiments.Series{Name: "Alg. 2", X: []float64{0.52, 0.545, 0.66, 1.5}, Y: []float64{51, 40, 23, 3.2},
		Marker: "ring", Labels: []string{"U=0.4", "U=0.5", "U=0.6", "U=1.5"}}
	fig := &experiments.Figure{Title: "Figure", Panels: []experiments.Panel{
		{Title: "(a) norm vs cost", YLabel: "‖w‖² (log scale)", XLabel: "cost", YLog: true, Series: []experiments.Series{s}},
		{Title: "(b) accuracy", YLabel: "accuracy", XLabel: "U", YUnit: true, Series: []experiments.Series{{Name: "Alg. 2", X: []float64{0.4, 1.5}, Y: []float64{0.8, 0.55}, Marker: "cross", Dash: "dash"}}},
	}}
	base := filepath.Join(t.TempDir(), "fig")
	if _, err := renderFigure(fig, base); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	// vgsvg writes <text x=".." y=".." ...\n\tstyle="...">content</text>.
	ys := map[string]string{}
	for _, m := range regexp.MustCompile(`<text x="[^"]*" y="([^"]*)"[^>]*\n?[^>]*>([^<]*)</text>`).FindAllStringSubmatch(string(b), -1) {
		ys[m[2]] = m[1]
	}
	for _, want := range []string{"(a) norm vs cost", "(b) accuracy", "U=0.4", "U=0.5", "U=1.5"} {
		if _, ok := ys[want]; !ok {
			t.Fatalf("no text %q in the SVG", want)
		}
	}
	ya, _ := strconv.ParseFloat(ys["(a) norm vs cost"], 64)
	yb, _ := strconv.ParseFloat(ys["(b) accuracy"], 64)
	if math.Abs(ya-yb) > 1 {
		t.Errorf("panel titles at y %v and %v, want one height (within 1 pt)", ya, yb)
	}
	// U=0.5's point is within 6 % of U=0.4's: its label goes below, the
	// other above (SVG y is negated: larger is lower on the page).
	if ys["U=0.5"] == ys["U=0.4"] {
		t.Errorf("crowded labels U=0.4 and U=0.5 both at y %s", ys["U=0.4"])
	}
	if _, err := panelPlot(experiments.Panel{Series: []experiments.Series{{Name: "x", X: []float64{1}, Y: []float64{1}, Marker: "star"}}}); err == nil {
		t.Error("unknown marker accepted")
	}
}
