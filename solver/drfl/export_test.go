package drfl

// Test helpers of this package's internal tests, exported to the external
// tests (drfl_test), which need problems/drfl and so cannot be internal.
var (
	RandVec = randVec
	PNorm   = pNorm
)
