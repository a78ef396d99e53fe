package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGemvT: kernel and Go version against exactly summed Aᵀc, to the dot
// product bound (len(c)+8)·ε·Σ|c_k a_ki| (plus the last rounding of y).
func TestGemvT(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, m := range []int{0, 1, 2, 5, 17, 64} {
		for _, n := range sizes {
			stride := n + 3
			if m == 0 {
				stride = 0
			}
			a := buf(rng, max(0, (m-1)*stride+n), 1, 1)
			c := buf(rng, m, 0, 2)
			y0 := buf(rng, n, 2, 1)
			yk, yg := make([]float64, n+8), append([]float64(nil), y0...)
			copy(yk, y0)
			for i := n; i < n+8; i++ {
				yk[i] = sentinel
			}
			yk = yk[:n]
			GemvT(-0.5, a, stride, c, yk)
			if m > 0 && n > 0 {
				gemvTGo(-0.5, a[:(m-1)*stride+n], stride, c, yg)
			}
			checkSentinels(t, yk)
			for i := 0; i < n; i++ {
				col, abs := make([]float64, m), 0.0
				for k := range col {
					col[k] = a[k*stride+i]
					abs += math.Abs(c[k] * col[k])
				}
				want := y0[i] - 0.5*exactDot(c, col)
				tol := float64(m+8)*eps*abs + 2*eps*math.Abs(want)
				if math.Abs(yk[i]-want) > tol || math.Abs(yg[i]-want) > tol {
					t.Fatalf("m=%d n=%d i=%d: kernel %g go %g want %g", m, n, i, yk[i], yg[i], want)
				}
			}
		}
	}
}

// spd returns a random n×n symmetric positive definite matrix MᵀM/n + I
// (row-major, full).
func spd(rng *rand.Rand, n int) []float64 {
	m := make([]float64, n*n)
	for i := range m {
		m[i] = rng.NormFloat64()
	}
	k := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for t := 0; t < n; t++ {
				s += m[t*n+i] * m[t*n+j]
			}
			k[i*n+j] = s / float64(n)
		}
		k[i*n+i]++
	}
	return k
}

// TestCholesky: the factor matches gonum's (LAPACK Dpotrf) to 1e-13
// relative, the solve leaves a residual ‖Kx − b‖ <= 1e-13·‖K‖‖x‖, and
// indefinite, NaN and +Inf pivots are rejected.
func TestCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, n := range []int{0, 1, 2, 3, 5, 16, 17, 63, 200, 300} {
		k := spd(rng, n)
		u := append([]float64(nil), k...)
		if !Cholesky(u, n) {
			t.Fatalf("n=%d: not positive definite", n)
		}
		if n == 0 {
			continue
		}
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(n, append([]float64(nil), k...))) {
			t.Fatal("gonum failed")
		}
		var ug mat.TriDense
		ch.UTo(&ug)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				if g := ug.At(i, j); math.Abs(u[i*n+j]-g) > 1e-13*(1+math.Abs(g)) {
					t.Fatalf("n=%d U[%d][%d] = %g, gonum %g", n, i, j, u[i*n+j], g)
				}
			}
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		x := append([]float64(nil), b...)
		CholSolve(u, n, x)
		var knorm, xnorm, rnorm float64
		for i := 0; i < n; i++ {
			r := -b[i]
			for j := 0; j < n; j++ {
				r += k[i*n+j] * x[j]
				knorm = max(knorm, math.Abs(k[i*n+j]))
			}
			rnorm, xnorm = max(rnorm, math.Abs(r)), max(xnorm, math.Abs(x[i]))
		}
		if rnorm > 1e-13*float64(n)*knorm*xnorm {
			t.Fatalf("n=%d: residual %g", n, rnorm)
		}
	}
	for _, bad := range [][]float64{{1, 2, 2, 1}, {math.NaN(), 0, 0, 1}, {math.Inf(1), 0, 0, 1}, {1, 0, 0, 0}} {
		if Cholesky(bad, 2) {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestSyrkT: against the definition, rows of A in more than one block.
func TestSyrkT(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, r := range []int{0, 1, 7, 300} {
		for _, n := range []int{1, 4, 5, 33} {
			a := buf(rng, r*n, 0, 1)
			ld := n + 2
			h := make([]float64, n*ld)
			SyrkT(0.5, a, r, n, h, ld)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					var want, abs float64
					if j >= i {
						for s := 0; s < r; s++ {
							want += 0.5 * a[s*n+i] * a[s*n+j]
							abs += math.Abs(0.5 * a[s*n+i] * a[s*n+j])
						}
					}
					if math.Abs(h[i*ld+j]-want) > float64(2*r+8)*eps*abs {
						t.Fatalf("r=%d n=%d (%d,%d): %g want %g", r, n, i, j, h[i*ld+j], want)
					}
				}
			}
		}
	}
}

