package experiments

import (
	"fmt"
)

// A trial type's Check method is its file's semantic validation, beyond the
// presence of every field (requireFields): a file that fails is recomputed.

// CheckResiduals refuses negative KKT residuals of algorithm alg.
func CheckResiduals(alg string, st, fe float64) error {
	if st < 0 || fe < 0 {
		return fmt.Errorf("trial.%s.kkt_residuals: negative", alg)
	}
	return nil
}
