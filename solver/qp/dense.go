package qp

import (
	"math"

	"github.com/fedcon/fedcon/internal/kernels"
	"gonum.org/v1/gonum/floats"
)

// The dense path stores symmetric matrices as the upper triangle of a
// row-major n×n slice and factors them with internal/kernels' left-looking
// Cholesky (K = UᵀU): in row-major storage the upper triangle is the
// column-major lower one, so each column of the factor is contiguous.

// potrf overwrites the upper triangle of the row-major n×n matrix k with
// its Cholesky factor U (k = UᵀU) and the strict lower triangle with Uᵀ
// (for cholSolve; the input's strict lower triangle is ignored).
// It reports false if k is not numerically positive definite (a pivot
// <= 0, NaN or +Inf).
func potrf(k []float64, n int) bool { return kernels.Cholesky(k, n) }

// cholSolve overwrites x with K⁻¹x given the factor U of K = UᵀU: the two
// triangular solves run on contiguous rows of U (axpys for Uᵀ, dot
// products for U).
func cholSolve(u []float64, n int, x []float64) { kernels.CholSolve(u, n, x) }

// fillP writes P + shift·I into the upper triangle of the row-major k; a
// CSC P also zeros its strict lower triangle (potrf ignores it).
func fillP(k []float64, Pm symMatrix, shift float64) {
	P, ok := Pm.(*CSC)
	if !ok {
		Pm.(*symDense).upperTo(k, shift)
		return
	}
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
// AᵀρA by the rank-k update Syrk (cost n²/2 per row, vectorised: kernels.SyrkT), a
// sparser one entry by entry (cost nnz²/2, scattered).
const denseRowMin = 2

// gram splits the rows of A for forming AᵀρA: runs of consecutive full rows
// are read in place from Aᵀ (a row-major block there) by Syrk, one run of
// equal ρ at a time; other dense rows are copied, scaled by √ρ, for Syrk;
// the sparse rest is left to scatter loops.
type gram struct {
	n      int
	at     *CSC      // Aᵀ: column i holds row i of A
	runs   []int     // pairs [i0, i1) of consecutive full rows of A
	dense  []int     // the other rows taken by Syrk
	sparse []int     // the other rows
	rows   []float64 // row t of A[dense] at rows[t*n:], len(dense)×n
	work   []float64 // √ρ-scaled copy of the dense rows with ρ > 0
}

// minGramRun: full rows of A in a run this long or longer are read in place.
const minGramRun = 4

func newGram(at *CSC) *gram {
	n := at.M
	g := &gram{n: n, at: at}
	full := func(i int) bool { return at.P[i+1]-at.P[i] == n } // canonical: every column once
	for i := 0; i < at.N; {
		i1 := i
		for i1 < at.N && n > 0 && full(i1) {
			i1++
		}
		if i1-i >= minGramRun {
			g.runs = append(g.runs, i, i1)
			i = i1
			continue
		}
		if nz := at.P[i+1] - at.P[i]; nz > 0 && nz*denseRowMin >= n {
			g.dense = append(g.dense, i)
		} else {
			g.sparse = append(g.sparse, i)
		}
		i++
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
	At := g.at
	for r := 0; r < len(g.runs); r += 2 {
		for i := g.runs[r]; i < g.runs[r+1]; {
			i1 := i + 1
			for i1 < g.runs[r+1] && rho[i1] == rho[i] {
				i1++
			}
			if rho[i] != 0 {
				kernels.SyrkT(rho[i], At.X[At.P[i]:At.P[i1]], i1-i, n, k, n)
			}
			i = i1
		}
	}
	nd := 0
	for t, i := range g.dense {
		if rho[i] == 0 {
			continue
		}
		floats.ScaleTo(g.work[nd*n:(nd+1)*n], math.Sqrt(rho[i]), g.rows[t*n:(t+1)*n])
		nd++
	}
	if nd > 0 {
		kernels.SyrkT(1, g.work[:nd*n], nd, n, k, n)
	}
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
	P     symMatrix
	At    *CSC  // Aᵀ: column i holds row i of A
	Ap    *pair // products with A
	g     *gram
	k     []float64 // factor U, upper triangle row-major
	inv   []float64 // inverses of U's diagonal blocks (kernels.BlockInverses)
	w     []float64
}

func newDenseKKT(P symMatrix, Ap *pair, sigma float64) *denseKKT {
	n := Ap.at.M
	return &denseKKT{
		n: n, sigma: sigma, P: P, At: Ap.at, Ap: Ap, g: newGram(Ap.at),
		k:   make([]float64, n*n),
		inv: make([]float64, kernels.BlockInvLen(n)),
		w:   make([]float64, Ap.at.N),
	}
}

// convex reports whether P + σI is positive definite (its workspace is
// overwritten; setRho refills it).
func (d *denseKKT) convex() bool {
	fillP(d.k, d.P, d.sigma)
	return potrf(d.k, d.n)
}

// setRho factors the ADMM matrix and inverts the factor's diagonal blocks:
// every step solves with it, and the solves' small triangles then become
// vectorised products (kernels.CholSolveInv).
func (d *denseKKT) setRho(rho []float64) bool {
	fillP(d.k, d.P, d.sigma)
	d.g.addTo(d.k, rho)
	if !potrf(d.k, d.n) {
		return false
	}
	kernels.BlockInverses(d.k, d.n, d.inv)
	return true
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
	kernels.CholSolveInv(d.k, d.n, d.inv, xt)
	clear(zt)
	d.Ap.mul(zt, xt)
}

func (d *denseKKT) factorNnz() int { return d.n * (d.n + 1) / 2 }

// densePolish solves the regularised polishing system
// [P+δI, A_Rᵀ; A_R, −δI] [x; ν] = [r₁; r₂] in reduced form, with one change:
// an active row with a single entry aⱼ (a bound on xⱼ, as box constraints
// are) pins its variable exactly, aⱼxⱼ = r, instead of through the
// regularised equation aⱼxⱼ − δν = r. The pinned variables B then drop out,
// and only the free ones F are factored:
//
//	(P_FF + δI + A_OFᵀA_OF/δ) x_F = r_F − P_FB x_B + A_OFᵀ r′_O/δ,
//	r′_O = r_O − A_OB x_B,  ν_O = (A_OF x_F − r′_O)/δ,
//
// O being the other active rows; the pinned rows' multipliers follow from
// their variables' equations. The approximation is at least as close to
// the exact polishing matrix as OSQP's (it is exact on the pinned rows), so
// the iterative refinement converges as before, and when most variables sit
// at their bounds the factorisation is far smaller than n×n. Its condition
// number still grows like 1/δ; refinement absorbs the resulting error.
type densePolish struct {
	n     int
	P     symMatrix
	At    *CSC
	delta float64
	pdiag []float64 // Pⱼⱼ

	rows   []int     // active rows, in the caller's order
	pinT   []int     // per variable: index in rows of its pinning row, or −1
	pinA   []float64 // per variable: the pinning coefficient
	other  []int     // indices in rows of the other active rows
	free   []int     // free variables, increasing
	loc    []int     // per variable: index in free, or −1
	k      []float64 // factor of the free block, nF×nF row-major
	work   []float64 // gathered dense rows for Syrk
	xf, px []float64 // length n
	rf     []float64
}

// pinMin: a single-entry row pins its variable only if its term aⱼ²/δ
// outweighs the variable's own diagonal by this factor, i.e. when the
// regularised system pins it anyway.
const pinMin = 1e3

// newDensePolish returns a polishing workspace for the dense ADMM system
// (reusing old's storage when non-nil).
func newDensePolish(lin *denseKKT, delta float64, old *densePolish) *densePolish {
	if old != nil {
		return old
	}
	n := lin.n
	dp := &densePolish{n: n, P: lin.P, At: lin.At, delta: delta,
		pdiag: make([]float64, n), pinT: make([]int, n), pinA: make([]float64, n),
		loc: make([]int, n),
		xf:  make([]float64, n), px: make([]float64, n), rf: make([]float64, n)}
	switch P := lin.P.(type) {
	case *CSC:
		for j := 0; j < n; j++ {
			dp.pdiag[j] = P.X[P.P[j+1]-1] // diagonal last in its upper column
		}
	case *symDense:
		for j := 0; j < n; j++ {
			dp.pdiag[j] = P.a[j*n+j]
		}
	}
	return dp
}

// factor factors the reduced matrix for the active rows; it reports false if
// it is not numerically positive definite.
func (dp *densePolish) factor(rows []int) bool {
	n, At, P, delta := dp.n, dp.At, dp.P, dp.delta
	dp.rows = append(dp.rows[:0], rows...)
	for j := range dp.pinT {
		dp.pinT[j] = -1
	}
	dp.other = dp.other[:0]
	for t, i := range rows {
		lo := At.P[i]
		if At.P[i+1]-lo == 1 {
			j, a := At.I[lo], At.X[lo]
			if dp.pinT[j] < 0 && a*a >= pinMin*delta*(abs(dp.pdiag[j])+delta) {
				dp.pinT[j], dp.pinA[j] = t, a
				continue
			}
		}
		dp.other = append(dp.other, t)
	}
	dp.free = dp.free[:0]
	for j := 0; j < n; j++ {
		dp.loc[j] = -1
		if dp.pinT[j] < 0 {
			dp.loc[j] = len(dp.free)
			dp.free = append(dp.free, j)
		}
	}
	nf := len(dp.free)
	if cap(dp.k) < nf*nf {
		dp.k = make([]float64, nf*nf) // often far below n², so sized on demand
	}
	k := dp.k[:nf*nf]
	clear(k)
	switch P := P.(type) {
	case *CSC:
		for b, j := range dp.free {
			for p := P.P[j]; p < P.P[j+1]; p++ {
				if a := dp.loc[P.I[p]]; a >= 0 {
					k[a*nf+b] += P.X[p] // upper: P.I[p] ≤ j, so a ≤ b
				}
			}
			k[b*nf+b] += delta
		}
	case *symDense:
		// Row j up to the diagonal is column j of the upper triangle.
		for b, j := range dp.free {
			col := P.a[j*n : j*n+j+1]
			for a, i := range dp.free[:b+1] {
				k[a*nf+b] += col[i]
			}
			k[b*nf+b] += delta
		}
	}
	// Other rows: A_OFᵀA_OF/δ, dense ones by Syrk, sparse ones by scatter.
	scale := 1 / math.Sqrt(delta)
	nd := 0
	for _, t := range dp.other {
		i := dp.rows[t]
		lo, hi := At.P[i], At.P[i+1]
		if (hi-lo)*denseRowMin < nf {
			continue
		}
		if cap(dp.work) < (nd+1)*nf {
			dp.work = append(dp.work[:cap(dp.work)], make([]float64, (nd+1)*nf-cap(dp.work))...)
		}
		w := dp.work[nd*nf : (nd+1)*nf]
		clear(w)
		for p := lo; p < hi; p++ {
			if a := dp.loc[At.I[p]]; a >= 0 {
				w[a] += scale * At.X[p]
			}
		}
		nd++
	}
	if nd > 0 && nf > 0 {
		kernels.SyrkT(1, dp.work[:nd*nf], nd, nf, k, nf)
	}
	for _, t := range dp.other {
		i := dp.rows[t]
		lo, hi := At.P[i], At.P[i+1]
		if (hi-lo)*denseRowMin >= nf {
			continue
		}
		idx, val := At.I[lo:hi], At.X[lo:hi]
		for a, ja := range idx {
			la := dp.loc[ja]
			if la < 0 {
				continue
			}
			va := val[a] / delta
			for b := a; b < len(idx); b++ {
				if lb := dp.loc[idx[b]]; lb >= 0 {
					k[la*nf+lb] += va * val[b]
				}
			}
		}
	}
	return potrf(k, nf)
}

// solve overwrites v = [r₁; r₂] (length n+len(rows)) with the solution.
func (dp *densePolish) solve(v []float64) {
	n, At, delta := dp.n, dp.At, dp.delta
	nf := len(dp.free)
	x, px := dp.xf, dp.px
	// x_B from the pinning rows, then P x_B.
	for j := range x {
		x[j] = 0
		if t := dp.pinT[j]; t >= 0 {
			x[j] = v[n+t] / dp.pinA[j]
		}
	}
	clear(px)
	dp.P.symMulAdd(px, x)
	// r′_O = r_O − A_O x_B (x is zero on F); px −= A_Oᵀr′_O/δ, so that
	// the right-hand side is r_F − (px)_F.
	for _, t := range dp.other {
		i := dp.rows[t]
		r := v[n+t] - At.colDot(i, x)
		At.colAxpy(i, -r/delta, px)
	}
	rf := dp.rf[:nf]
	for b, j := range dp.free {
		rf[b] = v[j] - px[j]
	}
	cholSolve(dp.k, nf, rf)
	for b, j := range dp.free {
		x[j] = rf[b]
	}
	// ν_O = (A_O x − r_O)/δ (x is complete now); px = P x + A_Oᵀν_O.
	clear(px)
	dp.P.symMulAdd(px, x)
	for _, t := range dp.other {
		i := dp.rows[t]
		nu := (At.colDot(i, x) - v[n+t]) / delta
		v[n+t] = nu
		At.colAxpy(i, nu, px)
	}
	// Pinned rows: aⱼν = r_j − (P x)_j − δxⱼ − (A_Oᵀν_O)_j.
	for j := 0; j < n; j++ {
		if t := dp.pinT[j]; t >= 0 {
			v[n+t] = (v[j] - px[j] - delta*x[j]) / dp.pinA[j]
		}
	}
	copy(v[:n], x)
}
