package solver

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkQuadKernels compares ways to apply H⁻¹ at d = 500 (a Table 4
// client): a full-storage Gemv with the explicit inverse (what quadFactor
// does), a Symv with the inverse, and two triangular solves with the
// Cholesky factor. Run with -benchmem and compare with benchstat.
func BenchmarkQuadKernels(b *testing.B) {
	const d = 500
	rng := rand.New(rand.NewPCG(1, 1))
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s.SetSym(i, j, rng.NormFloat64())
		}
		s.SetSym(i, i, s.At(i, i)+2*d)
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		b.Fatal("not PD")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		b.Fatal(err)
	}
	full := mat.DenseCopyOf(&inv).RawMatrix()
	var u mat.TriDense
	ch.UTo(&u)
	x, y := make([]float64, d), make([]float64, d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	vx, vy := blas64.Vector{N: d, Inc: 1, Data: x}, blas64.Vector{N: d, Inc: 1, Data: y}
	b.Run("gemv-inverse", func(b *testing.B) {
		for b.Loop() {
			blas64.Gemv(blas.NoTrans, 1, full, vx, 0, vy)
		}
	})
	b.Run("symv-inverse", func(b *testing.B) {
		for b.Loop() {
			blas64.Symv(1, inv.RawSymmetric(), vx, 0, vy)
		}
	})
	b.Run("two-trsv", func(b *testing.B) {
		for b.Loop() {
			copy(y, x)
			blas64.Trsv(blas.Trans, u.RawTriangular(), vy)
			blas64.Trsv(blas.NoTrans, u.RawTriangular(), vy)
		}
	})
	// The mixed-precision solve: float32 inverse, float64 accumulation.
	// One matrix in cache, and ten (a Table 4 cell's clients) that are not.
	p32, _ := certBound(s, mat.DenseCopyOf(&inv))
	f := &quadFactor{d: d, hinv: full, p32: p32, cert: 0}
	sub := newSubproblem(d)
	sub.sigma = -1 // g = z
	copy(sub.z, x)
	g := make([]float64, d)
	b.Run("mixed-inverse", func(b *testing.B) {
		for b.Loop() {
			f.solveTol(y, g, sub, 1)
		}
	})
	tens := make([]*quadFactor, 10)
	for i := range tens {
		c := *f
		c.p32 = append([]float32(nil), p32...)
		c.hinv.Data = append([]float64(nil), full.Data...)
		tens[i] = &c
	}
	b.Run("gemv-inverse-x10", func(b *testing.B) {
		for b.Loop() {
			for _, t := range tens {
				blas64.Gemv(blas.NoTrans, 1, t.hinv, vx, 0, vy)
			}
		}
	})
	b.Run("mixed-inverse-x10", func(b *testing.B) {
		for b.Loop() {
			for _, t := range tens {
				t.solveTol(y, g, sub, 1)
			}
		}
	})
}
