package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
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

// outerLoop is the part Algorithms 1 and 3 share: τ_k = s̄/(k+1)², the
// subproblem, the multiplier update, test (11), caps and records.
type outerLoop struct {
	s          *Settings
	beta, sbar float64
	res        *Result
}

// stepper solves subproblem k to τ_k, updates the multipliers at the new
// point, and reports what test (11) and the trace need.
type stepper interface {
	step(ctx context.Context, k int, tau float64, w []float64) (outerStep, error)
}

type outerStep struct {
	cert    float64
	wNext   []float64
	stepMu  float64
	inner   int
	capped  bool
	parties []PartyValue
}

func (o *outerLoop) run(ctx context.Context, st stepper, w []float64, stats func() (int, int64, int64)) (*Result, error) {
	res := o.res
	for k := 0; ; k++ {
		if k >= o.s.MaxOuter {
			res.Status = OuterIterationLimit
			if n := len(res.Trace); n > 0 {
				r := res.Trace[n-1]
				if r.StepW+o.beta*r.Tau <= 10*o.beta*o.s.Eps1 && r.StepMu <= 10*o.beta*o.s.Eps2 {
					res.Status = ConvergedInaccurate
				}
			}
			return res, nil
		}
		if ctx.Err() != nil {
			return stopped(ctx, res)
		}
		tau := o.sbar / float64((k+1)*(k+1))
		os, err := st.step(ctx, k, tau, w)
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
			StepW: distInf(os.wNext, w), StepMu: os.stepMu, Parties: os.parties,
		}
		rec.Rounds, rec.FloatsDown, rec.FloatsUp = stats()
		copy(w, os.wNext)
		res.Stats.OuterIterations = k + 1
		res.Stats.InnerIterations += os.inner
		if os.capped {
			res.Stats.InnerCapHits++
		}
		res.Trace = append(res.Trace, rec)
		if o.s.Recorder != nil {
			o.s.Recorder.Record(&res.Trace[len(res.Trace)-1])
		}
		// Test (11).
		if rec.StepW+o.beta*tau <= o.beta*o.s.Eps1 && rec.StepMu <= o.beta*o.s.Eps2 {
			res.Status = Converged
			if os.capped {
				res.Status = InnerIterationLimit
			}
			return res, nil
		}
	}
}
