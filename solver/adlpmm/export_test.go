package adlpmm

// Test helpers of this package's internal tests, exported to the external
// tests (adlpmm_test), which need problems/wdro and so cannot be internal.
var (
	RandVec = randVec
	PNorm   = pNorm
)

// NodeDuals returns a copy of the duals ψ_s, ζ_s an in-process client
// (Node) holds.
func NodeDuals(l Local) ([]float64, float64) {
	nd := l.(*Node)
	return append([]float64(nil), nd.psi...), nd.zeta
}
