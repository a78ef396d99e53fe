package kernels

// invBlock: rows per diagonal block of CholSolveInv.
const invBlock = 16

// Repeated solves with one Cholesky factor (the dense QP's ADMM steps) spend
// much of CholSolve in the small triangles of its diagonal blocks, solved
// entry by entry along a dependency chain. With the inverses of those
// blocks computed once per factorisation, each block becomes one small
// GemvT as well, and every step of both sweeps is a vectorised product.

// BlockInvLen returns the length of the slice BlockInverses fills for an
// n×n factor.
func BlockInvLen(n int) int {
	full, rest := n/invBlock, n%invBlock
	return 2 * (full*invBlock*invBlock + rest*rest)
}

// BlockInverses writes into v (length BlockInvLen(n)) the inverse V of each
// diagonal block of the factor U from Cholesky, blocks of invBlock rows
// from row 0, each as V then Vᵀ, row-major. The blocks are triangular with
// positive pivots, so their inverses exist; they cost n·invBlock²/6
// multiply-adds in all.
func BlockInverses(u []float64, n int, v []float64) {
	u, v = u[:n*n], v[:BlockInvLen(n)]
	for i0 := 0; i0 < n; i0 += invBlock {
		w := min(invBlock, n-i0)
		vb, vt := v[:w*w], v[w*w:2*w*w]
		v = v[2*w*w:]
		clear(vb)
		var rd [invBlock]float64 // reciprocal pivots: no division in the loop
		for r := 0; r < w; r++ {
			rd[r] = 1 / u[(i0+r)*n+i0+r]
		}
		// Column c of V solves U_bb·V[:, c] = e_c, from the bottom up; V is
		// upper triangular like U_bb.
		for c := 0; c < w; c++ {
			for r := c; r >= 0; r-- {
				var s float64
				if r == c {
					s = 1
				}
				row := u[(i0+r)*n+i0:]
				for k := r + 1; k <= c; k++ {
					s -= row[k] * vb[k*w+c]
				}
				vb[r*w+c] = s * rd[r]
			}
		}
		for r := 0; r < w; r++ {
			for c := 0; c < w; c++ {
				vt[c*w+r] = vb[r*w+c]
			}
		}
	}
}

// CholSolveInv overwrites x with K⁻¹x given Cholesky's output u for
// K = UᵀU and v from BlockInverses(u, n, v): CholSolve with each diagonal
// block applied as a product with its inverse. The result differs from
// CholSolve's in the last bits (by the conditioning of the diagonal blocks
// times the rounding, as for any triangular solve).
func CholSolveInv(u []float64, n int, v, x []float64) {
	cholSolveInv(u, n, v, x, false)
}

// gemvTOf is GemvT, or its pure-Go version if fallback is set (for the
// tests: a function value would move the solves' buffer to the heap).
func gemvTOf(fallback bool, alpha float64, a []float64, stride int, c, y []float64) {
	if fallback && len(c) > 0 && len(y) > 0 {
		gemvTGo(alpha, a[:(len(c)-1)*stride+len(y)], stride, c, y)
		return
	}
	if !fallback {
		GemvT(alpha, a, stride, c, y)
	}
}

func cholSolveInv(u []float64, n int, v, x []float64, fallback bool) {
	u, v, x = u[:n*n], v[:BlockInvLen(n)], x[:n]
	var t [invBlock]float64
	// Uᵀy = x: y_b = V_bᵀ(x_b − the earlier blocks' terms), then the rest
	// of x loses U[b, after b]ᵀ·y_b.
	off := 0
	for i0 := 0; i0 < n; i0 += invBlock {
		i1 := min(i0+invBlock, n)
		w := i1 - i0
		tb, xb := t[:w], x[i0:i1]
		copy(tb, xb)
		clear(xb)
		gemvTOf(fallback, 1, v[off:off+w*w], w, tb, xb) // += (V)ᵀ t
		off += 2 * w * w
		if i1 < n {
			gemvTOf(fallback, -1, u[i0*n+i1:], n, xb, x[i1:])
		}
	}
	// Ux = y, blocks from the last: x_b = V_b(y_b − the later blocks'
	// terms), then the earlier entries lose U[before b, b]·x_b, read as
	// rows of the lower mirror Uᵀ.
	for i0 := (n - 1) / invBlock * invBlock; i0 >= 0 && n > 0; i0 -= invBlock {
		i1 := min(i0+invBlock, n)
		w := i1 - i0
		off -= 2 * w * w
		tb, xb := t[:w], x[i0:i1]
		copy(tb, xb)
		clear(xb)
		gemvTOf(fallback, 1, v[off+w*w:off+2*w*w], w, tb, xb) // += (Vᵀ)ᵀ t = V t
		if i0 > 0 {
			gemvTOf(fallback, -1, u[i0*n:], n, xb, x[:i0])
		}
	}
}
