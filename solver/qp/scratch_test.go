package qp

import (
	"fmt"
	"testing"
)

func TestScratch(t *testing.T) {
	prob := denseQP(1, 200, 50)
	d, _ := newData(prob)
	fmt.Println("newData", testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			newData(prob)
		}
	}))
	fmt.Println("ruiz", testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			P, A := d.P.clone(), d.A.clone()
			q := append([]float64(nil), d.q...)
			ruiz(P, A, q, 10)
		}
	}))
	n := 200
	k := make([]float64, n*n)
	fmt.Println("chol", testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			fillP(k, d.P, 1)
			cholesky(k, n)
		}
	}))
	dk := newDenseKKT(d.P, d.A, 1e-6)
	rho := make([]float64, d.m)
	for i := range rho {
		rho[i] = 0.1
	}
	fmt.Println("setRho", testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			dk.setRho(rho)
		}
	}))
	fmt.Println("new", testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			NewSolver(prob, nil)
		}
	}))
}
