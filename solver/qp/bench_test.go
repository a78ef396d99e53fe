package qp

import (
	"context"
	"testing"
)

// Benchmarks of issue 9 (go test -bench . -benchmem ./solver/qp/). The
// targets in the issue: a DRFL client QP of the heart shape (~2,900
// variables, ~6,000 rows) to 1e-7 in ≤ 50 ms cold and ≤ 5 ms warm, and a
// dense 200-variable QP in ≤ 2 ms.
//
// The iteration count of ADMM on these degenerate problems changes a lot
// between instances (and even with the rounding of the ordering), so each
// benchmark operation solves benchInstances instances with different seeds
// and reports the mean per solve: ms/solve, iters/solve and
// polish-steps/solve, and cpu-ms/solve (see reportPerSolve); ns/op and the
// allocation counts are per operation, that is per benchInstances solves.
const benchInstances = 5

// reportPerSolve reports the per-solve means; cpu0 is cpuTime() taken just
// before the benchmark loop. cpu-ms/solve (CPU time of the whole process,
// garbage collection included) is much less sensitive than ms/solve to
// other processes competing for the cores.
func reportPerSolve(b *testing.B, it, steps int, cpu0 int64) {
	solves := float64(b.N * benchInstances)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/solves/1e6, "ms/solve")
	if cpu1 := cpuTime(); cpu0 >= 0 && cpu1 >= 0 {
		b.ReportMetric(float64(cpu1-cpu0)/solves/1e6, "cpu-ms/solve")
	}
	b.ReportMetric(float64(it)/solves, "iters/solve")
	b.ReportMetric(float64(steps)/solves, "polish-steps/solve")
}

// drflInstances returns the heart-shaped DRFL client QPs (55 samples × 13
// features: 2,930 variables, 5,886 rows) for seeds 1..benchInstances, with
// settings carrying their arrow ordering (rho > 0 overrides Settings.Rho).
func drflInstances(b *testing.B, rho float64, arrow bool) ([]*Problem, []*Settings) {
	var probs []*Problem
	var sets []*Settings
	for seed := uint64(1); seed <= benchInstances; seed++ {
		prob, shared := drflQP(seed, 55, 13)
		set := DefaultSettings()
		if arrow {
			ord, err := ArrowOrdering(prob, shared)
			if err != nil {
				b.Fatal(err)
			}
			set.Ordering = ord
		}
		if rho > 0 {
			set.Rho = rho
		}
		probs, sets = append(probs, prob), append(sets, set)
	}
	return probs, sets
}

func benchCold(b *testing.B, probs []*Problem, sets []*Settings) {
	ctx := context.Background()
	it, steps := 0, 0
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		for k, prob := range probs {
			res, err := Solve(ctx, prob, sets[k], nil)
			if err != nil || res.Status != Solved {
				b.Fatalf("instance %d: %v %v", k, err, res.Status)
			}
			it += res.Stats.Iterations
			steps += res.Stats.PolishSteps
		}
	}
	reportPerSolve(b, it, steps, cpu0)
}

// BenchmarkDRFLCold: NewSolver (scaling, the given arrow ordering,
// factorisation) and Solve from zero, default settings.
func BenchmarkDRFLCold(b *testing.B) {
	probs, sets := drflInstances(b, 0, true)
	benchCold(b, probs, sets)
}

// BenchmarkDRFLColdRho1: as BenchmarkDRFLCold with Rho = 1.
func BenchmarkDRFLColdRho1(b *testing.B) {
	probs, sets := drflInstances(b, 1, true)
	benchCold(b, probs, sets)
}

// BenchmarkDRFLColdAuto: as BenchmarkDRFLCold with the automatic ordering
// (computed inside NewSolver) instead of ArrowOrdering.
func BenchmarkDRFLColdAuto(b *testing.B) {
	probs, sets := drflInstances(b, 0, false)
	benchCold(b, probs, sets)
}

// BenchmarkArrowOrdering: the cost of ArrowOrdering on one DRFL QP, paid
// once per problem structure (not per solve).
func BenchmarkArrowOrdering(b *testing.B) {
	prob, shared := drflQP(1, 55, 13)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ArrowOrdering(prob, shared); err != nil {
			b.Fatal(err)
		}
	}
}

