package solver_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// Solve a small equality-constrained QP (eq. (84)) with Algorithm 1 and
// certify the answer: the KKT residuals of Definition 1 are recomputed at
// the returned point.
func ExampleSolve() {
	rng := rand.New(rand.NewPCG(1, 2))
	q, _ := problems.NewLCQP(rng, 20, 3, 1) // d = 20, n = 3 clients, m̃ = 1
	_, fstar, _ := q.Exact()
	w0 := problems.UnitSphere(rng, 20)

	res, err := solver.Solve(context.Background(), q.Problem(), w0,
		&solver.Settings{Eps1: 1e-6, Eps2: 1e-6}, &solver.ProxAL{Beta: 10, SBar: 0.1, Rho: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status)
	fmt.Printf("f = %.6f, f* = %.6f\n", res.Objective, fstar)
	fmt.Println("certified:", res.Residuals.Stationarity <= 1e-6 && res.Residuals.Feasibility <= 1e-6)
	// Output:
	// Converged
	// f = 8.195735, f* = 8.195735
	// certified: true
}
