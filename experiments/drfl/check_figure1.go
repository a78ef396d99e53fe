package drfl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fedcon/fedcon/experiments"
)

// The gate's recomputation of DRFL Figure 1 (coverage and volume, no fit):
// the samples are drawn again with the run's own draws (fig1Empirical,
// fig1Random) from the recorded seed, as the noise figures draw their split
// again; the distances, the smallest grid radius of each level, the
// volumes and the coverage curve in figure1.csv are recomputed by the
// plain loops below, which share nothing with the run's W1Line,
// smallestRho or coverageAt.

// fig1Agree bounds a recomputed Wasserstein distance's disagreement with
// the stored one: sums of at most three cumulative masses of at most 1
// (a few ulps).
const fig1Agree = 1e-12

// drflFigure1File is what the gate reads of Figure 1's result file.
type drflFigure1File struct {
	Config     *Figure1Config `json:"config"`
	DistDRFL   []float64      `json:"dist_drfl"`
	DistWAFL   []float64      `json:"dist_wafl"`
	Levels     []float64      `json:"levels"`
	RhoDRFL    []float64      `json:"rho_drfl"`
	RhoWAFL    []float64      `json:"rho_wafl"`
	VolumeDRFL []float64      `json:"volume_drfl"`
	VolumeWAFL []float64      `json:"volume_wafl"`
}

// fig1Masses is a distribution's masses on the points 0, 1, 2, 3 of the
// example's line.
type fig1Masses [4]float64

// plainW1 is ∫|F − G| on the line, unit spacing: Σ_k |F(k) − G(k)|.
func plainW1(a, b fig1Masses) float64 {
	var fa, fb, w float64
	for k := range 3 {
		fa += a[k]
		fb += b[k]
		w += math.Abs(fa - fb)
	}
	return w
}

// plainDistances is DRFL's max_s W(P_s, R_s), each client's masses on
// its own three points, and WAFL's W(Σ q_s P_s, Σ q_s R_s).
func plainDistances(p, r fig1Dist) (drfl, wafl float64) {
	var ap, ar fig1Masses
	for s := range 2 {
		var ps, rs fig1Masses
		for i := range 3 {
			x := int(fig1Support[s][i])
			ps[x], rs[x] = p.p[s][i], r.p[s][i]
			ap[x] += p.q[s] * p.p[s][i]
			ar[x] += r.q[s] * r.p[s][i]
		}
		drfl = math.Max(drfl, plainW1(ps, rs))
	}
	return drfl, plainW1(ap, ar)
}

// countAtMost is how many of xs are <= t.
func countAtMost(xs []float64, t float64) int {
	n := 0
	for _, x := range xs {
		if x <= t {
			n++
		}
	}
	return n
}

// genericDRFLFigure1 is the "figure recomputed" row of DRFL Figure 1's
// result; other results: none.
func genericDRFLFigure1(in experiments.VerifyInput) []experiments.CheckRow {
	var f drflFigure1File
	if json.Unmarshal(in.Result, &f) != nil || f.Config == nil || f.DistDRFL == nil {
		return nil
	}
	var v experiments.Verifier
	recheckFigure1(&f, in.Dir, &v)
	cfg := f.Config
	return []experiments.CheckRow{v.Row(in.Name, "figure recomputed", fmt.Sprintf("%d runs' distances and %d draws recomputed from seed %d (plain Wasserstein sums, within %g); "+
		"each level's radius the smallest grid ρ whose coverage of the stored distances reaches it; the volumes and figure1.csv's coverage curve recomputed", cfg.Runs, cfg.Draws, cfg.Seed, fig1Agree))}
}

// recheckFigure1 records in v what in f (and dir/figure1.csv) disagrees
// with its recomputation.
func recheckFigure1(f *drflFigure1File, dir string, v *experiments.Verifier) {
	cfg := *f.Config
	if err := cfg.Validate(); err != nil {
		v.Fail("configuration: %v", err)
		return
	}
	if len(f.DistDRFL) != cfg.Runs || len(f.DistWAFL) != cfg.Runs {
		v.Fail("%d and %d distances, the configuration has %d runs", len(f.DistDRFL), len(f.DistWAFL), cfg.Runs)
		return
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, fig1Stream))
	truth := fig1Dist{q: fig1Q, p: fig1P}
	for r := range cfg.Runs {
		a, b := plainDistances(truth, fig1Empirical(rng, cfg.Samples))
		if math.Abs(f.DistDRFL[r]-a) > fig1Agree || math.Abs(f.DistWAFL[r]-b) > fig1Agree {
			v.Fail("run %d: distances %.12g (DRFL), %.12g (WAFL); recomputed from the seed %.12g, %.12g", r+1, f.DistDRFL[r], f.DistWAFL[r], a, b)
			return
		}
	}
	fixed := fig1Empirical(rng, cfg.Samples)
	draws := make([][2]float64, cfg.Draws)
	for k := range draws {
		a, b := plainDistances(fig1Random(rng), fixed)
		draws[k] = [2]float64{a, b}
	}
	const levels = 19 // 0.10, 0.15, ..., 1.00
	if len(f.Levels) != levels || len(f.RhoDRFL) != levels || len(f.RhoWAFL) != levels || len(f.VolumeDRFL) != levels || len(f.VolumeWAFL) != levels {
		v.Fail("%d levels, %d and %d radii, %d and %d volumes; want %d of each", len(f.Levels), len(f.RhoDRFL), len(f.RhoWAFL), len(f.VolumeDRFL), len(f.VolumeWAFL), levels)
		return
	}
	for i, level := range f.Levels {
		if want := float64(10+5*i) / 100; level != want {
			v.Fail("level %d is %g, want %g", i+1, level, want)
			continue
		}
		for _, m := range []struct {
			name   string
			dists  []float64
			rho    float64
			volume float64
			col    int
		}{{"DRFL", f.DistDRFL, f.RhoDRFL[i], f.VolumeDRFL[i], 0}, {"WAFL", f.DistWAFL, f.RhoWAFL[i], f.VolumeWAFL[i], 1}} {
			if msg := gridRadiusMessage(m.dists, level, m.rho, cfg.RhoStep); msg != "" {
				v.Fail("level %.2f %s: %s", level, m.name, msg)
				continue
			}
			// A draw within rounding of ρ may fall on either side.
			lo, hi := 0, 0
			for _, d := range draws {
				if d[m.col] <= m.rho-fig1Agree {
					lo++
				}
				if d[m.col] <= m.rho+fig1Agree {
					hi++
				}
			}
			if n := m.volume * float64(cfg.Draws); n < float64(lo)-0.5 || n > float64(hi)+0.5 {
				v.Fail("level %.2f %s: volume %g; recomputed %g of the %d draws", level, m.name, m.volume, float64(lo)/float64(cfg.Draws), cfg.Draws)
			}
		}
	}
	if msg := figure1CSVMessage(f, filepath.Join(dir, "figure1.csv")); msg != "" {
		v.Fail("figure1.csv: %s", msg)
	}
}

