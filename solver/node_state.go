package solver

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// NodeState is the part of a ClientNode that survives its process: with it a
// restarted client answers the next broadcast exactly as the lost one would
// have. Of the cached party evaluations only the points are kept: the
// restored node evaluates there again without counting the pass, so that
// Stats.Evaluations equals an uninterrupted run's.
type NodeState struct {
	Mu     []float64 // μ_i
	Center []float64 // proximal centre w^k
	U      []float64 // u_i
	Lambda []float64 // λ_i
	UTilde []float64 // ũ_i of the last reply
	Rho    float64   // ρ_i (changes under residual balancing)
	// NewtonFactor is the Cholesky factor that a Newton local solver keeps
	// across calls (d×d row-major, U with Uᵀ mirrored below: restored as
	// is, the same bits); nil when it keeps none. NewtonIllCond is its
	// condition flag.
	NewtonFactor  []float64
	NewtonIllCond bool
	// Adaptive ρ_i: w^t of the previous round, whether it is set, and ρ_i's
	// first value.
	WPrev    []float64
	HavePrev bool
	Rho0     float64
	// Metric is M_i, row-major d×d (RhoHessian); nil when not built.
	Metric []float64
	// MetricActive are the orthant terms' activities that M_i counts and
	// MetricJac their gradients ∇c_j (m×d) at M_i's point; nil when M_i
	// follows no activity.
	MetricActive []bool
	MetricJac    []float64
	// Cached are the points of the node's two cached party evaluations,
	// the last one first; an empty W marks an empty slot.
	Cached [2]CachedEval
}

// CachedEval is where a cached party evaluation was made, and whether with
// a gradient.
type CachedEval struct {
	W    []float64
	Grad bool
}

// State returns a copy of the node's state.
func (c *ClientNode) State() NodeState {
	cp := func(x []float64) []float64 { return append([]float64(nil), x...) }
	st := NodeState{Mu: cp(c.merit.mu), Center: cp(c.merit.center), U: cp(c.u),
		Lambda: cp(c.lambda), UTilde: cp(c.ut), Rho: c.cfg.Rho,
		WPrev: cp(c.wprev), HavePrev: c.havePrev, Rho0: c.rho0}
	if c.metric != nil {
		st.Metric = cp(c.metric)
	}
	if len(c.metricAct) > 0 {
		st.MetricActive, st.MetricJac = append([]bool(nil), c.metricAct...), cp(c.metricJac)
	}
	for i, sl := range []*evalSlot{&c.merit.evalSlot, &c.merit.prev} {
		if sl.ok || sl.owed {
			st.Cached[i] = CachedEval{W: cp(sl.w), Grad: sl.withGrad}
		}
	}
	if nw, ok := c.cfg.Smooth.(*Newton); ok && nw.have && len(nw.u) == c.cfg.Dim*c.cfg.Dim {
		st.NewtonFactor, st.NewtonIllCond = cp(nw.u), nw.illCond
	}
	return st
}

