package proxal

import (
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

// TestTallyFlags: which runs a table flags. A Converged run is flagged only
// when its audited KKT residuals exceed (ε1, ε2): test (11) runs on the
// solver's estimates, the audit of Definition 1 at the returned point.
func TestTallyFlags(t *testing.T) {
	eps := [2]float64{1e-3, 1e-3}
	cases := []struct {
		name    string
		st      solver.Status
		stats   solver.Stats
		res     solver.Residuals
		want    string
		inCells bool
	}{
		{"clean", solver.Converged, solver.Stats{}, solver.Residuals{Stationarity: 1e-3, Feasibility: 5e-4}, "ok", true},
		{"stationarity above", solver.Converged, solver.Stats{}, solver.Residuals{Stationarity: 1.1e-3}, "A1 KKT above ε x1", true},
		{"feasibility above", solver.Converged, solver.Stats{}, solver.Residuals{Feasibility: 2e-3}, "A1 KKT above ε x1", true},
		{"capped, not also KKT", solver.OuterIterationLimit, solver.Stats{}, solver.Residuals{Stationarity: 1}, "A1 " + solver.OuterIterationLimit.String() + " x1", true},
		{"inner cap and miss", solver.Converged, solver.Stats{InnerCapHits: 3, LocalMisses: 2}, solver.Residuals{}, "A1 inner cap x1; A1 local tol missed x1", true},
		{"diverged", solver.Diverged, solver.Stats{}, solver.Residuals{Stationarity: 1e30}, "A1 Diverged x1", false},
	}
	for _, c := range cases {
		flags := map[string]int{}
		var kkt [2]float64
		div := 0
		in := Tally(flags, "A1", c.st, c.stats, c.res, eps, &kkt, &div)
		if got := experiments.FlagString(flags); got != c.want || in != c.inCells {
			t.Errorf("%s: flags %q, in cells %v; want %q, %v", c.name, got, in, c.want, c.inCells)
		}
		if in && kkt != [2]float64{c.res.Stationarity, c.res.Feasibility} || !in && (div != 1 || kkt != [2]float64{}) {
			t.Errorf("%s: kkt %v, diverged %d", c.name, kkt, div)
		}
	}
}
