package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCholSolveInv: with the kernels and with the pure-Go GemvT, the
// residual ‖Kx − b‖∞ stays within the bound TestCholesky sets for
// CholSolve (1e-13·n‖K‖‖x‖), and x agrees with CholSolve's to 1e-12
// relative (K = MᵀM/n + I is well conditioned: cond ≤ ~5 at these sizes),
// at every tail length of the 16-row blocks, with b placed unaligned and
// nothing written past its end.
func TestCholSolveInv(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 27))
	for _, n := range []int{0, 1, 2, 3, 5, 15, 16, 17, 31, 33, 63, 200} {
		k := spd(rng, n)
		u := append([]float64(nil), k...)
		if !Cholesky(u, n) {
			t.Fatalf("n=%d: not positive definite", n)
		}
		v := make([]float64, BlockInvLen(n))
		BlockInverses(u, n, v)
		for _, off := range offsets {
			b := buf(rng, n, off, 1)
			ref := append([]float64(nil), b...)
			CholSolve(u, n, ref)
			for name, fallback := range map[string]bool{"dispatch": false, "go": true} {
				x := buf(rng, n, off, 1)
				copy(x, b)
				cholSolveInv(u, n, v, x, fallback)
				checkSentinels(t, x)
				var knorm, xnorm, rnorm, dmax float64
				for i := 0; i < n; i++ {
					r := -b[i]
					for j := 0; j < n; j++ {
						r += k[i*n+j] * x[j]
						knorm = max(knorm, math.Abs(k[i*n+j]))
					}
					rnorm, xnorm = max(rnorm, math.Abs(r)), max(xnorm, math.Abs(x[i]))
					dmax = max(dmax, math.Abs(x[i]-ref[i]))
				}
				if rnorm > 1e-13*float64(n)*knorm*xnorm {
					t.Fatalf("n=%d off=%d %s: residual %g", n, off, name, rnorm)
				}
				if dmax > 1e-12*xnorm {
					t.Fatalf("n=%d off=%d %s: differs from CholSolve by %g", n, off, name, dmax)
				}
			}
		}
	}
}

// TestBlockInverses: each stored block times its triangle of U is the
// identity to 1e-14, and the second copy is its transpose.
func TestBlockInverses(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 29))
	for _, n := range []int{1, 7, 16, 40} {
		u := spd(rng, n)
		Cholesky(u, n)
		v := make([]float64, BlockInvLen(n))
		BlockInverses(u, n, v)
		off := 0
		for i0 := 0; i0 < n; i0 += invBlock {
			w := min(invBlock, n-i0)
			vb, vt := v[off:off+w*w], v[off+w*w:off+2*w*w]
			off += 2 * w * w
			for r := 0; r < w; r++ {
				for c := 0; c < w; c++ {
					var s float64
					for q := r; q <= c; q++ { // U upper, V upper
						s += u[(i0+r)*n+i0+q] * vb[q*w+c]
					}
					want := 0.0
					if r == c {
						want = 1
					}
					if math.Abs(s-want) > 1e-14 || vt[c*w+r] != vb[r*w+c] || r > c && vb[r*w+c] != 0 {
						t.Fatalf("n=%d block %d (%d, %d): U·V = %g, V %g, Vᵀ %g", n, i0, r, c, s, vb[r*w+c], vt[c*w+r])
					}
				}
			}
		}
		if off != len(v) {
			t.Fatalf("n=%d: %d of %d entries used", n, off, len(v))
		}
	}
}

func BenchmarkCholSolveInv200(b *testing.B) {
	u := spd(rand.New(rand.NewPCG(1, 1)), 200)
	Cholesky(u, 200)
	v := make([]float64, BlockInvLen(200))
	BlockInverses(u, 200, v)
	x := make([]float64, 200)
	for b.Loop() {
		for i := range x {
			x[i] = 1
		}
		CholSolveInv(u, 200, v, x)
	}
}
