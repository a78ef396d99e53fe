package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMixedSolveCertificate: the float32 product's residual ||Hu + g||∞,
// measured in float64, stays within cert·||g||∞ for well and badly
// conditioned H; cert is far from vacuous; below the certified tolerance
// solveTol falls back to the exact product.
func TestMixedSolveCertificate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		d       int
		lo, hi  float64 // eigenvalue range of H
		maxCert float64 // the bound must not be vacuous
	}{
		{"well conditioned", 250, 5, 10, 1e-4},
		{"kappa 1e4", 300, 1e-2, 1e2, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(tc.d)))
			h := randomSPD(rng, tc.d, tc.lo, tc.hi)
			var inv mat.SymDense
			var ch mat.Cholesky
			if !ch.Factorize(h) || ch.InverseTo(&inv) != nil {
				t.Fatal("factorise")
			}
			p32, cert := certBound(h, mat.DenseCopyOf(&inv))
			f := &quadFactor{d: tc.d, hinv: mat.DenseCopyOf(&inv).RawMatrix(), p32: p32, cert: cert}
			if cert > tc.maxCert {
				t.Errorf("cert = %.3g: vacuous", cert)
			}
			s := newSubproblem(tc.d)
			s.sigma = 1 // quadLinear(g) = -σz: g is then -z
			u := make([]float64, tc.d)
			g := make([]float64, tc.d)
			for trial := 0; trial < 20; trial++ {
				for j := range s.z {
					s.z[j] = rng.NormFloat64() * math.Pow(10, float64(trial%5-2))
				}
				var gn float64
				for _, x := range s.z {
					gn = max(gn, math.Abs(x))
				}
				for _, tol := range []float64{cert * gn * 1.01, cert * gn * 0.5} {
					mixed := f.solveTol(u, g, s, tol)
					if mixed != (tol >= cert*gn) {
						t.Fatalf("tol %.3g, bound %.3g: mixed = %v", tol, cert*gn, mixed)
					}
					// residual Hu + g with g = -z
					r := mat.NewVecDense(tc.d, nil)
					r.MulVec(h, mat.NewVecDense(tc.d, u))
					var rn float64
					for j := 0; j < tc.d; j++ {
						rn = max(rn, math.Abs(r.AtVec(j)-s.z[j]))
					}
					if rn > tol {
						t.Fatalf("residual %.3g > tol %.3g (mixed %v)", rn, tol, mixed)
					}
				}
			}
		})
	}
}

func randomSPD(rng *rand.Rand, d int, lo, hi float64) *mat.SymDense {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var q mat.QR
	q.Factorize(a)
	var qm mat.Dense
	q.QTo(&qm)
	h := mat.NewSymDense(d, nil)
	for k := 0; k < d; k++ {
		lam := lo * math.Pow(hi/lo, float64(k)/float64(d-1))
		col := qm.ColView(k)
		h.SymRankOne(h, lam, col)
	}
	return h
}
