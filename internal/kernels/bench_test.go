package kernels

import (
	"math/rand/v2"
	"testing"
)

// The kernels at the sizes the callers use; compare with -tags purego for
// the fallback.

func BenchmarkDot(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := buf(rng, 200, 0, 1), buf(rng, 200, 0, 1)
	for b.Loop() {
		Dot(x, y)
	}
}

func BenchmarkAxpy(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := buf(rng, 128, 0, 1), buf(rng, 128, 0, 1)
	for b.Loop() {
		Axpy(1e-9, x, y)
	}
}

// BenchmarkLogLoss: one block of 256 margins.
func BenchmarkLogLoss(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	z, r := buf(rng, 256, 0, 10), make([]float64, 256)
	for b.Loop() {
		LogLoss(z, 1, r)
	}
}

func BenchmarkExp(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := buf(rng, 128, 0, 10), make([]float64, 128)
	for b.Loop() {
		Exp(x, y)
	}
}

func BenchmarkCholesky200(b *testing.B) {
	k := spd(rand.New(rand.NewPCG(1, 1)), 200)
	u := make([]float64, len(k))
	for b.Loop() {
		copy(u, k)
		Cholesky(u, 200)
	}
}

func BenchmarkCholSolve200(b *testing.B) {
	u := spd(rand.New(rand.NewPCG(1, 1)), 200)
	Cholesky(u, 200)
	x := make([]float64, 200)
	for b.Loop() {
		for i := range x {
			x[i] = 1
		}
		CholSolve(u, 200, x)
	}
}
