package conic

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/internal/recheck"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// CheckTable1 checks a conic-table1 result file (the QP of the conic
// paper's eq. (25)) with configs/reference/conic-table1.yaml.
func CheckTable1(resultJSON []byte) ([]experiments.CheckRow, error) {
	b, err := configs.Reference("conic-table1")
	if err != nil {
		return nil, err
	}
	return checkConicQPWith(b, resultJSON)
}

// CheckTable2 checks a conic-table2 result file (Neyman-Pearson,
// eq. (26)) with configs/reference/conic-table2.yaml.
func CheckTable2(resultJSON []byte) ([]experiments.CheckRow, error) {
	return proxal.CheckClass("conic-table2", "conic-table2", resultJSON, proxal.NPCheckConfig)
}

// CheckTable3 checks a conic-table3 result file (fairness, eq. (28))
// with configs/reference/conic-table3.yaml.
func CheckTable3(resultJSON []byte) ([]experiments.CheckRow, error) {
	return proxal.CheckClass("conic-table3", "conic-table3", resultJSON, proxal.FairCheckConfig)
}

// conicQPResult is what the checker reads of a conic-table1 result file.
type conicQPResult struct {
	Info *struct {
		Config json.RawMessage `json:"config"`
	} `json:"run"`
	Rows   []QPRow   `json:"rows"`
	Trials []QPTrial `json:"trials"`
}

// conicQPCell is a trial's baseline cell key, e.g. "d100-n5-m1".
func conicQPCell(d, n, m int) string { return fmt.Sprintf("d%d-n%d-m%d", d, n, m) }

