package proxal

import (
	"fmt"
	"strings"

	"github.com/fedcon/fedcon/experiments"
)

// SweepPointResult is one point's outcome: its configuration and rows.
type SweepPointResult struct {
	Values    experiments.SweepPoint `json:"values"`
	Config    any                    `json:"config"`
	TrialHash string                 `json:"trial_hash"`
	QPRows    []QPRow                `json:"qp_rows,omitempty"`
	ClassRows []ClassRow             `json:"class_rows,omitempty"`
	Error     string                 `json:"error,omitempty"`
}

// SweepResult is a whole sweep: what sweep result files hold.
type SweepResult struct {
	Info   *experiments.RunInfo    `json:"run"`
	Preset string                  `json:"preset"`
	Axes   []experiments.SweepAxis `json:"axes"`
	Points []SweepPointResult      `json:"points"`
}

// Table renders the sweep as one table with a column per swept key, then
// each point's rows: objectives, relative difference, feasibility,
// iterations, KKT residuals of Algorithm 1, wall time and flags.
func (s *SweepResult) Table() *experiments.Table {
	t := &experiments.Table{Title: fmt.Sprintf("sweep over %s (preset %s) — means over trials", s.axisNames(), s.Preset)}
	for _, ax := range s.Axes {
		t.Header = append(t.Header, ax.Key)
	}
	qp := len(s.Points) > 0 && s.Points[0].QPRows != nil
	if qp {
		t.Header = append(t.Header, "n", "d", "m̃", "objective A1", "objective cP", "f*", "rel. diff.", "feas. viol. A1",
			"outer A1 / cP", "inner A1", "KKT stat / feas A1", "wall s A1", "flags")
	} else {
		t.Header = append(t.Header, "dataset", "n", "objective A1", "objective cP", "rel. diff.", "max feas. A1 / cP",
			"outer A1 / cP", "inner A1", "KKT stat / feas A1", "wall s A1", "flags")
	}
	for _, p := range s.Points {
		lead := make([]string, len(p.Values))
		for i, v := range p.Values {
			lead[i] = fmt.Sprint(v)
		}
		if p.Error != "" {
			row := append(lead, make([]string, len(t.Header)-len(lead))...)
			row[len(row)-1] = "error: " + p.Error
			t.Rows = append(t.Rows, row)
			continue
		}
		for _, r := range p.QPRows {
			t.Rows = append(t.Rows, append(append([]string{}, lead...), fmt.Sprint(r.N), fmt.Sprint(r.D), fmt.Sprint(r.M),
				r.SolCell(experiments.CellA1, fmt.Sprintf("%.4f", r.Obj1.Mean)), r.SolCell(experiments.CellCP, fmt.Sprintf("%.4f", r.ObjC.Mean)), fmt.Sprintf("%.4f", r.FStar),
				r.SolCell(experiments.CellBoth, experiments.Sci(r.RelDiff.Mean)), r.SolCell(experiments.CellA1, experiments.Sci(r.Viol1.Mean)),
				fmt.Sprintf("%.1f / %.1f", r.Outer1.Mean, r.OuterC.Mean), fmt.Sprintf("%.0f", r.Inner1.Mean),
				r.SolCell(experiments.CellA1, fmt.Sprintf("%s / %s", experiments.Sci(r.KKT1[0]), experiments.Sci(r.KKT1[1]))), fmt.Sprintf("%.2f", r.Wall1.Mean), r.Flags))
		}
		for _, r := range p.ClassRows {
			t.Rows = append(t.Rows, append(append([]string{}, lead...), r.Dataset, fmt.Sprint(r.N),
				r.SolCell(experiments.CellA1, fmt.Sprintf("%.4f", r.Obj1.Mean)), r.SolCell(experiments.CellCP, fmt.Sprintf("%.4f", r.ObjC.Mean)), r.SolCell(experiments.CellBoth, experiments.Sci(r.RelDiff.Mean)),
				r.SolCell(experiments.CellA1, fmt.Sprintf("%.4f", r.WorstMax1))+" / "+r.SolCell(experiments.CellCP, fmt.Sprintf("%.4f", r.WorstMaxC)),
				fmt.Sprintf("%.1f / %.1f", r.Outer1.Mean, r.OuterC.Mean), fmt.Sprintf("%.0f", r.Inner1.Mean),
				r.SolCell(experiments.CellA1, fmt.Sprintf("%s / %s", experiments.Sci(r.KKT1[0]), experiments.Sci(r.KKT1[1]))), fmt.Sprintf("%.2f", r.Wall1.Mean), r.Flags))
		}
	}
	t.Notes = append(t.Notes, "Each point runs the preset with the swept keys set; max feas. is the worst constraint value over parties and trials; flags as in the tables.")
	return t
}

func (s *SweepResult) axisNames() string {
	names := make([]string, len(s.Axes))
	for i, ax := range s.Axes {
		names[i] = ax.Key
	}
	return strings.Join(names, " × ")
}

