package proxal

import (
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/recheck"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// pointCell is a class cell rebuilt from the data for the recomputation at
// a stored point: d features and, at w, every party's values (server
// first) and the stored columns, loss0 and loss1, as the run defines them.
type pointCell struct {
	d    int
	eval func(w []float64) (parties []recheck.Party, loss0, loss1 []float64)
	// np is a Neyman-Pearson cell's rows per client (class 0, class 1),
	// with the objective's divisor n and the threshold r, for the
	// independent solve (nil for fairness).
	np *npRows
}

// npRows is what recheck.NPReference solves.
type npRows struct {
	parts [][2][][]float64
	n     int
	r     float64
}

// pointFunc rebuilds a class cell, its partition as the run built it.
type pointFunc func(c experiments.VerifyCell) (*pointCell, error)

// rowsOf returns views of rows idx of x.
func rowsOf(x *mat.Dense, idx []int) [][]float64 {
	out := make([][]float64, len(idx))
	for k, i := range idx {
		out[k] = x.RawRowView(i)
	}
	return out
}

// npPoints rebuilds a Neyman-Pearson cell for recheck: each client's
// class-0 and class-1 rows of the partition npParts makes, as RunNP does.
func npPoints(cfg *NPConfig, dirs []string) pointFunc {
	var (
		ds   *datasets.Dataset
		name string
	)
	return func(c experiments.VerifyCell) (*pointCell, error) {
		if ds == nil || name != c.Dataset {
			var err error
			if ds, err = loadClassData(cfg.Data, c.Dataset, cfg.Seed, dirs); err != nil {
				return nil, err
			}
			name = c.Dataset
		}
		parts, _, n, err := npParts(ds, c.Dataset, c.N, cfg)
		if err != nil {
			return nil, err
		}
		_, d := ds.X.Dims()
		class := make([][2][][]float64, len(parts))
		for k, idx := range parts {
			for _, i := range idx {
				y := 0
				if ds.Y[i] == 1 {
					y = 1
				}
				class[k][y] = append(class[k][y], ds.X.RawRowView(i))
			}
		}
		return &pointCell{d: d, np: &npRows{parts: class, n: n, r: cfg.R}, eval: func(w []float64) ([]recheck.Party, []float64, []float64) {
			parties := []recheck.Party{{Grad: make([]float64, d)}} // no server party
			var loss0, loss1 []float64
			for _, cl := range class {
				p, l0, l1 := recheck.NP(cl[0], cl[1], n, cfg.R, w)
				parties = append(parties, p)
				loss0, loss1 = append(loss0, l0), append(loss1, l1)
			}
			return parties, loss0, loss1
		}}, nil
	}
}

// fairPoints rebuilds a fairness cell for recheck: the server's rows and
// each client's rows of the folds fairFolds makes, as RunFair does.
func fairPoints(cfg *FairConfig, dirs []string) pointFunc {
	var ds *datasets.Dataset
	return func(c experiments.VerifyCell) (*pointCell, error) {
		if ds == nil {
			var err error
			if ds, err = loadClassData(cfg.Data, cfg.Dataset, cfg.Seed, dirs); err != nil {
				return nil, err
			}
		}
		folds, _, n, err := fairFolds(ds, c.N, cfg)
		if err != nil {
			return nil, err
		}
		_, d := ds.X.Dims()
		type rows struct {
			x [][]float64
			y []float64
			g []int
		}
		srvN, _ := ds.Server.X.Dims()
		srv := rows{x: make([][]float64, srvN), y: ds.Server.Y, g: ds.Server.Group}
		for i := range srvN {
			srv.x[i] = ds.Server.X.RawRowView(i)
		}
		clients := make([]rows, len(folds))
		for k, idx := range folds {
			clients[k].x = rowsOf(ds.X, idx)
			for _, i := range idx {
				clients[k].y = append(clients[k].y, ds.Y[i])
				clients[k].g = append(clients[k].g, ds.Group[i])
			}
		}
		return &pointCell{d: d, eval: func(w []float64) ([]recheck.Party, []float64, []float64) {
			p, _, disp := recheck.Fair(srv.x, srv.y, srv.g, 0, cfg.R, w)
			parties, loss1 := []recheck.Party{p}, []float64{disp}
			var loss0 []float64
			for _, cl := range clients {
				p, loss, disp := recheck.Fair(cl.x, cl.y, cl.g, 1/float64(n), cfg.R, w)
				parties = append(parties, p)
				loss0, loss1 = append(loss0, loss), append(loss1, disp)
			}
			return parties, loss0, loss1
		}}, nil
	}
}

// recheckAlg recomputes one run of a trial at its stored (w, μ) and
// returns what disagrees ("" when nothing): the shapes, each stored loss
// and the objective, the stored residuals, and the stored status against
// the recomputed residuals and the stored inner cap (solver.certify's
// rules). Agreement is within recheck.Gamma times the magnitude of the
// summed terms.
func recheckAlg(pc *pointCell, a *ClassAlg, eps [2]float64) string {
	if len(a.W) == 0 {
		return "no stored point w (a result of an older fedcon): rerun the experiment"
	}
	if len(a.W) != pc.d {
		return fmt.Sprintf("w has %d entries, the data %d features", len(a.W), pc.d)
	}
	parties, loss0, loss1 := pc.eval(a.W)
	if _, _, _, _, err := recheck.KKT(parties, a.Mu); err != nil {
		return err.Error()
	}
	if len(a.Loss0) != len(loss0) || len(a.Loss1) != len(loss1) {
		return fmt.Sprintf("%d loss0 and %d loss1 values, the partition has %d and %d", len(a.Loss0), len(a.Loss1), len(loss0), len(loss1))
	}
	for _, col := range []struct {
		key       string
		got, want []float64
	}{{"loss0", a.Loss0, loss0}, {"loss1", a.Loss1, loss1}} {
		for i := range col.want {
			if !recheck.Agree(col.got[i], col.want[i], col.want[i]) {
				return fmt.Sprintf("%s[%d] %.12g, recomputed at w %.12g", col.key, i, col.got[i], col.want[i])
			}
		}
	}
	if obj := experiments.MeanStdOf(loss0).Mean; !recheck.Agree(a.Objective, obj, obj) {
		return fmt.Sprintf("objective %.12g, recomputed at w %.12g", a.Objective, obj)
	}
	if msg := PointMessage(a.Status, a.Residuals, parties, a.Mu, eps); msg != "" {
		return msg
	}
	return CappedMessage(a.Status, a.InnerCapped)
}

// CappedMessage is solver.certify's first rule: a point whose subproblem
// stopped at its inner cap is InnerIterationLimit (unless the run was
// canceled or diverged), and only such a point is. capped nil (a file
// written before the flag was stored): not checked.
func CappedMessage(status solver.Status, capped *bool) string {
	switch {
	case capped == nil, status == solver.Canceled, status == solver.Diverged, status == solver.NotTerminated:
	case *capped && status != solver.InnerIterationLimit:
		return fmt.Sprintf("status %v, but the subproblem that produced w stopped at its inner cap without test (10): InnerIterationLimit", status)
	case !*capped && status == solver.InnerIterationLimit:
		return "status InnerIterationLimit, but the subproblem that produced w met its test (10)"
	}
	return ""
}

// PointMessage recomputes Definition 1's residuals of parties at μ and
// returns what disagrees with the stored residuals and status ("" when
// nothing): the residuals beyond recheck.Gamma times the magnitude of the
// summed terms, or the status against solver.certify's rules on the
// residuals (the inner cap is CappedMessage's), each bound widened by the
// same rounding slack.
func PointMessage(status solver.Status, stored solver.Residuals, parties []recheck.Party, mu [][]float64, eps [2]float64) string {
	stat, feas, statScale, feasScale, err := recheck.KKT(parties, mu)
	if err != nil {
		return err.Error()
	}
	tolS, tolF := recheck.Gamma*(1+statScale), recheck.Gamma*feasScale
	if !recheck.Agree(stored.Stationarity, stat, statScale) || !recheck.Agree(stored.Feasibility, feas, feasScale) {
		return fmt.Sprintf("residuals (%.3g, %.3g), recomputed at (w, μ) (%.3g, %.3g)", stored.Stationarity, stored.Feasibility, stat, feas)
	}
	within := func(f float64) bool { return stat <= f*eps[0]+tolS && feas <= f*eps[1]+tolF }
	beyond := func(f float64) bool { return stat > f*eps[0]-tolS || feas > f*eps[1]-tolF }
	ok := true
	switch status {
	case solver.Converged:
		ok = within(1)
	case solver.ConvergedInaccurate:
		ok = within(10) && beyond(1)
	case solver.Uncertified, solver.RuntimeLimit:
		ok = beyond(1)
	case solver.OuterIterationLimit:
		ok = beyond(10)
	}
	if !ok {
		return fmt.Sprintf("status %v, but the residuals recomputed at (w, μ) are (%.3g, %.3g) against (ε1, ε2) = (%g, %g)", status, stat, feas, eps[0], eps[1])
	}
	return ""
}

// verifyPoints is the check row of the recomputed certificate: every
// trial's two runs rechecked at their stored point (recheckAlg).
func verifyPoints(name string, cells []experiments.VerifyCell, byCell map[string][]ClassTrial, eps [2]float64, build pointFunc) experiments.CheckRow {
	var v experiments.Verifier
	runs, uncapped := 0, 0
	for _, c := range cells {
		trials := byCell[c.Key]
		if len(trials) == 0 {
			continue
		}
		pc, err := build(c)
		if err != nil {
			v.Fail("%s: %v", c.Label, err)
			continue
		}
		for _, t := range trials {
			for _, a := range []struct {
				name string
				alg  *ClassAlg
			}{{"Algorithm 1", &t.Alg1}, {"cProx-AL", &t.CProx}} {
				runs++
				if a.alg.InnerCapped == nil && len(a.alg.W) > 0 {
					uncapped++
				}
				if msg := recheckAlg(pc, a.alg, eps); msg != "" {
					v.Fail("%s trial %d %s: %s", c.Label, t.Trial, a.name, msg)
				}
			}
		}
	}
	return v.Row(name, "certificate recomputed", fmt.Sprintf("%d runs: losses, objective, KKT residuals and status recomputed at the stored (w, μ) from the data, agreeing within %g × the terms' magnitude (float64 rounding over m < 5e4 rows: < 6e-12)%s", runs, recheck.Gamma, cappedNote(uncapped)))
}

// cappedNote says in a certificate row whether the status was checked
// against the stored inner cap: not on the runs whose files lack it.
func cappedNote(uncapped int) string {
	if uncapped > 0 {
		return fmt.Sprintf("; the inner cap not checked on %d runs, whose files (an older fedcon) do not store it", uncapped)
	}
	return "; the status against the stored inner cap of the last subproblem"
}

// genericPoints is the recomputed certificate of a result without a
// reference file (`run np|fair|qp`, a figure's runs): its recorded
// configuration decodes strictly as a Neyman-Pearson, fairness or QP
// configuration and it holds its trials; a Neyman-Pearson result also gets
// its objectives against the independent optimum. Other results: no rows.
func genericPoints(in experiments.VerifyInput) []experiments.CheckRow {
	var (
		np      NPConfig
		fair    FairConfig
		qp      QPConfig
		build   pointFunc
		eps     [2]float64
		optimum bool
	)
	switch {
	case experiments.StrictConfig(in.Config, &qp) == nil && qp.Validate() == nil:
		return genericQPPoints(in, &qp)
	case experiments.StrictConfig(in.Config, &np) == nil && np.Validate() == nil:
		build, eps, optimum = npPoints(&np, in.DataDirs), [2]float64{np.Eps1, np.Eps2}, true
	case experiments.StrictConfig(in.Config, &fair) == nil && fair.Validate() == nil:
		build, eps = fairPoints(&fair, in.DataDirs), [2]float64{fair.Eps1, fair.Eps2}
	default:
		return nil
	}
	var res struct {
		Trials []ClassTrial `json:"trials"`
	}
	if err := json.Unmarshal(in.Result, &res); err != nil || len(res.Trials) == 0 {
		return nil // the result file rule reports an unreadable result
	}
	var cells []experiments.VerifyCell
	byCell := map[string][]ClassTrial{}
	for _, t := range res.Trials {
		key := fmt.Sprintf("%s-n%d", t.Dataset, t.N)
		if byCell[key] == nil {
			cells = append(cells, experiments.VerifyCell{Key: key, Label: fmt.Sprintf("%s n=%d", t.Dataset, t.N), Dataset: t.Dataset, N: t.N})
		}
		byCell[key] = append(byCell[key], t)
	}
	rows := []experiments.CheckRow{verifyPoints(in.Name, cells, byCell, eps, build)}
	if optimum {
		// Fairness has no independent optimum: its disparity constraint
		// is not convex, so no solve certifies a global one.
		rows = append(rows, verifyOptimum(in.Name, cells, byCell, npPoints(&np, in.DataDirs)))
	}
	return rows
}

// genericQPPoints is genericPoints for a QP result (`run qp`).
func genericQPPoints(in experiments.VerifyInput, cfg *QPConfig) []experiments.CheckRow {
	var res struct {
		Trials []QPTrial `json:"trials"`
	}
	if err := json.Unmarshal(in.Result, &res); err != nil || len(res.Trials) == 0 {
		return nil
	}
	var cells []experiments.VerifyCell
	byCell := map[string][]QPTrial{}
	for _, t := range res.Trials {
		key := fmt.Sprintf("n%d-d%d-m%d", t.N, t.D, t.M)
		if byCell[key] == nil {
			cells = append(cells, experiments.VerifyCell{Key: key, Label: fmt.Sprintf("n=%d d=%d m=%d", t.N, t.D, t.M), N: t.N, D: t.D, M: t.M})
		}
		byCell[key] = append(byCell[key], t)
	}
	return []experiments.CheckRow{qpPoints(in.Name, cfg, cells, byCell, qpCells(cfg, cells, byCell))}
}

func init() { experiments.RegisterGenericCheck(genericPoints) }

// denseRows copies a matrix into rows.
func denseRows(m interface {
	Dims() (int, int)
	At(i, j int) float64
}) [][]float64 {
	r, c := m.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = m.At(i, j)
		}
	}
	return out
}

