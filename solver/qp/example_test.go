package qp_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/solver/qp"
)

// Minimise ½(x₁² + 2x₂²) − 3x₁ − 6x₂ subject to 0 ≤ x₁ ≤ 1, 0 ≤ x₂ ≤ 10
// and x₁ + x₂ ≤ 3.5.
func ExampleSolve() {
	inf := math.Inf(1)
	prob := &qp.Problem{
		P: mat.NewDiagDense(2, []float64{1, 2}),
		Q: []float64{-3, -6},
		A: mat.NewDense(3, 2, []float64{
			1, 0,
			0, 1,
			1, 1,
		}),
		L: []float64{0, 0, -inf},
		U: []float64{1, 10, 3.5},
	}
	res, err := qp.Solve(context.Background(), prob, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status)
	fmt.Printf("x = [%.4f %.4f]\n", res.X[0], res.X[1])
	fmt.Printf("y = [%.4f %.4f %.4f]\n", res.Y[0], res.Y[1], res.Y[2])
	fmt.Printf("objective = %.4f\n", res.Objective)
	// Output:
	// Solved
	// x = [1.0000 2.5000]
	// y = [1.0000 0.0000 1.0000]
	// objective = -11.2500
}

// Re-solve a problem with a new linear cost, reusing the factorisation and
// warm-starting from the previous solution.
func ExampleSolver_Update() {
	prob := &qp.Problem{
		P: mat.NewDiagDense(2, []float64{1, 1}),
		Q: []float64{-1, -1},
		A: mat.NewDense(1, 2, []float64{1, 1}),
		L: []float64{-math.Inf(1)},
		U: []float64{1},
	}
	s, err := qp.NewSolver(prob, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	res, _ := s.Solve(ctx, nil)
	fmt.Printf("%v x = [%.3f %.3f]\n", res.Status, res.X[0], res.X[1])
	if err := s.Update([]float64{-2, 0}, nil, nil); err != nil {
		fmt.Println(err)
		return
	}
	res, _ = s.Solve(ctx, &qp.Start{X: res.X, Y: res.Y})
	fmt.Printf("%v x = [%.3f %.3f]\n", res.Status, res.X[0], res.X[1])
	// Output:
	// Solved x = [0.500 0.500]
	// Solved x = [1.500 -0.500]
}