// ScalingFigure draws, for a sweep whose base lists several client counts
// of a classification preset, rounds (Algorithm 1), passes over client data
// and wall time against n on log-log axes: one colour per swept point and
// data set, Algorithm 1 solid, cProx-AL dashed. ok is false when there is
// nothing to draw (a QP sweep, or one n per point).
func (s *SweepResult) ScalingFigure() (fig *experiments.Figure, ok bool) {
	panels := []experiments.Panel{
		{Title: "communication rounds (Algorithm 1)", XLabel: "clients n", YLabel: "rounds"},
		{Title: "passes over client data", XLabel: "clients n", YLabel: "passes"},
		{Title: "wall time per trial", XLabel: "clients n", YLabel: "seconds"},
	}
	color := 0
	for _, p := range s.Points {
		byDS := map[string][]ClassRow{}
		var order []string
		for _, r := range p.ClassRows {
			if _, seen := byDS[r.Dataset]; !seen {
				order = append(order, r.Dataset)
			}
			byDS[r.Dataset] = append(byDS[r.Dataset], r)
		}
		for _, ds := range order {
			rows := byDS[ds]
			if len(rows) < 2 {
				continue
			}
			label := ds
			for i, ax := range s.Axes {
				label += fmt.Sprintf(", %s %v", ax.Key, p.Values[i])
			}
			series := func(name, dash string, y func(ClassRow) float64) experiments.Series {
				sr := experiments.Series{Name: name, Color: color, Dash: dash}
				for _, r := range rows {
					if v := y(r); v > 0 {
						sr.X, sr.Y = append(sr.X, float64(r.N)), append(sr.Y, v)
					}
				}
				return sr
			}
			panels[0].Series = append(panels[0].Series, series("A1 "+label, "", func(r ClassRow) float64 { return r.Rounds1.Mean }))
			panels[1].Series = append(panels[1].Series, series("A1 "+label, "", func(r ClassRow) float64 { return r.Passes1.Mean }),
				series("cP "+label, "dash", func(r ClassRow) float64 { return r.PassesC.Mean }))
			panels[2].Series = append(panels[2].Series, series("A1 "+label, "", func(r ClassRow) float64 { return r.Wall1.Mean }),
				series("cP "+label, "dash", func(r ClassRow) float64 { return r.WallC.Mean }))
			color++
		}
	}
	if color == 0 {
		return nil, false
	}
	for i := range panels {
		panels[i].XLog, panels[i].YLog = true, true
	}
	return &experiments.Figure{Title: fmt.Sprintf("sweep over %s (preset %s): cost of a certified answer against n, means over trials", s.axisNames(), s.Preset),
		Panels: panels}, true
}

// ParticipationFigure draws, for a classification sweep with a
// participation axis, Algorithm 1's rounds, passes over client data and
// megabytes sent (and, under the straggler model, the simulated wall
// time) against the fraction of clients sampled per round: one
// curve per data set, n and value of the other axes (drop_prob), full
// participation at the right. ok is false without such an axis.
func (s *SweepResult) ParticipationFigure() (fig *experiments.Figure, ok bool) {
	pa := -1
	for i, ax := range s.Axes {
		if ax.Key == "participation" {
			pa = i
		}
	}
	if pa < 0 {
		return nil, false
	}
	panels := []experiments.Panel{
		{Title: "communication rounds (Algorithm 1)", XLabel: "participation (fraction of clients per round)", YLabel: "rounds"},
		{Title: "passes over client data (Algorithm 1)", XLabel: "participation (fraction of clients per round)", YLabel: "passes"},
		{Title: "megabytes sent, both ways (Algorithm 1)", XLabel: "participation (fraction of clients per round)", YLabel: "MB"},
	}
	// A curve per (data set, n, the other axes' values), its points the
	// participation values in sweep order.
	type curve struct {
		name         string
		color, style int
		x            []float64
		r, p, m, w   []float64
	}
	var order []string
	curves := map[string]*curve{}
	clocked := false
	// Colour by data set and n, line style by the other axes' values.
	colors, styles := map[string]int{}, map[string]int{}
	index := func(m map[string]int, k string) int {
		if _, ok := m[k]; !ok {
			m[k] = len(m)
		}
		return m[k]
	}
	for _, pt := range s.Points {
		frac, ok := asFloat(pt.Values[pa])
		if !ok {
			return nil, false
		}
		for _, r := range pt.ClassRows {
			group := fmt.Sprintf("%s n = %d", r.Dataset, r.N)
			other := ""
			for i, ax := range s.Axes {
				if i != pa {
					other += fmt.Sprintf(", %s %v", ax.Key, pt.Values[i])
				}
			}
			name := group + other
			c := curves[name]
			if c == nil {
				c = &curve{name: name, color: index(colors, group), style: index(styles, other)}
				curves[name] = c
				order = append(order, name)
			}
			c.x = append(c.x, frac)
			c.r, c.p, c.m = append(c.r, r.Rounds1.Mean), append(c.p, r.Passes1.Mean), append(c.m, r.MBytes1.Mean)
			c.w = append(c.w, r.SimWall1.Mean)
			clocked = clocked || r.SimWall1.Mean > 0
		}
	}
	if clocked {
		panels = append(panels, experiments.Panel{Title: "simulated wall time (straggler model)", XLabel: "participation (fraction of clients per round)", YLabel: "seconds"})
	}
	dashes := []string{"", "dash", "dashdot"}
	for _, name := range order {
		c := curves[name]
		if len(c.x) < 2 {
			continue
		}
		ys := [][]float64{c.r, c.p, c.m, c.w}
		for k, y := range ys[:len(panels)] {
			panels[k].Series = append(panels[k].Series, experiments.Series{Name: c.name, Color: c.color, Dash: dashes[c.style%len(dashes)], X: c.x, Y: y})
		}
	}
	if len(panels[0].Series) == 0 {
		return nil, false
	}
	for i := range panels {
		panels[i].XLog = true
	}
	return &experiments.Figure{Title: fmt.Sprintf("sweep over %s (preset %s): cost of a certified answer against participation, means over trials", s.axisNames(), s.Preset),
		Panels: panels}, true
}

// asFloat reads a swept value (a YAML number) as a float64.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}