// solveAgree bounds the disagreement of the gate's optimum (recheck.EqQP)
// and the run's (problems.LCQP.ExactKKT), relative to the magnitude: both
// solves are backward stable and H = Σ A_i has eigenvalues in [n/2, n]
// (Appendix E.2's A_i), so they differ by about κ·u; on every Table 4 cell
// (d ≤ 500, both RNGs) they agree to 2e-15 in w* and 5e-16 in f* and
// ||ν*||₁, a factor of about 500 below it.
const solveAgree = 1e-12

// qpCell is a QP cell rebuilt for the gate: its instance drawn again from
// the configuration, read as plain rows (server first, as the solver
// numbers the parties), and its optimum solved independently of the run
// (recheck.EqQP: range-space Cholesky, not the run's LU of the KKT matrix).
type qpCell struct {
	parties []recheck.QPData
	wstar   []float64
	fstar   float64
	fScale  float64 // Σ_i |f_i(w*)|, the magnitude of f*'s terms
	nu1     float64 // ||ν*||₁
	err     error
}

// qpCells rebuilds each cell of cells that has trials, once for every rule
// that reads it.
func qpCells(cfg *QPConfig, cells []experiments.VerifyCell, byCell map[string][]QPTrial) map[string]*qpCell {
	out := map[string]*qpCell{}
	for _, c := range cells {
		if len(byCell[c.Key]) == 0 {
			continue
		}
		inst, err := QPInstance(cfg, c.N, c.D, c.M)
		if err != nil {
			out[c.Key] = &qpCell{err: err}
			continue
		}
		out[c.Key] = rebuildQP(inst)
	}
	return out
}

