package drfl

import "context"

// node is the client side of the federation boundary. It owns the
// client's Local solver and its own copies of the duals ψ_s and ζ_s, which
// it updates by lines 14 and 17 from values it already holds (the
// broadcast (v, z_s) and its reply (v̂_s, r_s)), so the duals never cross.
// The server keeps the same copies with the same arithmetic: both stay
// bit-equal. Per round only (v, z_s) goes down and (v̂_s, r_s) comes back.
type node struct {
	local Local
	c     float64
	psi   []float64
	zeta  float64
	// lam is λ_s of the last step: part of the final report, not of a round.
	lam float64
}

func newNode(local Local, c float64, d int) *node {
	return &node{local: local, c: c, psi: make([]float64, d)}
}

// round solves C_s (line 11) for the broadcast (v, z), writes v̂_s into vhat
// and returns r_s, then updates the client's duals.
func (nd *node) round(ctx context.Context, v []float64, z float64, vhat []float64) (float64, error) {
	r, lam, err := nd.local.Step(ctx, v, z, nd.psi, nd.zeta, vhat)
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
