package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Method is a proximal AL method: ProxAL (Algorithm 1) or CProxAL (Algorithm 3).
type Method interface {
	run(ctx context.Context, p *Problem, w0 []float64, s *Settings) (*Result, error)
}

// Solve runs method m (nil means a default ProxAL) on p from w0 under
// settings s (nil means DefaultSettings). It never modifies p or w0. On a
// canceled context it returns the partial Result with status Canceled and an
// error wrapping ctx.Err().
func Solve(ctx context.Context, p *Problem, w0 []float64, s *Settings, m Method) (*Result, error) {
	if err := p.validate(w0); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if m == nil {
		m = &ProxAL{}
	}
	start := time.Now()
	if s.Runtime > 0 {
		// A deadline, not only a check between outer iterations: one
		// Algorithm 2 call can run for minutes.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.Runtime, errRuntime)
		defer cancel()
	}
	res, err := m.run(ctx, p, w0, s)
	if res != nil {
		if res.Test == NotTerminated { // not audited: nothing to certify
			res.Test = res.Status
		}
		res.Stats.Runtime = time.Since(start)
		if res.Status == Canceled && err == nil {
			err = fmt.Errorf("solver: %w", ctx.Err())
		}
	}
	return res, err
}

// errRuntime is the cause of the context deadline set by Settings.Runtime.
var errRuntime = errors.New("solver: Settings.Runtime elapsed")

// stopped ends a run whose context is done: RuntimeLimit (no error) when
// Settings.Runtime's deadline passed, else Canceled.
func stopped(ctx context.Context, res *Result) (*Result, error) {
	if errors.Is(context.Cause(ctx), errRuntime) {
		res.Status = RuntimeLimit
		return res, nil
	}
	res.Status = Canceled
	return res, fmt.Errorf("solver: %w", ctx.Err())
}

// certify turns the iteration's own outcome (res.Status on entry, kept in
// res.Test) into the status of the returned point, from Definition 1's
// residuals recomputed there: Converged if and only if they are within
// (ε1, ε2) and the subproblem that produced the point met its test. Test
// (11) bounds the residuals only through the algorithm's own estimates;
// the audit is what a reader can check.
func certify(res *Result, s *Settings) {
	res.Test = res.Status
	switch res.Status {
	case Canceled, Diverged, NotTerminated:
		return
	}
	r := res.Residuals
	within := func(f float64) bool { return r.Stationarity <= f*s.Eps1 && r.Feasibility <= f*s.Eps2 }
	switch {
	case res.LastCapped():
		res.Status = InnerIterationLimit
	case within(1):
		res.Status = Converged
	case res.Test == Converged:
		res.Status = Uncertified
	case res.Test == RuntimeLimit:
	case within(10):
		res.Status = ConvergedInaccurate
	default:
		res.Status = OuterIterationLimit
	}
}

// outerLoop is the part Algorithms 1 and 3 share: τ_k = s̄/(k+1)², the
// subproblem, the multiplier update, test (11), caps and records.
type outerLoop struct {
	s          *Settings
	beta, sbar float64
	// relax is λ of the relaxed proximal point step (0 or 1: none, the paper).
	relax float64
	res   *Result
	// polish, if non-nil, tries the KKT polish at the current iterate and
	// reports whether it certified a point (then written into the
	// iterate and marked in res). Test (11) then first stops at
	// polishFrom (when above ε), and after a failed polish at three times
	// smaller tolerances, down to ε; it is also tried where test (11)'s
	// residual stalls (polishStalled).
	polish     func(ctx context.Context) (bool, error)
	polishFrom float64
}

// withinEps reports whether r is within the tolerances (ε1, ε2) of s.
func withinEps(r Residuals, s *Settings) bool {
	return r.Stationarity <= s.Eps1 && r.Feasibility <= s.Eps2
}

// stepper solves subproblem k, centred at (w^k, μ^k), to τ_k, updates the
// multipliers at the new point, and reports what test (11) and the trace
// need. With λ ≠ 1 the next centre is the relaxed point
// (w^k, μ^k) + λ((w^{k+1}, μ^{k+1}) - (w^k, μ^k)), μ projected onto K*; the
// step's outputs w^{k+1} and the steps of test (11) stay those of the plain step.
type stepper interface {
	step(ctx context.Context, k int, tau, lambda float64, center []float64) (outerStep, error)
}

type outerStep struct {
	cert    float64
	wNext   []float64
	stepMu  float64
	inner   int
	capped  bool
	parties []PartyValue
}

// relaxFor chooses λ_k from the scaled residuals res_j of test (11) and the
// λ_j of the steps so far. Near a solution the relaxed step multiplies the
// residual by 1 - λ + λq along a mode that the plain step multiplies by q,
// so q is estimated from the last ratio res_{k-1}/res_{k-2} under λ_{k-2},
// and λ = 2/(2 - q) balances the slowest mode (q) against the fastest (0):
// both then shrink by q/(2 - q). Fast plain contraction keeps λ near 1;
// creeping (q near 1) takes λ up to o.relax. A growing residual (activity
// changes, nonconvexity) means a plain step, as do the last allowed
// iteration and the step after a relaxed one passed test (11): the run
// ends on a plain step, so the returned (w, μ) is a proximal AL step and
// (11) certifies it exactly as in the paper.
func (o *outerLoop) relaxFor(k int, plain bool, res, lambdas []float64) float64 {
	if o.relax <= 1 || plain || k < 2 || k+1 >= o.s.MaxOuter {
		return 1
	}
	ratio, l := res[k-1]/res[k-2], lambdas[k-2]
	if !(ratio < 1) {
		return 1
	}
	q := max((ratio-1+l)/l, 0)
	if !(q < 1) {
		return o.relax
	}
	return min(max(2/(2-q), 1), o.relax)
}

