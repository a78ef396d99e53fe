package qp

import (
	"context"
	"testing"
)

// BenchmarkInteriorPointDRFL: InteriorPoint from scratch on the heart-shaped
// DRFL client QPs of BenchmarkDRFLCold (2,930 variables, 5,886 rows), with
// their arrow ordering; iterations are interior-point iterations (one
// factorisation each).
func BenchmarkInteriorPointDRFL(b *testing.B) {
	probs, sets := drflInstances(b, 0, true)
	ctx := context.Background()
	it := 0
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		for k, prob := range probs {
			res, err := InteriorPoint(ctx, prob, sets[k])
			if err != nil || res.Status != Solved {
				b.Fatalf("instance %d: %v %v", k, err, res.Status)
			}
			it += res.Stats.Iterations
		}
	}
	reportPerSolve(b, it, 0, cpu0)
}