// QPParties reads inst's parties as plain rows, server first (as the
// solver numbers them; an empty server when it has no equalities).
func QPParties(inst *problems.LCQP) []recheck.QPData {
	parties := []recheck.QPData{{}}
	if inst.Server != nil && inst.Server.C != nil {
		parties[0] = recheck.QPData{C: denseRows(inst.Server.C), D: inst.Server.D}
	}
	for _, cl := range inst.Clients {
		p := recheck.QPData{B: cl.B, D: cl.D}
		if cl.A != nil {
			p.A = denseRows(cl.A)
		}
		if cl.C != nil {
			p.C = denseRows(cl.C)
		}
		parties = append(parties, p)
	}
	return parties
}

// rebuildQP reads inst as plain rows, server first, and solves it
// independently of the run (recheck.EqQP).
func rebuildQP(inst *problems.LCQP) *qpCell {
	qc := &qpCell{parties: QPParties(inst)}
	var nu []float64
	if qc.wstar, nu, qc.fstar, qc.err = recheck.EqQP(qc.parties, inst.Dim); qc.err != nil {
		return qc
	}
	for _, x := range nu {
		qc.nu1 += math.Abs(x)
	}
	for _, p := range qc.parties {
		qc.fScale += math.Abs(recheck.QP(p.A, p.B, p.C, p.D, qc.wstar).F)
	}
	return qc
}

