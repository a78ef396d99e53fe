package proxal

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/recheck"
)

// optimumMaxClients is the largest client count whose cells the gate
// solves independently (Table 1 and conic Table 2 have no other).
const optimumMaxClients = 20

// optimumMaxEntries bounds a cell's rows × features for the independent
// solve, whose Newton steps cost about that much each: adult-a has 3.5e6
// (about 2 s of CPU a cell); a larger data set of one's own is named as
// skipped rather than costing the gate minutes.
const optimumMaxEntries = 1e7

// WithNPOptimum adds the "objective vs independent optimum" row
// (verifyOptimum) to the checks of a Neyman-Pearson table of cfg, its data
// sets searched on dirs.
func WithNPOptimum(k experiments.VerifyKind[ClassRow, ClassTrial], name string, cfg *NPConfig, dirs []string) experiments.VerifyKind[ClassRow, ClassTrial] {
	extra := k.Extra
	k.Extra = func(cells []experiments.VerifyCell, byCell map[string][]ClassTrial, rows []ClassRow) []experiments.CheckRow {
		var out []experiments.CheckRow
		if extra != nil {
			out = extra(cells, byCell, rows)
		}
		return append(out, verifyOptimum(name, cells, byCell, npPoints(cfg, dirs)))
	}
	return k
}

// OptimumBand is the band in which a run's stored objective f must lie
// around an independent solve's f(W) (recheck.NPRef), from the run's
// stored w, μ and KKT residuals (ε1, ε2) = (stat, feas), d features:
//
//	f − f(W) <= √d·stat·||w − W||₂ + ||μ||₁·feas           (W feasible, convexity)
//	f(W) − f <= ||μ_W||₁·feas + Gap + Grad·||w − W||₂     (Lagrangian at μ_W)
//
// feas bounds max_i c_i(w)₊ (Definition 1). Each side is widened by the
// rounding of the terms it trusts: the residuals' (recheck.Gamma times
// their scales statScale and feasScale, as the certificate rule allows)
// and the objectives' (Gamma·(1 + |f| + |f(W)|)).
type OptimumBand struct {
	Up, Down float64 // the bounds on f − f(W) and f(W) − f, with their slack
}

// NPOptimumBand is OptimumBand for a run at (w, μ) with the stored
// objective and residuals; statScale and feasScale are recheck.KKT's at
// (w, μ).
func NPOptimumBand(ref *recheck.NPRef, w []float64, mu [][]float64, objective, stat, feas, statScale, feasScale float64) OptimumBand {
	var dist2, mu1, refMu1 float64
	for j, x := range w {
		dist2 += (x - ref.W[j]) * (x - ref.W[j])
	}
	for _, m := range mu {
		for _, x := range m {
			mu1 += math.Abs(x)
		}
	}
	for _, x := range ref.Mu {
		refMu1 += x
	}
	dist, sd := math.Sqrt(dist2), math.Sqrt(float64(len(w)))
	objSlack := recheck.Gamma * (1 + math.Abs(objective) + math.Abs(ref.F))
	feasSlack := recheck.Gamma * feasScale
	return OptimumBand{
		Up:   sd*stat*dist + mu1*feas + sd*dist*recheck.Gamma*(1+statScale) + mu1*feasSlack + objSlack,
		Down: refMu1*feas + ref.Gap + ref.Grad*dist + refMu1*feasSlack + objSlack,
	}
}

// Message is what disagrees ("" when nothing): f outside [f(W) − Down,
// f(W) + Up].
func (b OptimumBand) Message(objective, fref float64) string {
	if diff := objective - fref; diff > b.Up || -diff > b.Down {
		return fmt.Sprintf("objective %.12g, the independent optimum %.12g: f − f* = %.3g outside its band [−%.3g, %.3g]", objective, fref, diff, b.Down, b.Up)
	}
	return ""
}