// checkConicQPWith checks resultJSON against the reference YAML refYAML.
func checkConicQPWith(refYAML, resultJSON []byte) ([]experiments.CheckRow, error) {
	const experiment = "conic-table1"
	var res conicQPResult
	if err := json.Unmarshal(resultJSON, &res); err != nil {
		return nil, fmt.Errorf("experiments: %s.json: %w", experiment, err)
	}
	if res.Info == nil {
		return nil, fmt.Errorf("experiments: %s.json has no run record", experiment)
	}
	var cfg QPConfig
	if err := json.Unmarshal(res.Info.Config, &cfg); err != nil {
		return nil, fmt.Errorf("experiments: %s.json: config: %w", experiment, err)
	}
	var ref proxal.ClassRef
	if err := yaml.Unmarshal(refYAML, &ref); err != nil {
		return nil, fmt.Errorf("experiments: configs/reference/%s.yaml: %w", experiment, err)
	}
	cells := map[string][]QPTrial{}
	for _, t := range res.Trials {
		k := conicQPCell(t.D, t.N, t.M)
		cells[k] = append(cells[k], t)
	}
	var out []experiments.CheckRow
	for _, row := range res.Rows {
		key := conicQPCell(row.D, row.N, row.M)
		trials := cells[key]
		cell := fmt.Sprintf("d=%d n=%d m=%d", row.D, row.N, row.M)
		add := func(rule string, v, bound float64, detail string) {
			out = append(out, experiments.CheckRow{Experiment: experiment, Cell: cell, Rule: rule, Value: v, Bound: bound,
				Pass: v <= bound && !math.IsNaN(v), Detail: detail})
		}
		for _, rule := range ref.Rules {
			if rule.Name == "agreement" {
				// Both algorithms at once: |f_A1 - f_cP| / max(1, |f_cP|).
				var worst float64
				for _, t := range trials {
					worst = math.Max(worst, math.Abs(t.Alg1.Objective-t.CProx.Objective)/math.Max(1, math.Abs(t.CProx.Objective)))
				}
				add("objective agreement", worst, rule.Bound, fmt.Sprintf("max over %d instances of |f_A1 - f_cP|/max(1, |f_cP|)", len(trials)))
				continue
			}
			for i, a := range []struct {
				key, name string
				get       func(*QPTrial) *proxal.QPAlg
			}{
				{"alg1", "Alg. 1", func(t *QPTrial) *proxal.QPAlg { return &t.Alg1 }},
				{"cprox", "cProx-AL", func(t *QPTrial) *proxal.QPAlg { return &t.CProx }},
			} {
				if !rule.Applies(a.key) {
					continue
				}
				switch rule.Name {
				case "status":
					bad := 0
					for j := range trials {
						if a.get(&trials[j]).Status != solver.Converged {
							bad++
						}
					}
					add("status "+a.name, float64(bad), 0, fmt.Sprintf("runs not Converged of %d", len(trials)))
				case "kkt":
					var st, fe float64
					for j := range trials {
						g := a.get(&trials[j])
						st, fe = math.Max(st, g.Residuals.Stationarity), math.Max(fe, g.Residuals.Feasibility)
					}
					add("kkt stationarity "+a.name, st, rule.Factor*cfg.Eps1, fmt.Sprintf("max over %d runs", len(trials)))
					add("kkt feasibility "+a.name, fe, rule.Factor*cfg.Eps2, fmt.Sprintf("max over %d runs", len(trials)))
				case "feasibility":
					var v float64
					for j := range trials {
						v = math.Max(v, a.get(&trials[j]).Violation)
					}
					add("feasibility violation "+a.name, v, rule.Factor*cfg.Eps2, "max over runs of max_i dist_inf(c_i(w), -K_i)")
				case "outer":
					// Published columns 4 and 5: outer iterations of Alg. 1, cProx-AL.
					if len(row.Published.Values) < 6 || cfg.BallRows > 0 {
						continue
					}
					ours, pap := row.Outer1.Mean, row.Published.Values[4+i]
					if a.key == "cprox" {
						ours = row.OuterC.Mean
					}
					add("outer iterations vs paper "+a.name, math.Max(ours/pap, pap/ours), rule.Factor,
						fmt.Sprintf("ratio of means, ours %.1f, paper %.1f", ours, pap))
				case "optimum":
					// Each instance against its own exact f* (zero cones:
					// QPTrial.FStar, QPAlg.ObjBand), up to rounding.
					worst, n, at, gapAt, bandAt := 0.0, 0, -1, 0.0, 0.0
					for j := range trials {
						t := &trials[j]
						if !t.Exact || t.Balls > 0 {
							continue
						}
						g := a.get(t)
						n++
						gap := math.Abs(g.Objective - t.FStar)
						if v := gap / (g.ObjBand*(1+1e-9) + 1e-12*math.Max(1, math.Abs(t.FStar))); at < 0 || v > worst || math.IsNaN(v) {
							worst, at, gapAt, bandAt = v, t.Trial, gap, g.ObjBand
						}
					}
					if n > 0 {
						add("objective vs exact f* "+a.name, worst, 1, fmt.Sprintf("max over %d instances of |f - f*| / KKT band (worst: instance %d, |f - f*| = %.2g, band %.2g)", n, at, gapAt, bandAt))
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("experiments: %s.json: no rows to check", experiment)
	}
	return out, nil
}

func conicQPKind(cfg *QPConfig) experiments.VerifyKind[QPRow, QPTrial] {
	var cells []experiments.VerifyCell
	for _, c := range cfg.Cells {
		if len(c) != 3 {
			continue
		}
		cells = append(cells, experiments.VerifyCell{Key: conicQPCell(c[0], c[1], c[2]), Label: fmt.Sprintf("d=%d n=%d m=%d", c[0], c[1], c[2]), D: c[0], N: c[1], M: c[2]})
	}
	eps := [2]float64{cfg.Eps1, cfg.Eps2}
	return experiments.VerifyKind[QPRow, QPTrial]{
		TrialHash: cfg.TrialHash(), Cells: cells, Trials: cfg.Trials, Eps: eps,
		CellOf: func(t *QPTrial) string { return conicQPCell(t.D, t.N, t.M) },
		Index:  func(t *QPTrial) int { return t.Trial },
		Row: func(c experiments.VerifyCell, trials []QPTrial, _ *QPRow) QPRow {
			return conicQPRow(c.D, c.N, c.M, trials, eps)
		},
		RowKey: func(r *QPRow) string { return conicQPCell(r.D, r.N, r.M) },
		Tables: func(rows []QPRow, trials []QPTrial) []*experiments.Table {
			return (&QPResult{Info: &experiments.RunInfo{Config: cfg}, Rows: rows, Trials: trials}).Tables()
		},
		Runs: func(t *QPTrial) [2]experiments.TrialRun { return proxal.QPTrialRuns(&t.QPRuns) },
		Extra: func(cells []experiments.VerifyCell, byCell map[string][]QPTrial, _ []QPRow) []experiments.CheckRow {
			return conicOptima(cfg, cells, byCell)
		},
	}
}

// ballSolveAgree bounds the disagreement, relative to 1 + ||w*||_∞, of the
// gate's optimum of an instance with one ball (recheck.EqQPBall) and the
// run's (problems.ConicQP.ExactSingleBall): both narrow the ball's
// multiplier to a bracket a few ulps wide over backward-stable solves, and
// agree to 5e-16 in w* on the paper's cells with a ball at the server
// (TestConicBallOptimumAgrees), a factor of 2000 below it.
const ballSolveAgree = 1e-12

// conicOptima draws each trial's instance again and solves it with
// internal/recheck's own loops (recheck.EqQP without a ball, EqQPBall with
// one), so that a trial's f*, which the optimum rule measures objectives
// against, cannot be edited with them; and recomputes each run's
// certificate at its stored point (conicPoints), with a ball also its
// distance to that w*.
func conicOptima(cfg *QPConfig, cells []experiments.VerifyCell, byCell map[string][]QPTrial) []experiments.CheckRow {
	var v experiments.Verifier
	var pts conicPoints
	n := 0
	for _, c := range cells {
		for _, t := range byCell[c.Key] {
			inst, err := conicInstance(cfg, c.D, c.N, c.M, t.Trial)
			if err != nil {
				v.Fail("%s trial %d: %v", c.Label, t.Trial, err)
				pts.v.Fail("%s trial %d: %v", c.Label, t.Trial, err)
				continue
			}
			data := proxal.QPParties(inst.LCQP)
			exact := inst.NumBalls() <= 1
			var wstar []float64
			var fstar float64
			var multi *ballsRef
			if exact {
				wstar, fstar, err = conicReference(inst, data)
			} else {
				multi, err = multiBallReference(inst, data)
			}
			if err != nil {
				v.Fail("%s trial %d: %v", c.Label, t.Trial, err)
				pts.v.Fail("%s trial %d: %v", c.Label, t.Trial, err)
				continue
			}
			pts.add(c.Label, &t, inst, data, wstar, multi, [2]float64{cfg.Eps1, cfg.Eps2})
			if t.Exact != exact || t.Balls != inst.NumBalls() {
				v.Fail("%s trial %d: exact_reference %v with %d balls; the instance has %d balls", c.Label, t.Trial, t.Exact, t.Balls, inst.NumBalls())
				continue
			}
			if !exact {
				continue
			}
			n++
			if !experiments.SameFloat(t.FStar, fstar) {
				v.Fail("%s trial %d: f* %.10g; the instance's is %.10g", c.Label, t.Trial, t.FStar, fstar)
			}
		}
	}
	return []experiments.CheckRow{
		v.Row("conic-table1", "f* recomputed", fmt.Sprintf("%d trials' f* equal an independent solve of their instance", n)),
		pts.row(),
	}
}

// conicReference is an instance's w* and f* by recheck's own solves: the
// equality QP, or with one ball the root-finder on its multiplier.
func conicReference(inst *problems.ConicQP, data []recheck.QPData) ([]float64, float64, error) {
	if balls := ballsData(inst); len(balls) > 0 {
		w, _, f, err := recheck.EqQPBall(data, balls[0], inst.Dim)
		return w, f, err
	}
	w, _, f, err := recheck.EqQP(data, inst.Dim)
	return w, f, err
}

// ballsData is an instance's balls in recheck's form, in party order.
func ballsData(inst *problems.ConicQP) []recheck.BallData {
	var out []recheck.BallData
	for _, b := range inst.Balls {
		if b == nil {
			continue
		}
		rows, cols := b.G.Dims()
		g := make([][]float64, rows)
		for r := range g {
			g[r] = make([]float64, cols)
			for j := range g[r] {
				g[r][j] = b.G.At(r, j)
			}
		}
		out = append(out, recheck.BallData{G: g, H: b.H, T: b.T})
	}
	return out
}

// ballsRef is an independent optimum of an instance with several balls
// (recheck.EqQPBalls): w*, the balls' multipliers λ* of ½(||G_kw − h_k||² −
// T_k²) <= 0 in party order, the equalities' ν* and f*.
type ballsRef struct {
	w, lambda, nu []float64
	f             float64
	balls         []recheck.BallData
}

func multiBallReference(inst *problems.ConicQP, data []recheck.QPData) (*ballsRef, error) {
	balls := ballsData(inst)
	w, lambda, nu, f, err := recheck.EqQPBalls(data, balls, inst.Dim)
	if err != nil {
		return nil, err
	}
	return &ballsRef{w: w, lambda: lambda, nu: nu, f: f, balls: balls}, nil
}

// band returns the interval that convexity gives f(w) − f* at a run's
// point w with its multipliers: the Lagrangian L(·, μ) = f + Σ_i μ_iᵀc_i is
// convex for μ_i in K_i* (c_i is affine), so f* >= L(w*, μ) >= f(w) +
// μᵀc(w) − ||∇_wL(w, μ)||₂·||w − w*||₂; and at (w*, μ*) ∇_wL = 0 and
// μ*ᵀc(w*) = 0, so f(w) − f* >= −μ*ᵀc(w), where a ball's λ*_k in the
// cone's layout is (λ*_kT_k, −λ*_k r*_k) and μ*ᵀc(w) = λ*_k(r*_kᵀr_k(w) −
// T_k²) + ν*ᵀ(Cw + D). Also the magnitude of the terms, for rounding.
func (ref *ballsRef) band(parties []recheck.Party, mu [][]float64, data []recheck.QPData, w []float64) (lo, hi, scale float64) {
	grad := make([]float64, len(w))
	var muc float64
	for i, rp := range parties {
		for j, g := range rp.Grad {
			grad[j] += g
		}
		for r, row := range rp.Jac {
			for j, v := range row {
				grad[j] += mu[i][r] * v
			}
			muc += mu[i][r] * rp.C[r]
			scale += math.Abs(mu[i][r] * rp.C[r])
		}
	}
	var g2, d2 float64
	for j := range w {
		g2 += grad[j] * grad[j]
		d2 += (w[j] - ref.w[j]) * (w[j] - ref.w[j])
	}
	hi = math.Sqrt(g2)*math.Sqrt(d2) - muc
	var star float64
	for k, b := range ref.balls {
		var rr float64
		for r, row := range b.G {
			var e, es float64 = -b.H[r], -b.H[r]
			for j, g := range row {
				e += g * w[j]
				es += g * ref.w[j]
			}
			rr += es * e
		}
		star += ref.lambda[k] * (rr - b.T*b.T)
		scale += ref.lambda[k] * (math.Abs(rr) + b.T*b.T)
	}
	k := 0
	for _, p := range data {
		for r, row := range p.C {
			e := p.D[r]
			for j, v := range row {
				e += v * w[j]
			}
			star += ref.nu[k] * e
			scale += math.Abs(ref.nu[k] * e)
			k++
		}
	}
	return -star, hi, scale
}

// conicPoints gathers the recomputed certificates of conic Table 1's runs.
type conicPoints struct {
	v                                 experiments.Verifier
	runs, ballRuns, noPoint, uncapped int
	ballDist                          int // ball runs whose distance to w* was recomputed
	ballBand                          int // runs with several balls bounded against an independent f*
}

// add rechecks both runs of trial t on its instance, drawn again: the
// objective, each constraint, Definition 1's residuals as the conic paper
// defines them (dist_∞(c_i(w), N_{K_i*}(μ_i)): ||C_iw + d_i||_∞ for the zero
// cones of eq. (25); the second-order cone's normal cone for a ball), the
// status and the inner cap; without a ball also the distance to an
// independent w* and the objective band, as Table 4's gate
// (proxal.QPRecheck); with one ball the distance to wstar, the gate's
// optimum (nil with several balls, whose runs store no distance). A run without w is in a schema 3 file (schema 4
// requires w: QPTrial.CheckSchema), counted as not checked.
func (p *conicPoints) add(label string, t *QPTrial, inst *problems.ConicQP, data []recheck.QPData, wstar []float64, multi *ballsRef, eps [2]float64) {
	var (
		q     *proxal.QPRecheck
		qerr  error
		built bool // the instance is rebuilt for the trial's first checked run
	)
	for _, a := range []struct {
		name string
		alg  *proxal.QPAlg
	}{{"Algorithm 1", &t.Alg1}, {"cProx-AL", &t.CProx}} {
		if len(a.alg.W) == 0 {
			p.noPoint++
			continue
		}
		if a.alg.InnerCapped == nil {
			p.uncapped++
		}
		if inst.NumBalls() > 0 {
			p.ballRuns++
			if wstar != nil {
				p.ballDist++
			}
			if multi != nil {
				p.ballBand++
			}
			if msg := ballRunMessage(inst, data, wstar, multi, a.alg, eps); msg != "" {
				p.v.Fail("%s trial %d %s: %s", label, t.Trial, a.name, msg)
			}
			continue
		}
		p.runs++
		if !built {
			q, qerr = proxal.NewQPRecheck(inst.LCQP)
			built = true
		}
		if qerr != nil {
			p.v.Fail("%s trial %d: %v", label, t.Trial, qerr)
			return
		}
		if msg := q.RunMessage(a.alg, eps); msg != "" {
			p.v.Fail("%s trial %d %s: %s", label, t.Trial, a.name, msg)
		}
	}
}

// ballParties is every party's values at w in recheck's plain loops, a
// party with a ball ||Gw - h||₂ <= T as c = (C w + d, -T, h - Gw) ∈
// -(zero(m) × soc(1 + rows)), the layout of the runs' multipliers.
func ballParties(inst *problems.ConicQP, data []recheck.QPData, w []float64) []recheck.Party {
	out := make([]recheck.Party, len(data))
	for i, d := range data {
		rp := recheck.QP(d.A, d.B, d.C, d.D, w)
		b := inst.Balls[i]
		if b == nil {
			out[i] = rp
			continue
		}
		rows, cols := b.G.Dims()
		rp.C = append(rp.C, -b.T)
		rp.Jac = append(rp.Jac, make([]float64, cols))
		for r := range rows {
			g := make([]float64, cols)
			s := b.H[r]
			for j := range g {
				g[j] = -b.G.At(r, j)
				s += g[j] * w[j]
			}
			rp.C, rp.Jac = append(rp.C, s), append(rp.Jac, g)
		}
		rp.Eq, rp.Blocks = false, []recheck.Block{{Kind: recheck.ZeroCone, Dim: len(d.C)}, {Kind: recheck.SecondOrder, Dim: 1 + rows}}
		out[i] = rp
	}
	return out
}

// ballRunMessage recomputes a run on an instance with a ball at its stored
// (w, μ) and returns what disagrees ("" when nothing): residuals and status
// (proxal.PointMessage), the inner cap, the objective and the violation
// max_i dist_∞(c_i(w), -K_i), each within recheck.Gamma of the magnitude
// of its terms; with wstar (one ball) the stored dist_to_optimum_inf
// against ||w − wstar||_∞ within ballSolveAgree·(1 + ||wstar||_∞).
func ballRunMessage(inst *problems.ConicQP, data []recheck.QPData, wstar []float64, multi *ballsRef, a *proxal.QPAlg, eps [2]float64) string {
	if len(a.W) != inst.Dim {
		return fmt.Sprintf("w has %d entries, want d = %d", len(a.W), inst.Dim)
	}
	parties := ballParties(inst, data, a.W)
	if msg := proxal.PointMessage(a.Status, a.Residuals, parties, a.Mu, eps); msg != "" {
		return msg
	}
	if msg := proxal.CappedMessage(a.Status, a.InnerCapped); msg != "" {
		return msg
	}
	var obj, objScale, viol float64
	for _, rp := range parties {
		obj += rp.F
		objScale += math.Abs(rp.F)
		viol = math.Max(viol, rp.Violation())
	}
	if !recheck.Agree(a.Objective, obj, objScale) {
		return fmt.Sprintf("objective %.12g, recomputed at w %.12g", a.Objective, obj)
	}
	if !recheck.Agree(a.Violation, viol, viol) {
		return fmt.Sprintf("feasibility_violation %.6g, recomputed at w %.6g", a.Violation, viol)
	}
	if multi != nil {
		lo, hi, scale := multi.band(parties, a.Mu, data, a.W)
		slack := recheck.Gamma * (objScale + math.Abs(multi.f) + scale)
		if gap := obj - multi.f; gap < lo-slack || gap > hi+slack {
			return fmt.Sprintf("f(w) − f* = %.6g outside [%.6g, %.6g], the band convexity gives around an independent optimum (f* = %.12g)", gap, lo, hi, multi.f)
		}
	}
	if wstar != nil {
		var dist, wmax float64
		for j, x := range a.W {
			dist = math.Max(dist, math.Abs(x-wstar[j]))
			wmax = math.Max(wmax, math.Abs(wstar[j]))
		}
		if math.Abs(a.DistOpt-dist) > ballSolveAgree*(1+wmax) {
			return fmt.Sprintf("dist_to_optimum_inf %.6g, recomputed from an independent solve %.6g", a.DistOpt, dist)
		}
	}
	return ""
}

func (p *conicPoints) row() experiments.CheckRow {
	var parts []string
	if p.runs > 0 || p.ballRuns == 0 {
		parts = append(parts, fmt.Sprintf("%d runs: objective, violation, KKT residuals and status recomputed at the stored (w, μ) on the instance drawn again, agreeing within %g × the terms' magnitude; "+
			"dist_to_optimum_inf and objective_kkt_band recomputed against an independent solve's w*, and the band bounding the recomputed |f(w) − f*|", p.runs, recheck.Gamma))
	}
	if p.ballRuns > 0 {
		dist := "the distance to w* not recomputed (several balls: no w* stored)"
		if p.ballBand > 0 {
			dist = fmt.Sprintf("%d runs with several balls, which store no distance: f(w) − f* inside the band convexity gives at (w, μ) around an independent optimum (dual projected Newton on the balls' multipliers)", p.ballBand)
		}
		switch {
		case p.ballDist > 0 && p.ballBand > 0:
			dist = fmt.Sprintf("dist_to_optimum_inf of the %d runs with one ball recomputed against an independent solve's w*, agreeing within %g × (1 + ||w*||_∞); %s", p.ballDist, ballSolveAgree, dist)
		case p.ballDist == p.ballRuns:
			dist = fmt.Sprintf("dist_to_optimum_inf recomputed against an independent solve's w* (regula falsi on the ball's multiplier), agreeing within %g × (1 + ||w*||_∞)", ballSolveAgree)
		case p.ballDist > 0:
			dist = fmt.Sprintf("dist_to_optimum_inf of the %d runs with one ball recomputed against an independent solve's w* (regula falsi on the ball's multiplier), agreeing within %g × (1 + ||w*||_∞); with several balls no w* is stored", p.ballDist, ballSolveAgree)
		}
		parts = append(parts, fmt.Sprintf("%d runs with a norm ball (second-order cone): objective, violation, KKT residuals and status recomputed at the stored (w, μ) on the instance drawn again, agreeing within %g × the terms' magnitude; %s", p.ballRuns, recheck.Gamma, dist))
	}
	if p.uncapped > 0 {
		parts = append(parts, fmt.Sprintf("the inner cap not checked on %d runs, whose files do not store it", p.uncapped))
	}
	if p.noPoint > 0 {
		parts = append(parts, fmt.Sprintf("not checked (old schema): %d runs whose trial files have schema 3 and no point w: rerun with --force to check them", p.noPoint))
	}
	return p.v.Row("conic-table1", "certificate recomputed", strings.Join(parts, "; "))
}

func verifyConicQP(in experiments.VerifyInput) []experiments.CheckRow {
	var cfg QPConfig
	if err := experiments.StrictConfig(in.Config, &cfg); err != nil {
		return experiments.FailedResult(in.Name, err)
	}
	return experiments.VerifyWith(in.Dir, in.Name, in.Result, in.ConfigHash, &cfg, in.KKT, conicQPKind(&cfg))
}

func verifyConicNP(in experiments.VerifyInput) []experiments.CheckRow {
	var cfg proxal.NPConfig
	if err := experiments.StrictConfig(in.Config, &cfg); err != nil {
		return experiments.FailedResult(in.Name, err)
	}
	pub := func(c experiments.VerifyCell) experiments.PublishedRow {
		return experiments.PublishedRowIn("conic-published", "table2", c.Dataset, fmt.Sprint(c.N))
	}
	tables := func(rows []proxal.ClassRow, trials []proxal.ClassTrial) []*experiments.Table {
		return (&ClassResult{Info: &experiments.RunInfo{Config: &cfg}, Table: "table2", Rows: rows, Trials: trials}).Tables()
	}
	k := proxal.WithNPPartition(proxal.NPVerifyKind(&cfg, pub, tables), in.Name, &cfg, in.DataDirs)
	return experiments.VerifyWith(in.Dir, in.Name, in.Result, in.ConfigHash, &cfg, in.KKT, proxal.WithNPOptimum(k, in.Name, &cfg, in.DataDirs))
}

func verifyConicFair(in experiments.VerifyInput) []experiments.CheckRow {
	var cfg proxal.FairConfig
	if err := experiments.StrictConfig(in.Config, &cfg); err != nil {
		return experiments.FailedResult(in.Name, err)
	}
	pub := func(c experiments.VerifyCell) experiments.PublishedRow {
		return experiments.PublishedRowIn("conic-published", "table3", fmt.Sprint(c.N))
	}
	tables := func(rows []proxal.ClassRow, trials []proxal.ClassTrial) []*experiments.Table {
		return (&ClassResult{Info: &experiments.RunInfo{Config: &cfg}, Table: "table3", Rows: rows, Trials: trials}).Tables()
	}
	return experiments.VerifyWith(in.Dir, in.Name, in.Result, in.ConfigHash, &cfg, in.KKT, proxal.WithFairPartition(proxal.FairVerifyKind(&cfg, pub, tables), in.Name, &cfg, in.DataDirs))
}

// The conic version's tables are gated by `fedcon check`.
func init() {
	experiments.RegisterCheck("conic-table1", experiments.Check{Verify: verifyConicQP, Rules: func(_ string, b []byte) ([]experiments.CheckRow, error) { return CheckTable1(b) }})
	experiments.RegisterCheck("conic-table2", experiments.Check{Verify: verifyConicNP, Rules: func(_ string, b []byte) ([]experiments.CheckRow, error) { return CheckTable2(b) },
		Baseline: proxal.ClassBaselineYAML})
	experiments.RegisterCheck("conic-table3", experiments.Check{Verify: verifyConicFair, Rules: func(_ string, b []byte) ([]experiments.CheckRow, error) { return CheckTable3(b) },
		Baseline: proxal.ClassBaselineYAML})
}