// QPRecheck recomputes the certificate of runs on one equality-
// constrained QP instance (eq. (84), or the conic paper's eq. (25) without
// balls) at their stored (w, μ): the instance read as plain rows and solved
// independently of the run, as Table 4's gate does.
type QPRecheck struct{ qc *qpCell }

// NewQPRecheck rebuilds inst for RunMessage; an instance the independent
// solve refuses is an error.
func NewQPRecheck(inst *problems.LCQP) (*QPRecheck, error) {
	qc := rebuildQP(inst)
	if qc.err != nil {
		return nil, qc.err
	}
	return &QPRecheck{qc}, nil
}

// FStar is the independent solve's optimum.
func (q *QPRecheck) FStar() float64 { return q.qc.fstar }

// RunMessage recomputes run a at its stored (w, μ) (objective, violation,
// Definition 1's residuals, status, inner cap, distance to w* and
// objective band, as Table 4's certificate rule) and returns what
// disagrees, "" when nothing. a must store w.
func (q *QPRecheck) RunMessage(a *QPAlg, eps [2]float64) string {
	if len(a.W) != len(q.qc.wstar) {
		return fmt.Sprintf("w has %d entries, want d = %d", len(a.W), len(q.qc.wstar))
	}
	return qpRunMessage(q.qc, a, eps)
}

