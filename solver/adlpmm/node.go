package adlpmm

import "context"

// Node is the in-process client side of the federation boundary: a
// client's Subproblem and its own copies of the duals ψ_s and ζ_s, which it
// updates by lines 14 and 17 from values it already holds (the broadcast
// (v, z_s) and its reply (v̂_s, r_s)), with the server's arithmetic, so
// both sides stay bit-equal and the duals never cross. A network client
// would run a Node in its own process.
type Node struct {
	sub  Subproblem
	c    float64
	psi  []float64
	zeta float64
	lam  float64 // λ_s of the last round, for the final report
}

// NewLocal returns the Local of a client whose C_s is solved by sub, for
// step size c and d = n+1 model entries; its duals start at 0.
func NewLocal(sub Subproblem, c float64, d int) *Node {
	return &Node{sub: sub, c: c, psi: make([]float64, d)}
}

// Round implements Local: C_s (line 11) for the broadcast (v, z), then the
// client's dual updates.
func (nd *Node) Round(ctx context.Context, v []float64, z float64, vhat []float64) (float64, error) {
	r, lam, err := nd.sub.Step(ctx, v, z, nd.psi, nd.zeta, vhat)
	if err != nil {
		return 0, err
	}
	nd.lam = lam
	for j := range nd.psi {
		nd.psi[j] += nd.c * (v[j] - vhat[j])
	}
	nd.zeta += nd.c * (r - z)
	return r, nil
}

// Lambda implements Local.
func (nd *Node) Lambda() float64 { return nd.lam }

// Iterations implements Local.
func (nd *Node) Iterations() int { return nd.sub.Iterations() }

// CapHits implements CapHitter: the Subproblem's, if it counts them.
func (nd *Node) CapHits() int {
	if ch, ok := nd.sub.(CapHitter); ok {
		return ch.CapHits()
	}
	return 0
}

// Restore implements Restorer.
func (nd *Node) Restore(psi []float64, zeta float64) {
	copy(nd.psi, psi)
	nd.zeta = zeta
}
