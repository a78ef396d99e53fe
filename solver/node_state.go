package solver

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// NodeState is the part of a ClientNode that survives its process: with it a
// restarted client answers the next broadcast exactly as the lost one would
// have. Cached party evaluations are not kept (they only save passes).
type NodeState struct {
	Mu     []float64 // μ_i
	Center []float64 // proximal centre w^k
	U      []float64 // u_i
	Lambda []float64 // λ_i
	UTilde []float64 // ũ_i of the last reply
	Rho    float64   // ρ_i (changes under residual balancing)
	// Hessian is the d×d matrix (row-major) that a Newton local solver
	// keeps factorised across calls; nil when it keeps none.
	Hessian []float64
}

// State returns a copy of the node's state.
func (c *ClientNode) State() NodeState {
	cp := func(x []float64) []float64 { return append([]float64(nil), x...) }
	st := NodeState{Mu: cp(c.merit.mu), Center: cp(c.merit.center), U: cp(c.u),
		Lambda: cp(c.lambda), UTilde: cp(c.reply.UTilde), Rho: c.cfg.Rho}
	if nw, ok := c.cfg.Smooth.(*Newton); ok && nw.have && nw.hdim == c.cfg.Dim {
		d := c.cfg.Dim
		st.Hessian = make([]float64, d*d)
		for i := range d {
			for j := range d {
				st.Hessian[i*d+j] = nw.h.At(i, j)
			}
		}
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
	}
	copy(c.merit.mu, s.Mu)
	copy(c.merit.center, s.Center)
	copy(c.u, s.U)
	copy(c.lambda, s.Lambda)
	copy(c.reply.UTilde, s.UTilde)
	if s.Hessian != nil {
		nw, ok := c.cfg.Smooth.(*Newton)
		if !ok || len(s.Hessian) != d*d {
			return fmt.Errorf("solver: restored Hessian of %d entries for a %T local solver on R^%d", len(s.Hessian), c.cfg.Smooth, d)
		}
		// The same matrix factorises to the same Cholesky factor.
		nw.hdim, nw.h = d, mat.NewSymDense(d, append([]float64(nil), s.Hessian...))
		nw.have = nw.chol.Factorize(nw.h)
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
	return ClientConfig{Dim: d, Parties: n + 1, Beta: beta, Rho: rho[i], Mu0: mu,
		Smooth: m.Smooth, MaxIter: s.MaxInner, AdmmStart: m.AdmmStart}, nil
}