// benchWarm re-solves each instance on its own Solver after moving the
// centre θ̂ of the proximal term (the linear cost of the 15 shared
// variables) by ±delta, as successive rounds of the federated method do,
// warm-starting from the previous solution.
func benchWarm(b *testing.B, delta float64) {
	probs, sets := drflInstances(b, 0, true)
	ctx := context.Background()
	solvers := make([]*Solver, len(probs))
	last := make([]*Result, len(probs))
	qs := make([][]float64, len(probs))
	for k, prob := range probs {
		s, err := NewSolver(prob, sets[k])
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Solve(ctx, nil)
		if err != nil || res.Status != Solved {
			b.Fatal(err, res.Status)
		}
		solvers[k], last[k], qs[k] = s, res, append([]float64(nil), prob.Q...)
	}
	it, steps, round := 0, 0, 0
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		round++
		sign := float64(1 - 2*(round%2))
		for k, s := range solvers {
			q, q0 := qs[k], probs[k].Q
			for j := len(q) - 15; j < len(q); j++ {
				q[j] = q0[j] + sign*delta
			}
			if err := s.Update(q, nil, nil); err != nil {
				b.Fatal(err)
			}
			res, err := s.Solve(ctx, &Start{X: last[k].X, Y: last[k].Y})
			if err != nil || res.Status != Solved {
				b.Fatalf("instance %d: %v %v", k, err, res.Status)
			}
			last[k] = res
			it += res.Stats.Iterations
			steps += res.Stats.PolishSteps
		}
	}
	reportPerSolve(b, it, steps, cpu0)
}

// BenchmarkDRFLWarm1e4, 1e3, 1e2: warm re-solves after moving θ̂ by 1e-4,
// 1e-3 and 1e-2 (the proximal weight is 1, so the shared optimum moves by
// about as much).
func BenchmarkDRFLWarm1e4(b *testing.B) { benchWarm(b, 1e-4) }
func BenchmarkDRFLWarm1e3(b *testing.B) { benchWarm(b, 1e-3) }
func BenchmarkDRFLWarm1e2(b *testing.B) { benchWarm(b, 1e-2) }

func denseInstances() ([]*Problem, []*Settings) {
	var probs []*Problem
	var sets []*Settings
	for seed := uint64(1); seed <= benchInstances; seed++ {
		probs, sets = append(probs, denseQP(seed, 200, 50)), append(sets, nil)
	}
	return probs, sets
}

// BenchmarkDense200: setup and solve of dense QPs with 200 variables
// (P = MᵀM/n + 0.01I), 50 dense inequality rows and 200 box rows.
func BenchmarkDense200(b *testing.B) {
	probs, sets := denseInstances()
	benchCold(b, probs, sets)
}

// BenchmarkDense200Warm: the dense QPs re-solved on their Solvers after a
// ±1% change of q, warm-started.
func BenchmarkDense200Warm(b *testing.B) {
	probs, _ := denseInstances()
	ctx := context.Background()
	solvers := make([]*Solver, len(probs))
	last := make([]*Result, len(probs))
	for k, prob := range probs {
		s, err := NewSolver(prob, nil)
		if err != nil {
			b.Fatal(err)
		}
		solvers[k] = s
		last[k], _ = s.Solve(ctx, nil)
	}
	q := make([]float64, 200)
	it, steps, round := 0, 0, 0
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		round++
		f := 1 + 0.01*float64(1-2*(round%2))
		for k, s := range solvers {
			for j := range q {
				q[j] = probs[k].Q[j] * f
			}
			if err := s.Update(q, nil, nil); err != nil {
				b.Fatal(err)
			}
			res, err := s.Solve(ctx, &Start{X: last[k].X, Y: last[k].Y})
			if err != nil || res.Status != Solved {
				b.Fatalf("instance %d: %v %v", k, err, res.Status)
			}
			last[k] = res
			it += res.Stats.Iterations
			steps += res.Stats.PolishSteps
		}
	}
	reportPerSolve(b, it, steps, cpu0)
}

// BenchmarkDense200Setup: NewSolver alone (validation, scaling, the
// convexity check and the first factorisation) on the instances of
// BenchmarkDense200.
func BenchmarkDense200Setup(b *testing.B) {
	probs, _ := denseInstances()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		for _, prob := range probs {
			if _, err := NewSolver(prob, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportPerSolve(b, 0, 0, cpu0)
}
