package qp

import (
	"context"
	"testing"
)

func benchArrowSettings(b *testing.B, prob *Problem, shared []int) *Settings {
	set := DefaultSettings()
	ord, err := ArrowOrdering(prob, shared)
	if err != nil {
		b.Fatal(err)
	}
	set.Ordering = ord
	return set
}

// BenchmarkArrowCold: setup and solve of a DRFL-shaped client QP
// (55 blocks × 53 variables + 15 shared = 2,930 variables, 5,845 rows).
func BenchmarkArrowCold(b *testing.B) {
	prob, shared := arrowQP(1, 55, 53, 15)
	set := benchArrowSettings(b, prob, shared)
	ctx := context.Background()
	var it, pol float64
	b.ReportAllocs()
	for b.Loop() {
		res, err := Solve(ctx, prob, set, nil)
		if err != nil || res.Status != Solved {
			b.Fatalf("%v %v", err, res.Status)
		}
		it += float64(res.Stats.Iterations)
		pol += float64(res.Stats.PolishAttempts)
	}
	b.ReportMetric(it/float64(b.N), "iters/op")
	b.ReportMetric(pol/float64(b.N), "polish/op")
}

func BenchmarkArrowColdAuto(b *testing.B) {
	prob, _ := arrowQP(1, 55, 53, 15)
	ctx := context.Background()
	var it float64
	b.ReportAllocs()
	for b.Loop() {
		res, err := Solve(ctx, prob, nil, nil)
		if err != nil || res.Status != Solved {
			b.Fatalf("%v %v", err, res.Status)
		}
		it += float64(res.Stats.Iterations)
	}
	b.ReportMetric(it/float64(b.N), "iters/op")
}

// BenchmarkArrowWarm: Update(q) with q perturbed by 1% and Solve from the
// previous solution, on one Solver.
func BenchmarkArrowWarm(b *testing.B) {
	prob, shared := arrowQP(1, 55, 53, 15)
	set := benchArrowSettings(b, prob, shared)
	s, err := NewSolver(prob, set)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	res, _ := s.Solve(ctx, nil)
	q := append([]float64(nil), prob.Q...)
	var it, pol float64
	k := 0
	b.ReportAllocs()
	for b.Loop() {
		k++
		for j := range q {
			q[j] = prob.Q[j] * (1 + 0.01*float64(k%7-3)/3)
		}
		if err := s.Update(q, nil, nil); err != nil {
			b.Fatal(err)
		}
		res, err = s.Solve(ctx, &Start{X: res.X, Y: res.Y})
		if err != nil || res.Status != Solved {
			b.Fatalf("%v %v", err, res.Status)
		}
		it += float64(res.Stats.Iterations)
		pol += float64(res.Stats.PolishAttempts)
	}
	b.ReportMetric(it/float64(b.N), "iters/op")
	b.ReportMetric(pol/float64(b.N), "polish/op")
}

// BenchmarkDense200: setup and solve of a dense QP with 200 variables,
// 50 dense inequality rows and 200 box rows.
func BenchmarkDense200(b *testing.B) {
	prob := denseQP(1, 200, 50)
	ctx := context.Background()
	var it, pol float64
	b.ReportAllocs()
	for b.Loop() {
		res, err := Solve(ctx, prob, nil, nil)
		if err != nil || res.Status != Solved {
			b.Fatalf("%v %v", err, res.Status)
		}
		it += float64(res.Stats.Iterations)
		pol += float64(res.Stats.PolishAttempts)
	}
	b.ReportMetric(it/float64(b.N), "iters/op")
	b.ReportMetric(pol/float64(b.N), "polish/op")
}
