package stochastic_test

import (
	"fmt"

	"github.com/fedcon/fedcon/solver/stochastic"
)

// Lemma 1 in its regimes: with A - U < 0 the point w = 0 is feasible
// (ν* = 0); an interior multiplier; and b + 4τ(U - A) ≤ 0 (ν* = c).
func ExampleLemma1() {
	const b, tau, c = 4.0, 0.1, 1e5
	fmt.Printf("%.4f\n", stochastic.Lemma1(0.5, 1, b, tau, c))
	fmt.Printf("%.4f\n", stochastic.Lemma1(1.5, 1, b, tau, c))
	fmt.Printf("%.0f\n", stochastic.Lemma1(20, 1, b, tau, c))
	// Output:
	// 0.0000
	// 0.2598
	// 100000
}
