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
	At    *CSC // Aᵀ: column i holds row i of A
	k     []float64
	rhs   []float64
	w     []float64
}

func newDenseKKT(P, A *CSC, sigma float64) *denseKKT {
	return &denseKKT{
		n: P.N, sigma: sigma, P: P, A: A, At: A.transpose(),
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
		for a := lo; a < hi; a++ {
			ja := At.I[a]
			va := r * At.X[a]
			row := d.k[ja*n:]
			// Row indices within a column are sorted, so At.I[b] ≤ ja.
			for b := lo; b <= a; b++ {
				row[At.I[b]] += va * At.X[b]
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
	d.A.mulTAdd(xt, w)
	forwardFrom(d.k, d.n, xt, 0)
	backward(d.k, d.n, xt)
	for i := range zt {
		zt[i] = 0
	}
	d.A.mulAdd(zt, xt)
}

func (d *denseKKT) factorNnz() int { return d.n * (d.n + 1) / 2 }

// densePolish solves the regularised polishing system
// [P+δI, Bᵀ; B, −δI] through the Schur complement S = B(P+δI)⁻¹Bᵀ + δI,
// where B holds the active rows of A.
type densePolish struct {
	n, k int
	l    []float64 // Cholesky factor of P + δI (row-major, lower)
	w    []float64 // k×n: row r is L⁻¹ B_rᵀ
	s    []float64 // Cholesky factor of S (k×k)
	t    []float64
	yk   []float64
}

// newDensePolish factors the system; pl is the Cholesky factor of P + δI
// and At the transpose of A (its column i is row i of A). It reports false if
// the Schur complement is not numerically positive definite.
func newDensePolish(pl []float64, n int, At *CSC, rows []int, delta float64) (*densePolish, bool) {
	k := len(rows)
	dp := &densePolish{n: n, k: k, l: pl, w: make([]float64, k*n), s: make([]float64, k*k), t: make([]float64, n), yk: make([]float64, k)}
	if !dp.factorSchur(At, rows, delta) {
		return nil, false
	}
	return dp, true
}

// factorSchur computes W and the Cholesky factor of S for regularisation
// delta; it reports false if S is not positive definite.
func (dp *densePolish) factorSchur(At *CSC, rows []int, delta float64) bool {
	n, k := dp.n, dp.k
	for r, i := range rows {
		wr := dp.w[r*n : (r+1)*n]
		for j := range wr {
			wr[j] = 0
		}
		lo, hi := At.P[i], At.P[i+1]
		if lo == hi {
			continue
		}
		for p := lo; p < hi; p++ {
			wr[At.I[p]] = At.X[p]
		}
		forwardFrom(dp.l, n, wr, At.I[lo])
	}
	for r := 0; r < k; r++ {
		wr := dp.w[r*n : (r+1)*n]
		for c := 0; c <= r; c++ {
			dp.s[r*k+c] = floats.Dot(wr, dp.w[c*n:(c+1)*n])
		}
		dp.s[r*k+r] += delta
	}
	return cholesky(dp.s, k)
}

// solve overwrites v = [r1; r2] (length n+k) with the solution of the
// regularised system.
func (dp *densePolish) solve(v []float64) {
	n, k := dp.n, dp.k
	t := dp.t
	copy(t, v[:n])
	forwardFrom(dp.l, n, t, 0)
	y := dp.yk
	for r := 0; r < k; r++ {
		y[r] = floats.Dot(dp.w[r*n:(r+1)*n], t) - v[n+r]
	}
	forwardFrom(dp.s, k, y, 0)
	backward(dp.s, k, y)
	for r := 0; r < k; r++ {
		if y[r] != 0 {
			floats.AddScaled(t, -y[r], dp.w[r*n:(r+1)*n])
		}
	}
	backward(dp.l, n, t)
	copy(v[:n], t)
	copy(v[n:], y)
}
