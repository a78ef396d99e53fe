package kernels

import "math"

// Dense symmetric matrices here are n×n row-major slices of which only the
// upper triangle is read and written. In that layout the upper triangle is
// the column-major lower triangle L = Uᵀ, so row j of U from column j on is
// column j of L: contiguous.

// Cholesky overwrites the upper triangle of the row-major n×n k with U,
// k = UᵀU, and its strict lower triangle with Uᵀ (for CholSolve's
// backward sweep; the input's lower triangle is ignored). It reports false
// if k is not numerically positive definite (a pivot <= 0, NaN or +Inf).
// It is left-looking by panels of four columns: columns j..j+3 of L = Uᵀ
// are k[j:, j:j+4] − L[j:, :j]·L[j:j+4, :j]ᵀ, one GemmT4 into rows j..j+3 of
// the storage, so each entry of L[:, :j] read serves four columns; the
// panel is then finished column by column. n³/6 fused multiply-adds in all.
func Cholesky(k []float64, n int) bool {
	k = k[:n*n]
	j := 0
	for ; j+4 <= n; j += 4 {
		// The multipliers L[j+r, :j] are rows j..j+3 of the lower mirror;
		// the update also writes garbage into the mirror entries of rows
		// j+1..j+3 left of the diagonal, which pivot overwrites below.
		GemmT4(-1, k[j:], n, k[j*n:], n, j, k[j*n+j:], n, n-j)
		for c := j; c < j+4; c++ {
			row := k[c*n+c : c*n+n]
			for p := j; p < c; p++ {
				Axpy(-k[p*n+c], k[p*n+c:p*n+n], row)
			}
			if !pivot(k, n, c) {
				return false
			}
		}
	}
	for ; j < n; j++ {
		GemvT(-1, k[j:], n, k[j*n:j*n+j], k[j*n+j:j*n+n])
		if !pivot(k, n, j) {
			return false
		}
	}
	return true
}

// pivot finishes column j of L once row j of the storage holds its updated
// entries: the square root of the pivot, the scaling, and the copy into the
// lower mirror.
func pivot(k []float64, n, j int) bool {
	row := k[j*n+j : j*n+n]
	d := row[0]
	if !(d > 0) || math.IsInf(d, 1) {
		return false
	}
	d = math.Sqrt(d)
	row[0] = d
	inv := 1 / d
	for i := 1; i < len(row); i++ {
		row[i] *= inv
		k[(j+i)*n+j] = row[i]
	}
	return true
}

// solveBlock: rows per block of CholSolve's sweeps.
const solveBlock = 16

// CholSolve overwrites x with K⁻¹x given Cholesky's output for K = UᵀU.
// Both sweeps go by blocks of rows: a small triangle solved entry by entry,
// then one GemvT for the rest of x (rows of U forward, rows of the lower
// mirror Uᵀ backward).
func CholSolve(u []float64, n int, x []float64) {
	u, x = u[:n*n], x[:n]
	// The entries of a block depend on each other in sequence; the
	// reciprocals of its pivots, taken first (independently), keep the
	// divisions off that chain.
	var inv [solveBlock]float64
	// Uᵀy = x.
	for i0 := 0; i0 < n; i0 += solveBlock {
		i1 := min(i0+solveBlock, n)
		for i := i0; i < i1; i++ {
			inv[i-i0] = 1 / u[i*n+i]
		}
		// Two entries at a time, to halve the chain's length.
		i := i0
		for ; i+1 < i1; i += 2 {
			x0 := x[i] * inv[i-i0]
			x1 := (x[i+1] - u[i*n+i+1]*x0) * inv[i+1-i0]
			x[i], x[i+1] = x0, x1
			r0, r1, xs := u[i*n+i+2:i*n+i1], u[(i+1)*n+i+2:(i+1)*n+i1], x[i+2:i1]
			r1, xs = r1[:len(r0)], xs[:len(r0)]
			for t, v := range r0 {
				xs[t] -= v*x0 + r1[t]*x1
			}
		}
		if i < i1 {
			x[i] *= inv[i-i0]
		}
		if i1 < n {
			GemvT(-1, u[i0*n+i1:], n, x[i0:i1], x[i1:])
		}
	}
	// Ux = y.
	for i1 := n; i1 > 0; i1 -= solveBlock {
		i0 := max(i1-solveBlock, 0)
		for i := i0; i < i1; i++ {
			inv[i-i0] = 1 / u[i*n+i]
		}
		i := i1 - 1
		for ; i > i0; i -= 2 {
			x0 := x[i] * inv[i-i0]
			x1 := (x[i-1] - u[i*n+i-1]*x0) * inv[i-1-i0]
			x[i], x[i-1] = x0, x1
			r0, r1, xs := u[i*n+i0:i*n+i-1], u[(i-1)*n+i0:(i-1)*n+i-1], x[i0:i-1]
			r1, xs = r1[:len(r0)], xs[:len(r0)]
			for t, v := range r0 {
				xs[t] -= v*x0 + r1[t]*x1
			}
		}
		if i == i0 {
			x[i] *= inv[0]
		}
		if i0 > 0 {
			GemvT(-1, u[i0*n:], n, x[i0:i1], x[:i0])
		}
	}
}

// SyrkT adds alpha·AᵀA to the upper triangle of the n×n row-major h (row
// stride ldh), A being the r×n row-major a (row stride n): row i of h from
// column i on gets alpha·Σ_t A[t][i]·A[t][i:], over blocks of 256 rows of
// A, four rows of h at a time by GemmT4 (then one at a time by GemvT).
func SyrkT(alpha float64, a []float64, r, n int, h []float64, ldh int) {
	const blk = 256
	var cb [4 * blk]float64
	for t0 := 0; t0 < r; t0 += blk {
		m := min(blk, r-t0)
		ab := a[t0*n:]
		i := 0
		for ; i+4 <= n; i += 4 {
			for q := 0; q < 4; q++ {
				c := cb[q*blk : q*blk+m]
				for t := range c {
					c[t] = ab[t*n+i+q]
				}
			}
			// The four rows start at column i, so the update also reaches
			// the six entries of rows i+1..i+3 left of the diagonal, in the
			// strict lower triangle: they are put back as they were.
			l := [6]int{(i+1)*ldh + i, (i+2)*ldh + i, (i+2)*ldh + i + 1, (i+3)*ldh + i, (i+3)*ldh + i + 1, (i+3)*ldh + i + 2}
			var low [6]float64
			for q, p := range l {
				low[q] = h[p]
			}
			GemmT4(alpha, ab[i:], n, cb[:], blk, m, h[i*ldh+i:], ldh, n-i)
			for q, p := range l {
				h[p] = low[q]
			}
		}
		c := cb[:m]
		for ; i < n; i++ {
			for t := range c {
				c[t] = ab[t*n+i]
			}
			GemvT(alpha, ab[i:], n, c, h[i*ldh+i:i*ldh+n])
		}
	}
}
