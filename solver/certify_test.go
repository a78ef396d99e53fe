package solver

import (
	"math"
	"testing"
)

// TestCertify: the status follows the residuals recomputed at the returned
// point, whatever the iteration's own test said.
func TestCertify(t *testing.T) {
	s := &Settings{Eps1: 1e-3, Eps2: 1e-4}
	capped := []OuterRecord{{Capped: true}}
	plain := []OuterRecord{{}}
	cases := []struct {
		name       string
		test       Status
		stat, feas float64
		trace      []OuterRecord
		polished   bool
		want       Status
	}{
		{"test and audit pass", Converged, 9e-4, 9e-5, plain, false, Converged},
		{"test passes, audit fails", Converged, 2e-3, 0, plain, false, Uncertified},
		{"test passes, feasibility fails", Converged, 0, 2e-4, plain, false, Uncertified},
		{"outer cap, audit passes", OuterIterationLimit, 1e-15, 1e-15, plain, false, Converged},
		{"outer cap, within 10x", OuterIterationLimit, 5e-3, 5e-4, plain, false, ConvergedInaccurate},
		{"outer cap, beyond 10x", OuterIterationLimit, 2e-2, 0, plain, false, OuterIterationLimit},
		{"last subproblem capped, audit passes", InnerIterationLimit, 1e-6, 0, capped, false, InnerIterationLimit},
		{"outer cap after a capped subproblem", OuterIterationLimit, 1e-6, 0, capped, false, InnerIterationLimit},
		{"polished after a capped subproblem", OuterIterationLimit, 1e-9, 1e-9, capped, true, Converged},
		{"runtime cap, audit passes", RuntimeLimit, 1e-4, 0, plain, false, Converged},
		{"runtime cap, audit fails", RuntimeLimit, 1, 1, plain, false, RuntimeLimit},
		{"NaN residual", Converged, math.NaN(), 0, plain, false, Uncertified},
		{"diverged is kept", Diverged, 0, 0, plain, false, Diverged},
		{"canceled is kept", Canceled, 0, 0, plain, false, Canceled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := &Result{Status: c.test, Residuals: Residuals{c.stat, c.feas}, Trace: c.trace, Polished: c.polished}
			certify(res, s)
			if res.Status != c.want || res.Test != c.test {
				t.Errorf("status %v (test %v), want %v (test %v)", res.Status, res.Test, c.want, c.test)
			}
			if res.Status.Early() == (res.Status == Converged) {
				t.Errorf("Early() = %v for %v", res.Status.Early(), res.Status)
			}
		})
	}
}