// Restore sets the node's state to s, checking its sizes.
func (c *ClientNode) Restore(s NodeState) error {
	d := c.cfg.Dim
	switch {
	case len(s.Mu) != len(c.merit.mu):
		return fmt.Errorf("solver: restored μ_i has length %d, want %d", len(s.Mu), len(c.merit.mu))
	case len(s.Center) != d || len(s.U) != d || len(s.Lambda) != d || len(s.UTilde) != d:
		return fmt.Errorf("solver: restored state has vectors of lengths %d, %d, %d, %d, want %d",
			len(s.Center), len(s.U), len(s.Lambda), len(s.UTilde), d)
	case !(s.Rho > 0) || math.IsInf(s.Rho, 0):
		return fmt.Errorf("solver: restored ρ_i = %v: must be > 0", s.Rho)
	case len(s.WPrev) != d || !(s.Rho0 >= 0) || math.IsInf(s.Rho0, 0):
		return fmt.Errorf("solver: restored adaptive state: w^t of length %d, ρ_i^0 = %v", len(s.WPrev), s.Rho0)
	case c.useMetric && s.Metric == nil:
		return fmt.Errorf("solver: restored state lacks M_i of the matrix penalty")
	case s.Metric != nil && (len(s.Metric) != d*d || !c.useMetric):
		return fmt.Errorf("solver: restored metric of %d entries for a node on R^%d (matrix penalty: %v)", len(s.Metric), d, c.useMetric)
	case len(s.MetricActive) != 0 && (s.Metric == nil || len(s.MetricActive) != c.merit.m || len(s.MetricJac) != c.merit.m*d || !finite(s.MetricJac)):
		return fmt.Errorf("solver: restored metric activity of %d terms and %d gradient entries, want %d and %d with M_i", len(s.MetricActive), len(s.MetricJac), c.merit.m, c.merit.m*d)
	}
	for i, sl := range []*evalSlot{&c.merit.evalSlot, &c.merit.prev} {
		ce := s.Cached[i]
		if ce.W == nil {
			// Empty in the state: empty here too (a node restored to an
			// earlier state of its own must forget what it evaluated since).
			sl.ok, sl.owed = false, false
			continue
		}
		if len(ce.W) != d {
			return fmt.Errorf("solver: restored cached evaluation point of length %d, want %d", len(ce.W), d)
		}
		sl.w, sl.withGrad, sl.ok, sl.owed = append([]float64(nil), ce.W...), ce.Grad, false, true
	}
	copy(c.merit.mu, s.Mu)
	copy(c.merit.center, s.Center)
	copy(c.u, s.U)
	copy(c.lambda, s.Lambda)
	copy(c.ut, s.UTilde)
	copy(c.wprev, s.WPrev)
	c.havePrev, c.rho0 = s.HavePrev, s.Rho0
	c.metricAct = append(c.metricAct[:0], s.MetricActive...)
	c.metricJac = append(c.metricJac[:0], s.MetricJac...)
	if s.Metric != nil {
		// The same matrix factorises to the same Cholesky factor.
		c.metric = append([]float64(nil), s.Metric...)
		if !c.mchol.Factorize(mat.NewSymDense(d, append([]float64(nil), s.Metric...))) {
			return fmt.Errorf("solver: restored metric is not positive definite")
		}
	}
	if nw, ok := c.cfg.Smooth.(*Newton); ok && s.NewtonFactor == nil {
		nw.have = false // the state kept no factor: neither does the node
	}
	if s.NewtonFactor != nil {
		nw, ok := c.cfg.Smooth.(*Newton)
		if !ok || len(s.NewtonFactor) != d*d || !finite(s.NewtonFactor) {
			return fmt.Errorf("solver: restored Newton factor of %d entries for a %T local solver on R^%d", len(s.NewtonFactor), c.cfg.Smooth, d)
		}
		nw.restoreFactor(s.NewtonFactor, s.NewtonIllCond)
	}
	if s.Rho != c.cfg.Rho {
		return c.setRho(s.Rho)
	}
	return nil
}

// ClientConfig returns the configuration that Solve gives client i (0-based)
// of n on R^d under settings s: what a remote client needs to build the same
// ClientNode. Smooth is m's solver (nil: the default); Cache is left nil.
func (m *ProxAL) ClientConfig(i, n, d int, s *Settings) (ClientConfig, error) {
	beta, _, _, rho, err := m.params(n)
	if err != nil {
		return ClientConfig{}, err
	}
	if i < 0 || i >= n {
		return ClientConfig{}, fmt.Errorf("solver: client index %d outside 0..%d", i, n-1)
	}
	var mu []float64
	if m.Mu0 != nil {
		if len(m.Mu0) != n+1 {
			return ClientConfig{}, fmt.Errorf("solver: len(ProxAL.Mu0) = %d, want n+1 = %d", len(m.Mu0), n+1)
		}
		mu = m.Mu0[i+1]
	}
	s = s.withDefaults()
	return ClientConfig{Party: i + 1, Dim: d, Parties: n + 1, Beta: beta, Rho: rho[i], Mu0: mu,
		Smooth: m.Smooth, MaxIter: s.MaxInner, ADMMStart: m.ADMMStart,
		Rule: m.Rule, RhoFromCurvature: m.RhoStart == RhoStartCurvature, Relax: m.Relax, MetricShift: m.MetricShift / float64(n)}, nil
}
