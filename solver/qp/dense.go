package qp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// The dense path stores symmetric matrices as the upper triangle of a
// row-major n×n slice and factors them with LAPACK's blocked Cholesky
// (K = UᵀU): in row-major storage the upper triangle is the column-major
// lower one that gonum's Dpotrf handles fastest (about 6× faster than the
// lower variant at n = 200).

// potrf overwrites the upper triangle of the row-major n×n matrix k with
// its Cholesky factor U (k = UᵀU). It reports false if k is not
// numerically positive definite.
func potrf(k []float64, n int) bool {
	if n == 0 {
		return true
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: k})
	if !ok {
		return false
	}
	// Dpotrf rejects non-positive and NaN pivots but not +Inf (overflow).
	for j := 0; j < n; j++ {
		if math.IsInf(k[j*n+j], 1) {
			return false
		}
	}
	return true
}

// cholSolve overwrites x with K⁻¹x given the factor U of K = UᵀU. The two
// triangular solves run on contiguous rows of U with the vectorised kernels
// of gonum/floats (axpy for Uᵀ, dot for U), which measured 2–3× faster than
// blas64.Trsv at n = 200.
func cholSolve(u []float64, n int, x []float64) {
	x = x[:n]
	for i := 0; i < n; i++ {
		xi := x[i] / u[i*n+i]
		x[i] = xi
		if xi != 0 && i+1 < n {
			floats.AddScaled(x[i+1:], -xi, u[i*n+i+1:i*n+n])
		}
	}
	for i := n - 1; i >= 0; i-- {
		x[i] = (x[i] - floats.Dot(u[i*n+i+1:i*n+n], x[i+1:])) / u[i*n+i]
	}
}

// fillP writes P + shift·I into the upper triangle of the row-major k and
// zeros its strict lower triangle.
func fillP(k []float64, P *CSC, shift float64) {
	n := P.N
	clear(k)
	for j := 0; j < n; j++ {
		for p := P.P[j]; p < P.P[j+1]; p++ {
			k[P.I[p]*n+j] += P.X[p] // P upper: i ≤ j
		}
		k[j*n+j] += shift
	}
}

// denseRowMin: a row of A with at least n/denseRowMin entries is added to
// AᵀρA by the rank-k update Syrk (cost n²/2 per row, at BLAS speed), a
// sparser one entry by entry (cost nnz²/2, scattered).
const denseRowMin = 2

// gram splits the rows of A for forming AᵀρA: the dense rows are copied
// into a row-major matrix for Syrk, the others are left to scatter loops.
type gram struct {
	n      int
	at     *CSC      // Aᵀ: column i holds row i of A
	dense  []int     // rows of A taken by Syrk
	sparse []int     // the other rows
	rows   []float64 // row t of A[dense] at rows[t*n:], len(dense)×n
	work   []float64 // √ρ-scaled copy of the active dense rows
}

func newGram(at *CSC) *gram {
	n := at.M
	g := &gram{n: n, at: at}
	for i := 0; i < at.N; i++ {
		if nz := at.P[i+1] - at.P[i]; nz > 0 && nz*denseRowMin >= n {
			g.dense = append(g.dense, i)
		} else {
			g.sparse = append(g.sparse, i)
		}
	}
	g.rows = make([]float64, len(g.dense)*n)
	g.work = make([]float64, len(g.dense)*n)
	for t, i := range g.dense {
		r := g.rows[t*n : (t+1)*n]
		for p := at.P[i]; p < at.P[i+1]; p++ {
			r[at.I[p]] += at.X[p]
		}
	}
	return g
}

// addTo adds AᵀρA to the upper triangle of the row-major n×n k; rows with
// ρᵢ = 0 are skipped.
func (g *gram) addTo(k []float64, rho []float64) {
	n := g.n
	nd := 0
	for t, i := range g.dense {
		if rho[i] == 0 {
			continue
		}
		floats.ScaleTo(g.work[nd*n:(nd+1)*n], math.Sqrt(rho[i]), g.rows[t*n:(t+1)*n])
		nd++
	}
	if nd > 0 {
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: nd, Cols: n, Stride: n, Data: g.work[:nd*n]},
			1, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: k})
	}
	At := g.at
	for _, i := range g.sparse {
		lo, hi := At.P[i], At.P[i+1]
		r := rho[i]
		if lo == hi || r == 0 {
			continue
		}
		idx, val := At.I[lo:hi], At.X[lo:hi]
		// Row indices are sorted, so (ja, jb) with b ≥ a is upper.
		for a, ja := range idx {
			va := r * val[a]
			row := k[ja*n:]
			for b := a; b < len(idx); b++ {
				row[idx[b]] += va * val[b]
			}
		}
	}
}