// TestGemmT4: kernel and Go version against four exactly summed GemvTs, to
// the bound of TestGemvT, on unaligned rows; the gaps between the rows of y
// stay untouched.
func TestGemmT4(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, m := range []int{0, 1, 2, 5, 17, 64} {
		for _, n := range sizes {
			off := (m + n) % 4
			stride, ld, ldc := n+3, max(m, n)+1+n%3, m+m%3
			a := buf(rng, max(0, (m-1)*stride+n), off, 1)
			c := buf(rng, 3*ldc+m, 0, 2)
			y0 := buf(rng, 3*ld+n, off, 1)
			yk := make([]float64, len(y0), len(y0)+8)
			copy(yk, y0)
			yk = append(yk, make([]float64, 8)...)
			for i := len(y0); i < len(yk); i++ {
				yk[i] = sentinel
			}
			yk = yk[:len(y0)]
			yg := append([]float64(nil), y0...)
			GemmT4(-0.5, a, stride, c, ldc, m, yk, ld, n)
			if m > 0 && n > 0 {
				gemmT4Go(-0.5, a, stride, c, ldc, m, yg, ld, n)
			}
			checkSentinels(t, yk)
			for r := 0; r < 4; r++ {
				for i := 0; i < ld && r*ld+i < len(y0); i++ {
					p := r*ld + i
					if i >= n {
						if yk[p] != y0[p] || yg[p] != y0[p] {
							t.Fatalf("m=%d n=%d: gap entry %d of row %d written", m, n, i, r)
						}
						continue
					}
					col, abs := make([]float64, m), 0.0
					for k := range col {
						col[k] = a[k*stride+i]
						abs += math.Abs(c[r*ldc+k] * col[k])
					}
					want := y0[p] - 0.5*exactDot(c[r*ldc:r*ldc+m], col)
					tol := float64(m+8)*eps*abs + 2*eps*math.Abs(want)
					if math.Abs(yk[p]-want) > tol || math.Abs(yg[p]-want) > tol {
						t.Fatalf("m=%d n=%d r=%d i=%d: kernel %g go %g want %g", m, n, r, i, yk[p], yg[p], want)
					}
				}
			}
		}
	}
}

// TestDotAxpy: the sum against the exact dot product to
// (len+8)·ε·Σ|a_i x_i|, and y + alpha·a to 2ε of each term (the Go version
// rounds the product and the sum), kernel and Go version, unaligned.
func TestDotAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range sizes {
		for _, off := range offsets {
			a, x := buf(rng, n, off, 1), buf(rng, n, (off+1)%4, 1)
			y0 := buf(rng, n, (off+2)%4, 1)
			yk := buf(rng, n, off, 1)
			copy(yk, y0)
			yg := append([]float64(nil), y0...)
			sk := DotAxpy(1.5, a, x, yk)
			sg := dotAxpyGo(1.5, a, x, yg)
			checkSentinels(t, yk)
			want, abs := exactDot(a, x), 0.0
			for i := range a {
				abs += math.Abs(a[i] * x[i])
			}
			tol := float64(n+8) * eps * abs
			if math.Abs(sk-want) > tol || math.Abs(sg-want) > tol {
				t.Fatalf("n=%d off=%d: sum kernel %g go %g want %g", n, off, sk, sg, want)
			}
			for i := range a {
				w := y0[i] + 1.5*a[i]
				tol := 2 * eps * (math.Abs(y0[i]) + math.Abs(1.5*a[i]))
				if math.Abs(yk[i]-w) > tol || math.Abs(yg[i]-w) > tol {
					t.Fatalf("n=%d off=%d i=%d: y kernel %g go %g want %g", n, off, i, yk[i], yg[i], w)
				}
			}
		}
	}
}