// qpPoints is the check row of the recomputed certificate of Table 4: each
// cell rebuilt (qpCells), then every run's objective, violation, KKT
// residuals and status recomputed at its stored (w, μ) by recheck's loops,
// and its distance to the independent optimum w* and objective band
// (ObjBand) with them; the band must bound the recomputed |f(w) − f*|.
func qpPoints(name string, cfg *QPConfig, cells []experiments.VerifyCell, byCell map[string][]QPTrial, rebuilt map[string]*qpCell) experiments.CheckRow {
	var v experiments.Verifier
	eps := [2]float64{cfg.Eps1, cfg.Eps2}
	runs, uncapped := 0, 0
	forRebuilt(&v, cells, byCell, rebuilt, func(c experiments.VerifyCell, qc *qpCell, trials []QPTrial) {
		for _, t := range trials {
			for _, a := range []struct {
				name string
				alg  *QPAlg
			}{{"Algorithm 1", &t.Alg1}, {"cProx-AL", &t.CProx}} {
				runs++
				if len(a.alg.W) == 0 {
					v.Fail("%s trial %d %s: no stored point w (a result of an older fedcon): rerun the experiment", c.Label, t.Trial, a.name)
					continue
				}
				if len(a.alg.W) != c.D {
					v.Fail("%s trial %d %s: w has %d entries, want d = %d", c.Label, t.Trial, a.name, len(a.alg.W), c.D)
					continue
				}
				if a.alg.InnerCapped == nil {
					uncapped++
				}
				if msg := qpRunMessage(qc, a.alg, eps); msg != "" {
					v.Fail("%s trial %d %s: %s", c.Label, t.Trial, a.name, msg)
				}
			}
		}
	})
	return v.Row(name, "certificate recomputed", fmt.Sprintf("%d runs: objective, violation, KKT residuals and status recomputed at the stored (w, μ) on the instance drawn again, agreeing within %g × the terms' magnitude; "+
		"dist_to_optimum_inf and objective_kkt_band recomputed against an independent solve's w* and ||ν*||₁, agreeing within %g × (1 + their magnitude) propagated, and the band bounding the recomputed |f(w) − f*|%s", runs, recheck.Gamma, solveAgree, cappedNote(uncapped)))
}

