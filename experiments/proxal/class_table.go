package proxal

import (
	"fmt"
	"math"
	"slices"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

// ClassRow aggregates one (dataset, n) of a classification table. Statistics
// follow the authors' code: the objective over clients × trials
// (concatenated per-client values), the feasibility mean and max per trial
// and then over trials, the relative difference per trial then over trials.
type ClassRow struct {
	Dataset   string              `json:"dataset"`
	N         int                 `json:"n"`
	Obj1      experiments.MeanStd `json:"objective_alg1"`
	ObjC      experiments.MeanStd `json:"objective_cprox"`
	RelDiff   experiments.MeanStd `json:"reldiff"`
	FeasMean1 experiments.MeanStd `json:"feas_mean_alg1"`
	FeasMax1  experiments.MeanStd `json:"feas_max_alg1"`
	FeasMeanC experiments.MeanStd `json:"feas_mean_cprox"`
	FeasMaxC  experiments.MeanStd `json:"feas_max_cprox"`
	WorstMax1 float64             `json:"feas_worst_alg1"`
	WorstMaxC float64             `json:"feas_worst_cprox"`
	Outer1    experiments.MeanStd `json:"outer_alg1"`
	OuterC    experiments.MeanStd `json:"outer_cprox"`
	Inner1    experiments.MeanStd `json:"inner_alg1"`
	InnerC    experiments.MeanStd `json:"inner_cprox"`
	Passes1   experiments.MeanStd `json:"passes_alg1"`
	PassesC   experiments.MeanStd `json:"passes_cprox"`
	Rounds1   experiments.MeanStd `json:"rounds_alg1"`
	MBytes1   experiments.MeanStd `json:"mbytes_alg1"`
	// SimWall1 is the straggler model's simulated wall time (seconds; zero
	// without the model).
	SimWall1 experiments.MeanStd `json:"sim_wall_alg1,omitzero"`
	Wall1    experiments.MeanStd `json:"wall_alg1"`
	WallC    experiments.MeanStd `json:"wall_cprox"`
	KKT1     [2]float64          `json:"kkt_max_alg1"`
	KKTC     [2]float64          `json:"kkt_max_cprox"`
	Flags    string              `json:"flags"`
	experiments.Divergence
	Dropped    int                      `json:"rows_dropped_by_partition"`
	Uncons1    experiments.MeanStd      `json:"unconstrained_feas"`
	Uncons1Max float64                  `json:"unconstrained_feas_max"`
	Published  experiments.PublishedRow `json:"published,omitzero"`
}

// ClassRowOf aggregates the trials of cell (dataset, n) into its row.
func ClassRowOf(dataset string, n int, trials []ClassTrial, r, eps1, eps2 float64) ClassRow {
	row := ClassRow{Dataset: dataset, N: n, Divergence: experiments.Divergence{Trials: len(trials)}}
	var o1, oc []float64
	// per is a statistic over the trials for which keep holds.
	per := func(keep func(*ClassTrial) bool, f func(*ClassTrial) float64) experiments.MeanStd {
		var x []float64
		for i := range trials {
			if keep(&trials[i]) {
				x = append(x, f(&trials[i]))
			}
		}
		return experiments.MeanStdOf(x)
	}
	all := func(*ClassTrial) bool { return true }
	// Diverged runs stay out of the solution statistics (Divergence).
	ok1 := func(t *ClassTrial) bool { return t.Alg1.Status != solver.Diverged }
	okC := func(t *ClassTrial) bool { return t.CProx.Status != solver.Diverged }
	both := func(t *ClassTrial) bool { return ok1(t) && okC(t) }
	flags := map[string]int{}
	for i := range trials {
		t := &trials[i]
		if both(t) {
			row.RelDiffTrials++
		}
		for _, a := range []struct {
			name     string
			alg      *ClassAlg
			obj      *[]float64
			worst    *float64
			kkt      *[2]float64
			diverged *int
		}{{"A1", &t.Alg1, &o1, &row.WorstMax1, &row.KKT1, &row.Diverged1},
			{"cP", &t.CProx, &oc, &row.WorstMaxC, &row.KKTC, &row.DivergedC}} {
			if !Tally(flags, a.name, a.alg.Status, a.alg.Stats, a.alg.Residuals, [2]float64{eps1, eps2}, a.kkt, a.diverged) {
				continue
			}
			*a.obj = append(*a.obj, a.alg.Loss0...)
			*a.worst = math.Max(*a.worst, experiments.MaxOf(a.alg.Loss1))
			if a.alg.Status == solver.Converged && experiments.MaxOf(a.alg.Loss1) > r+eps2 {
				flags[a.name+" infeasible"]++
			}
		}
	}
	row.Obj1, row.ObjC = experiments.MeanStdOf(o1), experiments.MeanStdOf(oc)
	row.RelDiff = per(both, func(t *ClassTrial) float64 { return t.RelDiff })
	row.FeasMean1 = per(ok1, func(t *ClassTrial) float64 { return experiments.MeanStdOf(t.Alg1.Loss1).Mean })
	row.FeasMax1 = per(ok1, func(t *ClassTrial) float64 { return experiments.MaxOf(t.Alg1.Loss1) })
	row.FeasMeanC = per(okC, func(t *ClassTrial) float64 { return experiments.MeanStdOf(t.CProx.Loss1).Mean })
	row.FeasMaxC = per(okC, func(t *ClassTrial) float64 { return experiments.MaxOf(t.CProx.Loss1) })
	row.Outer1 = per(all, func(t *ClassTrial) float64 { return float64(t.Alg1.Stats.OuterIterations) })
	row.OuterC = per(all, func(t *ClassTrial) float64 { return float64(t.CProx.Stats.OuterIterations) })
	row.Inner1 = per(all, func(t *ClassTrial) float64 { return float64(t.Alg1.Stats.InnerIterations) })
	row.InnerC = per(all, func(t *ClassTrial) float64 { return float64(t.CProx.Stats.InnerIterations) })
	row.Passes1 = per(all, func(t *ClassTrial) float64 { return float64(t.Alg1.Stats.Evaluations) })
	row.PassesC = per(all, func(t *ClassTrial) float64 { return float64(t.CProx.Stats.Evaluations) })
	row.Rounds1 = per(all, func(t *ClassTrial) float64 { return float64(t.Alg1.Stats.Rounds) })
	row.MBytes1 = per(all, func(t *ClassTrial) float64 {
		return float64(t.Alg1.Stats.BytesDown()+t.Alg1.Stats.BytesUp()) / 1e6
	})
	if trials[0].Alg1.Stats.SimWall > 0 {
		row.SimWall1 = per(all, func(t *ClassTrial) float64 { return t.Alg1.Stats.SimWall })
	}
	row.Wall1 = per(all, func(t *ClassTrial) float64 { return t.Alg1.Wall })
	row.WallC = per(all, func(t *ClassTrial) float64 { return t.CProx.Wall })
	row.Flags = experiments.FlagString(flags)
	return row
}

// DivergedNote explains the solution columns' treatment of diverged runs.
const DivergedNote = "A run that ends Diverged (‖w‖∞ beyond the solver's MaxNorm, 1e10, or a non-finite value) is flagged and left out of the solution columns (objective, feasibility, relative difference, worst max, KKT); \"-\" where no run is left."

// ClassTables renders a classification table in the paper's layout (Tables
// 1-2) and a table of what the paper lacks. key(row) picks the published row.
func ClassTables(title, feasName string, rows []ClassRow, withDataset bool, r float64, pub func(ClassRow) []float64) []*experiments.Table {
	head := []string{}
	if withDataset {
		head = append(head, "dataset")
	}
	main := &experiments.Table{Title: title, Header: append(append([]string{}, head...), "n",
		"objective Alg. 1", "objective cProx-AL", "relative difference",
		feasName+" mean Alg. 1", feasName+" max Alg. 1", feasName+" mean cProx-AL", feasName+" max cProx-AL",
		"paper objective Alg. 1 / cProx-AL", "paper max Alg. 1 / cProx-AL")}
	extra := &experiments.Table{Title: title + " — what the paper does not report (means over trials)", Header: append(append([]string{}, head...), "n",
		"outer A1 / cP", "inner A1 / cP", "passes A1 / cP", "rounds A1", "MB A1",
		"KKT stat / feas max A1", "KKT stat / feas max cP", "worst max A1 / cP", "unconstrained "+feasName+" mean / max",
		"wall s A1 / cP", "flags")}
	main.Keys, extra.Keys = len(head)+1, len(head)+1
	brief := &experiments.Table{Title: title, Keys: len(head) + 1, Header: append(append([]string{}, head...), "n",
		"objective A1 / cP", "max "+feasName+" A1 / cP", "paper objective", "flags")}
	main.Brief, extra.Detail = brief, true
	clocked := slices.ContainsFunc(rows, func(r ClassRow) bool { return r.SimWall1.Mean > 0 })
	if clocked {
		extra.Header = slices.Insert(extra.Header, len(extra.Header)-1, "simulated s A1")
	}
	for _, row := range rows {
		lead := []string{}
		if withDataset {
			lead = append(lead, row.Dataset)
		}
		paperObj, paperMax := "-", "-"
		if p := pub(row); len(p) >= 14 {
			paperObj = fmt.Sprintf("%.2f / %.2f", p[0], p[2])
			paperMax = fmt.Sprintf("%.2f / %.2f", p[8], p[12])
		}
		brief.Rows = append(brief.Rows, append(append([]string{}, lead...), fmt.Sprint(row.N),
			row.SolCell(experiments.CellA1, fmt.Sprintf("%.4f", row.Obj1.Mean))+" / "+row.SolCell(experiments.CellCP, fmt.Sprintf("%.4f", row.ObjC.Mean)),
			row.SolCell(experiments.CellA1, fmt.Sprintf("%.4f", row.FeasMax1.Mean))+" / "+row.SolCell(experiments.CellCP, fmt.Sprintf("%.4f", row.FeasMaxC.Mean)),
			paperObj, row.Flags))
		main.Rows = append(main.Rows, append(append([]string{}, lead...), fmt.Sprint(row.N),
			row.SolCell(experiments.CellA1, experiments.Ms(row.Obj1, 4)), row.SolCell(experiments.CellCP, experiments.Ms(row.ObjC, 4)), row.SolCell(experiments.CellBoth, experiments.MsSci(row.RelDiff)),
			row.SolCell(experiments.CellA1, experiments.Ms(row.FeasMean1, 4)), row.SolCell(experiments.CellA1, experiments.Ms(row.FeasMax1, 4)),
			row.SolCell(experiments.CellCP, experiments.Ms(row.FeasMeanC, 4)), row.SolCell(experiments.CellCP, experiments.Ms(row.FeasMaxC, 4)),
			paperObj, paperMax))
		extra.Rows = append(extra.Rows, append(append([]string{}, lead...), fmt.Sprint(row.N),
			fmt.Sprintf("%.1f / %.1f", row.Outer1.Mean, row.OuterC.Mean),
			fmt.Sprintf("%.0f / %.0f", row.Inner1.Mean, row.InnerC.Mean),
			fmt.Sprintf("%.0f / %.0f", row.Passes1.Mean, row.PassesC.Mean),
			fmt.Sprintf("%.0f", row.Rounds1.Mean), fmt.Sprintf("%.2f", row.MBytes1.Mean),
			row.SolCell(experiments.CellA1, fmt.Sprintf("%s / %s", experiments.Sci(row.KKT1[0]), experiments.Sci(row.KKT1[1]))),
			row.SolCell(experiments.CellCP, fmt.Sprintf("%s / %s", experiments.Sci(row.KKTC[0]), experiments.Sci(row.KKTC[1]))),
			row.SolCell(experiments.CellA1, fmt.Sprintf("%.4f", row.WorstMax1))+" / "+row.SolCell(experiments.CellCP, fmt.Sprintf("%.4f", row.WorstMaxC)),
			fmt.Sprintf("%.4f / %.4f", row.Uncons1.Mean, row.Uncons1Max),
			fmt.Sprintf("%.2f / %.2f", row.Wall1.Mean, row.WallC.Mean),
			row.Flags))
		if clocked {
			r := extra.Rows[len(extra.Rows)-1]
			extra.Rows[len(extra.Rows)-1] = slices.Insert(r, len(r)-1, fmt.Sprintf("%.1f", row.SimWall1.Mean))
		}
	}
	main.Notes = append(main.Notes,
		"Objective: mean (std) of the per-client losses over clients × trials; "+feasName+" mean/max: per trial over the parties, then mean (std) over trials; relative difference |f_A1 - f_cP|/|f_cP| per trial, then mean (std) — as the authors' code computed them (population std).",
		fmt.Sprintf("Threshold r = %g. Flags count trials that did not end Converged, hit an inner cap, had a local solve stop short of its tolerance (local tol missed), ended Converged with audited KKT residuals above (ε1, ε2) (KKT above ε), or ended above r + ε2.", r),
		DivergedNote)
	brief.Notes = append(brief.Notes,
		fmt.Sprintf("Means over trials: objective of Algorithm 1 (A1) and cProx-AL (cP), the largest party's %s (threshold r = %g), the paper's objective for A1 / cP. Flags count trials that did not end Converged, hit a cap, or ended above r + ε2.", feasName, r))
	extra.Notes = append(extra.Notes, "passes = evaluations of a party (one pass over its rows each, Hessians included); KKT residuals are Definition 1's at the returned (w, μ).")
	if clocked {
		extra.Notes = append(extra.Notes, "simulated s = the straggler model's clock (docs/participation.md), not measured time.")
	}
	return []*experiments.Table{main, extra}
}

// Tables renders Table 1.
func (r *NPResult) Tables() []*experiments.Table {
	rr := 0.2
	var al *ALConfig
	if cfg, ok := r.Info.Config.(*NPConfig); ok {
		rr, al = cfg.R, &cfg.ALConfig
	}
	ts := WithAlgorithm2Note(ClassTables("Table 1: Neyman-Pearson classification, eq. (30) — class-0 loss (objective), class-1 loss (feasibility)",
		"class-1 loss", r.Rows, true, rr, func(row ClassRow) []float64 { return row.Published.Values }), al)
	ts[0].AddNotes(experiments.PaperNotes("published", "table1", Datasets(r.Rows))...)
	return ts
}

// Datasets are the rows' data sets, in order, each once.
func Datasets(rows []ClassRow) []string {
	var out []string
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1] != r.Dataset {
			out = append(out, r.Dataset)
		}
	}
	return out
}