// denseKKT solves the ADMM linear system in reduced form
// (P + σI + AᵀρA) x̃ = σx − q + Aᵀ(ρz − y), z̃ = A x̃, with a dense Cholesky
// factorisation of the positive definite n×n matrix.
type denseKKT struct {
	n     int
	sigma float64
	P, A  *CSC
	At    *CSC  // Aᵀ: column i holds row i of A
	Ap    *pair // products with A
	g     *gram
	k     []float64 // factor U, upper triangle row-major
	w     []float64
}

func newDenseKKT(P *CSC, Ap *pair, sigma float64) *denseKKT {
	return newDenseKKTGram(P, Ap, sigma, newGram(Ap.at))
}

func newDenseKKTGram(P *CSC, Ap *pair, sigma float64, g *gram) *denseKKT {
	return &denseKKT{
		n: P.N, sigma: sigma, P: P, A: Ap.a, At: Ap.at, Ap: Ap, g: g,
		k: make([]float64, P.N*P.N),
		w: make([]float64, Ap.a.M),
	}
}

// convex reports whether P + σI is positive definite (its workspace is
// overwritten; setRho refills it).
func (d *denseKKT) convex() bool {
	fillP(d.k, d.P, d.sigma)
	return potrf(d.k, d.n)
}

func (d *denseKKT) setRho(rho []float64) bool {
	fillP(d.k, d.P, d.sigma)
	d.g.addTo(d.k, rho)
	return potrf(d.k, d.n)
}

func (d *denseKKT) step(xt, zt, x, z, y, q, rho []float64) {
	w := d.w
	for i := range w {
		w[i] = rho[i]*z[i] - y[i]
	}
	for j := range xt {
		xt[j] = d.sigma*x[j] - q[j]
	}
	d.Ap.mulT(xt, w)
	cholSolve(d.k, d.n, xt)
	clear(zt)
	d.Ap.mul(zt, xt)
}

func (d *denseKKT) factorNnz() int { return d.n * (d.n + 1) / 2 }

// densePolish solves the regularised polishing system
// [P+δI, A_Rᵀ; A_R, −δI] [x; ν] = [r₁; r₂] by eliminating ν:
// (P + δI + A_RᵀA_R/δ) x = r₁ + A_Rᵀr₂/δ, ν = (A_R x − r₂)/δ. The reduced
// matrix is the ADMM matrix with σ = δ, ρ = 1/δ on the active rows and 0
// elsewhere, so it is formed and factored by a denseKKT. Its condition
// number grows like 1/δ; the iterative refinement of polishing absorbs the
// resulting error.
type densePolish struct {
	kk    *denseKKT
	rows  []int
	delta float64
	rho   []float64
}

// newDensePolish returns a polishing workspace sharing the ADMM system's
// data (reusing old's storage when non-nil).
func newDensePolish(lin *denseKKT, delta float64, old *densePolish) *densePolish {
	if old != nil {
		return old
	}
	return &densePolish{kk: newDenseKKTGram(lin.P, lin.Ap, delta, lin.g), delta: delta, rho: make([]float64, lin.At.N)}
}

// factor factors the reduced matrix for the active rows; it reports false if
// it is not numerically positive definite.
func (dp *densePolish) factor(rows []int) bool {
	clear(dp.rho)
	for _, i := range rows {
		dp.rho[i] = 1 / dp.delta
	}
	dp.rows = append(dp.rows[:0], rows...)
	return dp.kk.setRho(dp.rho)
}

// solve overwrites v = [r₁; r₂] (length n+len(rows)) with the solution.
func (dp *densePolish) solve(v []float64) {
	kk := dp.kk
	n := kk.n
	At := kk.At
	x := v[:n]
	inv := 1 / dp.delta
	for t, i := range dp.rows {
		c := v[n+t] * inv
		for p := At.P[i]; p < At.P[i+1]; p++ {
			x[At.I[p]] += At.X[p] * c
		}
	}
	cholSolve(kk.k, n, x)
	for t, i := range dp.rows {
		var a float64
		for p := At.P[i]; p < At.P[i+1]; p++ {
			a += At.X[p] * x[At.I[p]]
		}
		v[n+t] = (a - v[n+t]) * inv
	}
}