// verifyOptimum is the check row of the independent optimum of a
// Neyman-Pearson table: each cell with at most optimumMaxClients clients
// and optimumMaxEntries rows × features solved by recheck.NPReference on
// the partition the run used, and every run's stored objective within its
// OptimumBand of it.
func verifyOptimum(name string, cells []experiments.VerifyCell, byCell map[string][]ClassTrial, build pointFunc) experiments.CheckRow {
	var v experiments.Verifier
	var skipped []string
	runs, solved, old := 0, 0, 0
	worst, ratio := 0.0, 0.0
	for _, c := range cells {
		trials := byCell[c.Key]
		if len(trials) == 0 {
			continue
		}
		if c.N > optimumMaxClients {
			skipped = append(skipped, fmt.Sprintf("%s (more than %d clients)", c.Label, optimumMaxClients))
			continue
		}
		pc, err := build(c)
		if err != nil {
			v.Fail("%s: %v", c.Label, err)
			continue
		}
		if pc.np == nil || len(pc.np.parts) != pc.np.n {
			skipped = append(skipped, fmt.Sprintf("%s (not a partition into n clients)", c.Label))
			continue
		}
		if e := pc.np.entries(pc.d); e > optimumMaxEntries {
			skipped = append(skipped, fmt.Sprintf("%s (%.3g rows × features, more than %.0e)", c.Label, e, optimumMaxEntries))
			continue
		}
		if !slices.ContainsFunc(trials, func(t ClassTrial) bool { return len(t.Alg1.W) == pc.d || len(t.CProx.W) == pc.d }) {
			old += 2 * len(trials) // nothing to measure: no solve
			continue
		}
		ref, err := pc.np.reference(pc.d)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s (%v)", c.Label, err))
			continue
		}
		solved++
		for _, t := range trials {
			for _, a := range []struct {
				name string
				alg  *ClassAlg
			}{{"Algorithm 1", &t.Alg1}, {"cProx-AL", &t.CProx}} {
				if len(a.alg.W) != pc.d {
					old++ // the certificate rule names it
					continue
				}
				parties, _, _ := pc.eval(a.alg.W)
				_, _, statScale, feasScale, err := recheck.KKT(parties, a.alg.Mu)
				if err != nil {
					v.Fail("%s trial %d %s: %v", c.Label, t.Trial, a.name, err)
					continue
				}
				runs++
				st, fe := a.alg.Residuals.Stationarity, a.alg.Residuals.Feasibility
				b := NPOptimumBand(ref, a.alg.W, a.alg.Mu, a.alg.Objective, st, fe, statScale, feasScale)
				if msg := b.Message(a.alg.Objective, ref.F); msg != "" {
					v.Fail("%s trial %d %s: %s", c.Label, t.Trial, a.name, msg)
				}
				diff := a.alg.Objective - ref.F
				worst = math.Max(worst, math.Abs(diff))
				if diff >= 0 {
					ratio = math.Max(ratio, diff/b.Up)
				} else {
					ratio = math.Max(ratio, -diff/b.Down)
				}
			}
		}
	}
	ok := fmt.Sprintf("%d runs in %d cells: the stored objective within its band around an independent barrier solve f* of the cell's partition "+
		"(f − f* <= √d·ε1·||w − w*||₂ + ||μ||₁·ε2 and f* − f <= ||μ*||₁·ε2 + gap + ||∇L(w*, μ*)||₂·||w − w*||₂ at the stored residuals); largest |f − f*| %.2g, at most %.2g of its band", runs, solved, worst, ratio)
	if old > 0 {
		ok += fmt.Sprintf("; %d runs without a stored w not checked", old)
	}
	if len(skipped) > 0 {
		ok += "; skipped: " + strings.Join(skipped, ", ")
	}
	return v.Row(name, "objective vs independent optimum", ok)
}

// entries is the cell's rows times d.
func (r *npRows) entries(d int) float64 {
	var rows int
	for _, p := range r.parts {
		rows += len(p[0]) + len(p[1])
	}
	return float64(rows) * float64(d)
}

// npRefs memoises recheck.NPReference by the SHA-256 of what it solves:
// the gate meets the same partition in several experiments (Table 1,
// conic Table 2 and Figure 1 split the same data with the same seed), and
// solves it once per process.
var npRefs sync.Map // [sha256.Size]byte -> npRefResult

type npRefResult struct {
	ref *recheck.NPRef
	err error
}

// reference is recheck.NPReference of the cell, memoised in npRefs.
func (r *npRows) reference(d int) (*recheck.NPRef, error) {
	h := sha256.New()
	word := func(x uint64) { _ = binary.Write(h, binary.LittleEndian, x) }
	word(uint64(r.n))
	word(math.Float64bits(r.r))
	word(uint64(d))
	word(uint64(len(r.parts)))
	for _, p := range r.parts {
		for _, rows := range p {
			word(uint64(len(rows)))
			for _, row := range rows {
				word(uint64(len(row)))
				_ = binary.Write(h, binary.LittleEndian, row)
			}
		}
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	if v, ok := npRefs.Load(key); ok {
		res := v.(npRefResult)
		return res.ref, res.err
	}
	ref, err := recheck.NPReference(r.parts, r.n, r.r, d)
	npRefs.Store(key, npRefResult{ref, err})
	return ref, err
}
