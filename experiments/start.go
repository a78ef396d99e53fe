package experiments

import (
	"math/rand/v2"

	"github.com/fedcon/fedcon/internal/numpyrand"
	"github.com/fedcon/fedcon/problems"
)

// StartPoint returns w0 of trial t: ones, zeros or a point of the unit sphere.
func StartPoint(kind W0, rng RNG, seed uint64, t, d int) []float64 {
	w := make([]float64, d)
	switch kind {
	case "ones":
		for j := range w {
			w[j] = 1
		}
	case "zeros":
	default:
		return TrialStart(rng, seed, t, d)
	}
	return w
}

// TrialStart is trial t's w0 on the unit sphere.
func TrialStart(rng RNG, seed uint64, t, d int) []float64 {
	if rng == "numpy" {
		return numpyrand.TrialStart(t, d)
	}
	return problems.UnitSphere(rand.New(rand.NewPCG(seed, 1<<62|uint64(t))), d)
}
