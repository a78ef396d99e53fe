package qp

import (
	"context"
	"fmt"
	"testing"
)

func TestScratch(t *testing.T) {
	prob, shared := arrowQP(1, 55, 53, 15)
	for _, trig := range []float64{1e3, 1e4, 1e5, 1e6} {
		set := DefaultSettings()
		set.Ordering, _ = ArrowOrdering(prob, shared)
		set.PolishTrigger = trig
		r, err := Solve(context.Background(), prob, set, nil)
		fmt.Printf("trig %g: %v %v %+v\n", trig, err, r.Status, r.Stats)
		r, err = Solve(context.Background(), denseQP(1, 200, 50), set, nil)
		fmt.Printf("trig %g: %v %v %+v\n", trig, err, r.Status, r.Stats)
	}
}