// forRebuilt calls f for each cell with trials whose instance was
// rebuilt, and fails v for each cell that could not be.
func forRebuilt(v *experiments.Verifier, cells []experiments.VerifyCell, byCell map[string][]QPTrial, rebuilt map[string]*qpCell, f func(experiments.VerifyCell, *qpCell, []QPTrial)) {
	for _, c := range cells {
		trials := byCell[c.Key]
		if len(trials) == 0 {
			continue
		}
		qc := rebuilt[c.Key]
		if qc.err != nil {
			v.Fail("%s: %v", c.Label, qc.err)
			continue
		}
		f(c, qc, trials)
	}
}

// qpRunMessage recomputes one QP run at its stored (w, μ) on the rebuilt
// cell and returns what disagrees ("" when nothing).
func qpRunMessage(qc *qpCell, a *QPAlg, eps [2]float64) string {
	var re []recheck.Party
	var obj, objScale, viol float64
	for _, p := range qc.parties {
		rp := recheck.QP(p.A, p.B, p.C, p.D, a.W)
		re = append(re, rp)
		obj += rp.F
		objScale += math.Abs(rp.F)
		for _, x := range rp.C {
			viol = math.Max(viol, math.Abs(x))
		}
	}
	if msg := PointMessage(a.Status, a.Residuals, re, a.Mu, eps); msg != "" {
		return msg
	}
	if msg := CappedMessage(a.Status, a.InnerCapped); msg != "" {
		return msg
	}
	if !recheck.Agree(a.Objective, obj, objScale) {
		return fmt.Sprintf("objective %.12g, recomputed at w %.12g", a.Objective, obj)
	}
	if !recheck.Agree(a.Violation, viol, viol) {
		return fmt.Sprintf("feasibility_violation %.6g, recomputed at w %.6g", a.Violation, viol)
	}
	var dist, dist2, wmax, mu1 float64
	for j, x := range a.W {
		e := x - qc.wstar[j]
		dist, dist2 = math.Max(dist, math.Abs(e)), dist2+e*e
		wmax = math.Max(wmax, math.Abs(qc.wstar[j]))
	}
	if math.Abs(a.DistOpt-dist) > solveAgree*(1+wmax) {
		return fmt.Sprintf("dist_to_optimum_inf %.6g, recomputed from an independent solve %.6g", a.DistOpt, dist)
	}
	stat, _, statScale, feasScale, _ := recheck.KKT(re, a.Mu) // PointMessage has checked μ
	for _, m := range a.Mu {
		for _, x := range m {
			mu1 += math.Abs(x)
		}
	}
	// ObjBand's formula at the stored residuals, which the rules above
	// have checked, and at the independent w* and ||ν*||₁: it differs from
	// the stored band only by the two solves' disagreement (solveAgree)
	// and a few roundings.
	sd, nrm, mx := math.Sqrt(float64(len(a.W))), math.Sqrt(dist2), math.Max(mu1, qc.nu1)
	st, vi := a.Residuals.Stationarity, a.Violation
	band := sd*st*nrm + mx*vi
	slack := sd*st*sd*solveAgree*(1+wmax) + vi*solveAgree*(1+qc.nu1) + 1e-14*band
	if math.Abs(a.ObjBand-band) > slack {
		return fmt.Sprintf("objective_kkt_band %.6g, recomputed at (w, μ) and an independent w* %.6g", a.ObjBand, band)
	}
	// The band bounds |f(w) - f*| (convexity); at the recomputed residuals,
	// with their rounding bounds and those of f(w) and f*.
	bandR := sd*stat*nrm + mx*viol
	slackR := sd*nrm*recheck.Gamma*(1+statScale) + mx*recheck.Gamma*feasScale + recheck.Gamma*(1+objScale+qc.fScale)
	if gap := math.Abs(obj - qc.fstar); gap > bandR+slackR {
		return fmt.Sprintf("|f(w) - f*| = %.6g recomputed, above its objective band %.6g", gap, bandR)
	}
	return ""
}
