package proxal

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

// TestCheckTable4 runs a small table, checks that it passes, then breaks it
// in three ways that each must fail its rule.
func TestCheckTable4(t *testing.T) {
	cfg := smallQP()
	res, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	res.Info = experiments.NewRunInfo("table4", "test", cfg, 2)
	encode := func(r *QPResult) []byte {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rows, err := CheckTable4(encode(res))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no checks")
	}
	for _, r := range rows {
		if !r.Pass {
			t.Errorf("clean run fails %+v", r)
		}
	}
	cases := []struct {
		name string
		mod  func(r *QPResult)
		rule string
	}{
		{"capped run", func(r *QPResult) { r.Trials[0].Alg1.Status = solver.OuterIterationLimit }, "status"},
		{"residual above eps", func(r *QPResult) { r.Rows[0].KKT1[0] = 2 * cfg.Eps1 }, "kkt stationarity"},
		{"objective off the optimum", func(r *QPResult) { r.Rows[1].Obj1.Mean += 1 }, "objective vs f*"},
		{"infeasible", func(r *QPResult) { r.Trials[0].CProx.Violation = 5 * cfg.Eps2 }, "feasibility violation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var bad QPResult
			if err := json.Unmarshal(encode(res), &bad); err != nil {
				t.Fatal(err)
			}
			c.mod(&bad)
			rows, err := CheckTable4(encode(&bad))
			if err != nil {
				t.Fatal(err)
			}
			failed := false
			for _, r := range rows {
				if !r.Pass && r.Rule == c.rule {
					failed = true
				}
			}
			if !failed {
				t.Errorf("rule %q did not fail", c.rule)
			}
		})
	}
}
