package proxal

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/recheck"
)

// optimumMaxClients is the largest client count whose cells the gate
// solves independently (the n <= 20 cells; Table 1 has no other).
const optimumMaxClients = 20

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
// solved by recheck.NPReference on the partition the run used, and every
// run's stored objective within its OptimumBand of it.
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
		ref, err := recheck.NPReference(pc.np.parts, pc.np.n, pc.np.r, pc.d)
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
