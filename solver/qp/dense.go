package qp

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// cholesky overwrites the lower triangle of the row-major n×n matrix a with
// its Cholesky factor L (a = LLᵀ). The strict upper triangle is ignored. It
// reports false if a is not numerically positive definite.
func cholesky(a []float64, n int) bool {
	for j := 0; j < n; j++ {
		rj := a[j*n : j*n+j]
		d := a[j*n+j] - floats.Dot(rj, rj)
		if !(d > 0) || math.IsInf(d, 1) {
			return false
		}
		d = math.Sqrt(d)
		a[j*n+j] = d
		inv := 1 / d
		for i := j + 1; i < n; i++ {
			ri := a[i*n : i*n+j]
			a[i*n+j] = (a[i*n+j] - floats.Dot(ri, rj)) * inv
		}
	}
	return true
}

// forwardFrom solves L y = x in place, given that x[:s] = 0.
func forwardFrom(l []float64, n int, x []float64, s int) {
	for i := s; i < n; i++ {
		x[i] = (x[i] - floats.Dot(l[i*n+s:i*n+i], x[s:i])) / l[i*n+i]
	}
}

// backward solves Lᵀ x = y in place.
func backward(l []float64, n int, x []float64) {
	for i := n - 1; i >= 0; i-- {
		x[i] /= l[i*n+i]
		if xi := x[i]; xi != 0 && i > 0 {
			floats.AddScaled(x[:i], -xi, l[i*n:i*n+i])
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
	k     []float64
	rhs   []float64
	w     []float64
}

func newDenseKKT(P, A *CSC, sigma float64) *denseKKT {
	Ap := newPair(A)
	return &denseKKT{
		n: P.N, sigma: sigma, P: P, A: A, At: Ap.at, Ap: Ap,
		k:   make([]float64, P.N*P.N),
		rhs: make([]float64, P.N),
		w:   make([]float64, A.M),
	}
}

// fillP writes P + shift·I into the lower triangle of the row-major k.
func fillP(k []float64, P *CSC, shift float64) {
	n := P.N
	for i := range k {
		k[i] = 0
	}
	for j := 0; j < n; j++ {
		for p := P.P[j]; p < P.P[j+1]; p++ {
			// P upper: entry (i, j) with i ≤ j goes to lower (j, i).
			k[j*n+P.I[p]] += P.X[p]
		}
		k[j*n+j] += shift
	}
}

func (d *denseKKT) setRho(rho []float64) bool {
	n := d.n
	fillP(d.k, d.P, d.sigma)
	At := d.At
	for i := 0; i < At.N; i++ {
		lo, hi := At.P[i], At.P[i+1]
		r := rho[i]
		if lo == hi || r == 0 {
			continue
		}
		idx, val := At.I[lo:hi], At.X[lo:hi]
		// Row indices within a column are sorted; a contiguous run (a dense
		// row) takes the vectorised path.
		contiguous := idx[len(idx)-1]-idx[0] == len(idx)-1
		for a, ja := range idx {
			va := r * val[a]
			row := d.k[ja*n : ja*n+ja+1]
			if contiguous {
				floats.AddScaled(row[idx[0]:], va, val[:a+1])
				continue
			}
			for b, jb := range idx[:a+1] {
				row[jb] += va * val[b]
			}
		}
	}
	return cholesky(d.k, n)
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
	forwardFrom(d.k, d.n, xt, 0)
	backward(d.k, d.n, xt)
	for i := range zt {
		zt[i] = 0
	}
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

// newDensePolish returns a polishing workspace for P and A (reusing old's
// storage when non-nil).
func newDensePolish(P, A *CSC, delta float64, old *densePolish) *densePolish {
	if old != nil {
		return old
	}
	return &densePolish{kk: newDenseKKT(P, A, delta), delta: delta, rho: make([]float64, A.M)}
}

// factor factors the reduced matrix for the active rows; it reports false if
// it is not numerically positive definite.
func (dp *densePolish) factor(rows []int) bool {
	for i := range dp.rho {
		dp.rho[i] = 0
	}
	for _, i := range rows {
		dp.rho[i] = 1 / dp.delta
	}
	dp.rows = rows
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
	forwardFrom(kk.k, n, x, 0)
	backward(kk.k, n, x)
	for t, i := range dp.rows {
		var a float64
		for p := At.P[i]; p < At.P[i+1]; p++ {
			a += At.X[p] * x[At.I[p]]
		}
		v[n+t] = (a - v[n+t]) * inv
	}
}
