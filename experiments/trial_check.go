package experiments

import (
	"fmt"
)

// The check methods are a trial file's semantic validation, beyond the
// presence of every field (requireFields): a file that fails is recomputed.

func checkResiduals(alg string, st, fe float64) error {
	if st < 0 || fe < 0 {
		return fmt.Errorf("trial.%s.kkt_residuals: negative", alg)
	}
	return nil
}
