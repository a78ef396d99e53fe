package proxal

import (
	"errors"
	"fmt"

	"github.com/fedcon/fedcon/experiments"
)

// Check validates a trial file beyond the presence of its fields: a
// file that fails is recomputed.
func (t *QPTrial) Check() error {
	if t.N < 1 || t.D < 1 || t.M < 1 || t.Trial < 0 {
		return fmt.Errorf("trial: bad cell n=%d d=%d m=%d trial %d", t.N, t.D, t.M, t.Trial)
	}
	if t.Nu1 < 0 {
		return errors.New("trial: negative nu_star_l1")
	}
	if len(t.Alg1.W) == 0 || len(t.Alg1.Mu) == 0 || len(t.CProx.W) == 0 || len(t.CProx.Mu) == 0 {
		return errors.New("trial: no returned point w or multipliers mu")
	}
	return CheckQPRuns(&t.QPRuns)
}

// CheckQPRuns refuses negative measures in the runs of a QP trial.
func CheckQPRuns(r *QPRuns) error {
	for _, a := range []struct {
		name string
		alg  *QPAlg
	}{{"alg1", &r.Alg1}, {"cprox", &r.CProx}} {
		g := a.alg
		if g.Violation < 0 || g.DistOpt < 0 || g.ObjBand < 0 || g.Wall < 0 {
			return fmt.Errorf("trial.%s: negative violation, distance, band or wall time", a.name)
		}
		if err := experiments.CheckResiduals(a.name, g.Residuals.Stationarity, g.Residuals.Feasibility); err != nil {
			return err
		}
	}
	if r.RelDiff < 0 {
		return errors.New("trial: negative reldiff")
	}
	return nil
}

// Check validates a trial file beyond the presence of its fields.
func (t *ClassTrial) Check() error {
	if t.Dataset == "" || t.N < 1 || t.Trial < 0 {
		return fmt.Errorf("trial: bad cell %q n=%d trial %d", t.Dataset, t.N, t.Trial)
	}
	for _, a := range []struct {
		name string
		alg  *ClassAlg
	}{{"alg1", &t.Alg1}, {"cprox", &t.CProx}} {
		g := a.alg
		if len(g.Loss0) == 0 || len(g.Loss1) == 0 {
			return fmt.Errorf("trial.%s: empty loss0 or loss1", a.name)
		}
		if g.Wall < 0 {
			return fmt.Errorf("trial.%s: negative wall time", a.name)
		}
		if len(g.W) == 0 || len(g.Mu) == 0 {
			return fmt.Errorf("trial.%s: no returned point w or multipliers mu", a.name)
		}
		if err := experiments.CheckResiduals(a.name, g.Residuals.Stationarity, g.Residuals.Feasibility); err != nil {
			return err
		}
	}
	if t.RelDiff < 0 {
		return errors.New("trial: negative reldiff")
	}
	return nil
}
