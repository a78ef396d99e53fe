package ssca

import (
	"fmt"
	"strings"

	"github.com/fedcon/fedcon/experiments"
)

// CurveStats are one curve's results over its runs, at t = T.
type CurveStats struct {
	Label string              `json:"label"`
	Key   string              `json:"key"`
	Runs  int                 `json:"runs"`
	Cost  experiments.MeanStd `json:"cost"`
	// MeanCost is the trapezoid mean of F(w^t) over the evaluated t.
	MeanCost experiments.MeanStd `json:"mean_cost"`
	Acc      experiments.MeanStd `json:"test_acc"`
	Diverged int                 `json:"diverged"`
}

// SweepPointResult is one point of a sweep over an SSCA figure's
// configuration: its values, the curves' statistics and the claims.
type SweepPointResult struct {
	Values    experiments.SweepPoint `json:"values"`
	Config    *Config                `json:"config"`
	TrialHash string                 `json:"trial_hash"`
	Curves    []CurveStats           `json:"curves"`
	Claims    []ClaimRow             `json:"claims"`
}

// NewSweepPoint summarises the curves of figure fig at one sweep point.
func NewSweepPoint(values experiments.SweepPoint, cfg *Config, fig string, curves []Curve) SweepPointResult {
	p := SweepPointResult{Values: values, Config: cfg, TrialHash: cfg.TrialHash(), Claims: cfg.Claims(fig, map[string][]Curve{fig: curves})}
	for _, c := range curves {
		st := CurveStats{Label: c.Spec.Label(), Key: c.Spec.Key(), Runs: len(c.Trials)}
		var cost, mean, acc []float64
		for _, tr := range c.Trials {
			if tr.Status == statusDiverged {
				st.Diverged++
			}
			if v, ok := finalCost.val(tr, cfg.Rounds); ok {
				cost = append(cost, v)
			}
			if v, ok := meanCost.val(tr, cfg.Rounds); ok {
				mean = append(mean, v)
			}
			if v, ok := finalAcc.val(tr, cfg.Rounds); ok {
				acc = append(acc, v)
			}
		}
		st.Cost, st.MeanCost, st.Acc = experiments.MeanStdOf(cost), experiments.MeanStdOf(mean), experiments.MeanStdOf(acc)
		p.Curves = append(p.Curves, st)
	}
	return p
}

// SweepResult is a sweep over an SSCA figure: what its result files hold.
type SweepResult struct {
	Info   *experiments.RunInfo    `json:"run"`
	Preset string                  `json:"preset"`
	Axes   []experiments.SweepAxis `json:"axes"`
	Points []SweepPointResult      `json:"points"`
}

// Tables are the sweep's two tables: per point and curve the results at
// t = T, and per point the claims' paired comparisons.
func (s *SweepResult) Tables() []*experiments.Table {
	names := make([]string, len(s.Axes))
	for i, ax := range s.Axes {
		names[i] = ax.Key
	}
	axes := strings.Join(names, " × ")
	curves := &experiments.Table{Title: fmt.Sprintf("sweep over %s (%s): results at t = T, mean (std) over runs", axes, s.Preset),
		Header: append(append([]string{}, names...), "method", "runs", "F(w^T)", "mean F(w^t), t ≤ T", "test acc.", "diverged"), Keys: len(names) + 1}
	claims := &experiments.Table{Title: fmt.Sprintf("sweep over %s (%s): Section VI's claims, paired by seed", axes, s.Preset),
		Header: append(append([]string{}, names...), "claim", "A", "B", "metric", "expect", "pairs", "mean A−B", "s.e.", "p (t)", "verdict"), Keys: len(names)}
	for _, p := range s.Points {
		lead := make([]string, len(p.Values))
		for i, v := range p.Values {
			lead[i] = fmt.Sprint(v)
		}
		for _, c := range p.Curves {
			curves.Rows = append(curves.Rows, append(append([]string{}, lead...), c.Label, fmt.Sprint(c.Runs), ms4(c.Cost), ms4(c.MeanCost),
				ms4(c.Acc), fmt.Sprint(c.Diverged)))
		}
		for _, r := range p.Claims {
			claims.Rows = append(claims.Rows, append(append([]string{}, lead...), r.Claim, r.A, r.B, r.Metric, "A "+r.Expect, fmt.Sprint(r.N),
				fmt.Sprintf("%+.4f", r.MeanDiff), fmt.Sprintf("%.4f", r.SE), pval(r.PT), r.Verdict))
		}
	}
	curves.Notes = []string{"F(w^T), test acc.: at t = T over the runs that did not diverge; mean F(w^t): the trapezoid mean over the evaluated iterations."}
	claims.Notes = ClaimsTable("", nil).Notes
	claims.Brief = claims.Pick("A", "B", "metric", "mean A−B", "p (t)", "verdict")
	return []*experiments.Table{curves, claims}
}