func (o *outerLoop) run(ctx context.Context, st stepper, w []float64, stats func() (int, int64, int64)) (*Result, error) {
	res := o.res
	center := append([]float64(nil), w...)
	var resid, lambdas []float64 // per step: scaled residual of test (11), λ
	var passes []float64         // per step: test (11)'s residual over (ε1, ε2)
	plain := false
	lastTry := -polishStallWindow // outer iteration of the last stall-triggered polish
	// Test (11)'s tolerances: (ε1, ε2), or looser while a polish may finish.
	e1, e2 := o.s.Eps1, o.s.Eps2
	if o.polish != nil {
		e1, e2 = max(e1, o.polishFrom), max(e2, o.polishFrom)
	}
	// tryPolish runs the polish where the iteration is: done when it
	// certified its point (res is final) or failed with an error.
	tryPolish := func() (done bool, out *Result, err error) {
		ok, err := o.polish(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			out, err = stopped(ctx, res)
			return true, out, err
		case err != nil:
			return true, res, err
		case ok:
			res.Status = Converged
			return true, res, nil
		}
		return false, nil, nil
	}
	for k := 0; ; k++ {
		if k >= o.s.MaxOuter {
			res.Status = OuterIterationLimit
			return res, nil
		}
		if ctx.Err() != nil {
			return stopped(ctx, res)
		}
		tau := o.sbar / float64((k+1)*(k+1))
		lambda := o.relaxFor(k, plain, resid, lambdas)
		os, err := st.step(ctx, k, tau, lambda, center)
		if err != nil {
			if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
				// The interrupted step is dropped: w is still w^k.
				return stopped(ctx, res)
			}
			return res, err
		}
		if !finite(os.wNext) || math.IsNaN(os.stepMu) || math.IsInf(os.stepMu, 0) || normInf(os.wNext) > o.s.MaxNorm {
			res.Status = Diverged
			return res, nil
		}
		rec := OuterRecord{
			K: k, Tau: tau, Inner: os.inner, Capped: os.capped, Certificate: os.cert,
			StepW: distInf(os.wNext, center), StepMu: os.stepMu, Parties: os.parties,
		}
		if lambda != 1 {
			rec.Relax = lambda
		}
		rec.Rounds, rec.FloatsDown, rec.FloatsUp = stats()
		copy(w, os.wNext)
		relaxCenter(center, os.wNext, lambda)
		res.Stats.OuterIterations = k + 1
		res.Stats.InnerIterations += os.inner
		if os.capped {
			res.Stats.InnerCapHits++
		}
		res.Trace = append(res.Trace, rec)
		if o.s.Recorder != nil {
			o.s.Recorder.Record(&res.Trace[len(res.Trace)-1])
		}
		resid = append(resid, max(rec.StepW/o.s.Eps1, rec.StepMu/o.s.Eps2))
		// Test (11) at (ε1, ε2) passes when this is at most 1.
		passes = append(passes, max((rec.StepW+o.beta*tau)/(o.beta*o.s.Eps1), rec.StepMu/(o.beta*o.s.Eps2)))
		lambdas = append(lambdas, lambda)
		// Test (11).
		if rec.StepW+o.beta*tau <= o.beta*e1 && rec.StepMu <= o.beta*e2 {
			if lambda != 1 {
				// μ is now the relaxed point: one plain step to end on.
				plain = true
				continue
			}
			if e1 > o.s.Eps1 || e2 > o.s.Eps2 {
				if done, out, err := tryPolish(); done {
					return out, err
				}
				e1, e2 = max(e1/3, o.s.Eps1), max(e2/3, o.s.Eps2)
				plain = false
				continue
			}
			res.Status = Converged
			if os.capped {
				res.Status = InnerIterationLimit
			}
			return res, nil
		}
		plain = false
		if o.polish != nil && polishStalled(passes, k-lastTry) {
			// The iteration creeps (an active set that keeps changing):
			// try the polish where it is; on failure go on unchanged.
			lastTry = k
			if done, out, err := tryPolish(); done {
				return out, err
			}
		}
	}
}

// polishStallWindow is the window of outer iterations over which the
// polish trigger measures progress.
const polishStallWindow = 10

// polishStalled reports whether the outer iteration creeps, from t_j, test
// (11)'s residual over its tolerance (passed at t_j <= 1): with b_0 the
// best before the last polishStallWindow steps and b_1 the best within
// them, the best has not halved (b_1 > b_0/2) and another window at the
// same rate would not pass the test (b_1·b_1/b_0 > 1). At most once per
// window (since: steps after the last stall-triggered polish).
func polishStalled(t []float64, since int) bool {
	k := len(t)
	if k <= polishStallWindow || since < polishStallWindow {
		return false
	}
	b0, b1 := slices.Min(t[:k-polishStallWindow]), slices.Min(t[k-polishStallWindow:])
	return b1 > 0.5*b0 && b1*b1 > b0
}
