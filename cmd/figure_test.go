package cmd

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