// gridRadiusMessage checks that rho is the smallest ρ = k·step (k >= 1)
// at which at least level of dists are <= ρ ("" when it is).
func gridRadiusMessage(dists []float64, level, rho, step float64) string {
	k := math.Round(rho / step)
	need := level*float64(len(dists)) - 1e-9
	switch {
	case k < 1 || math.Abs(k*step-rho) > 1e-12*rho:
		return fmt.Sprintf("radius %g is not on the grid of step %g", rho, step)
	case float64(countAtMost(dists, rho)) < need:
		return fmt.Sprintf("radius %g covers %d of %d runs, below the level", rho, countAtMost(dists, rho), len(dists))
	case k > 1 && float64(countAtMost(dists, (k-1)*step)) >= need:
		return fmt.Sprintf("radius %g is not the smallest: %g covers the level", rho, (k-1)*step)
	}
	return ""
}

// figure1CSVMessage checks the CSV beside the result: its volume table
// equals the stored levels, radii and volumes, and each line of its
// coverage curve (ρ = k·step, k = 1, 2, ... up to 1.2 times the largest
// distance or rho_max) has the share of the stored distances <= ρ.
func figure1CSVMessage(f *drflFigure1File, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	parts := strings.SplitN(string(b), "\n\n", 2)
	if len(parts) != 2 {
		return "not a volume table and a coverage curve"
	}
	table, err := csvFloats(parts[0], "level,rho_drfl,rho_wafl,volume_drfl,volume_wafl", 5)
	if err != nil {
		return err.Error()
	}
	if len(table) != len(f.Levels) {
		return fmt.Sprintf("%d levels, the result has %d", len(table), len(f.Levels))
	}
	for i, row := range table {
		want := []float64{f.Levels[i], f.RhoDRFL[i], f.RhoWAFL[i], f.VolumeDRFL[i], f.VolumeWAFL[i]}
		for j := range row {
			if math.Abs(row[j]-want[j]) > 1e-9*math.Max(1, math.Abs(want[j])) { // the level is printed to 2 decimals
				return fmt.Sprintf("volume table line %d column %d is %g, the result's %g", i+1, j+1, row[j], want[j])
			}
		}
	}
	curve, err := csvFloats(parts[1], "rho,coverage_drfl,coverage_wafl", 3)
	if err != nil {
		return err.Error()
	}
	cfg := f.Config
	top := math.Min(cfg.RhoMax, 1.2*math.Max(slices.Max(f.DistDRFL), slices.Max(f.DistWAFL)))
	if want := int(math.Round(top / cfg.RhoStep)); len(curve) != want {
		return fmt.Sprintf("%d coverage points, want %d (grid up to %g)", len(curve), want, top)
	}
	runs := float64(len(f.DistDRFL))
	for k, row := range curve {
		rho := float64(k+1) * cfg.RhoStep
		if math.Abs(row[0]-rho) > 1e-12*rho {
			return fmt.Sprintf("coverage line %d: ρ %g, want %g", k+1, row[0], rho)
		}
		// A distance within rounding of the printed ρ may count either way.
		for j, d := range [][]float64{f.DistDRFL, f.DistWAFL} {
			lo, hi := float64(countAtMost(d, row[0]-fig1Agree))/runs, float64(countAtMost(d, row[0]+fig1Agree))/runs
			if row[1+j] < lo || row[1+j] > hi {
				return fmt.Sprintf("coverage line %d (ρ = %g): %g, recomputed %g", k+1, row[0], row[1+j], float64(countAtMost(d, row[0]))/runs)
			}
		}
	}
	return ""
}

// csvFloats parses a CSV section with header header and cols numbers a line.
func csvFloats(section, header string, cols int) ([][]float64, error) {
	sc := bufio.NewScanner(bytes.NewBufferString(strings.TrimSpace(section)))
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() || sc.Text() != header {
		return nil, fmt.Errorf("no header %q", header)
	}
	var out [][]float64
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		if len(f) != cols {
			return nil, fmt.Errorf("line %q: want %d columns", sc.Text(), cols)
		}
		row := make([]float64, cols)
		for j, s := range f {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("line %q: %w", sc.Text(), err)
			}
			row[j] = x
		}
		out = append(out, row)
	}
	return out, sc.Err()
}

func init() { experiments.RegisterGenericCheck(genericDRFLFigure1) }
