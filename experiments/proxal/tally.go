package proxal

import (
	"math"

	"github.com/fedcon/fedcon/solver"
)

// Tally adds one run of a table cell to its flags (status other than
// Converged, inner cap hits, local tolerance misses, a Converged run whose
// audited KKT residuals exceed eps = (ε1, ε2)) and, unless it diverged, its
// KKT residuals to the maxima kkt; a diverged run counts in diverged
// instead. It reports whether the run belongs in the solution columns
// (Divergence).
func Tally(flags map[string]int, name string, st solver.Status, stats solver.Stats, res solver.Residuals, eps [2]float64, kkt *[2]float64, diverged *int) bool {
	if st != solver.Converged {
		flags[name+" "+st.String()]++
	} else if res.Stationarity > eps[0] || res.Feasibility > eps[1] {
		// Test (11) passed on the solver's estimates, but the audit of
		// Definition 1 at the returned point did not.
		flags[name+" KKT above ε"]++
	}
	if stats.InnerCapHits > 0 {
		flags[name+" inner cap"]++
	}
	if stats.LocalMisses > 0 {
		flags[name+" local tol missed"]++
	}
	if st == solver.Diverged {
		*diverged++
		return false
	}
	kkt[0] = math.Max(kkt[0], res.Stationarity)
	kkt[1] = math.Max(kkt[1], res.Feasibility)
	return true
}
