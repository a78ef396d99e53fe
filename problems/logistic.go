package problems

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// softplus returns log(1 + e^z) without overflow or cancellation.
func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// sigmoid returns 1/(1 + e^{-z}) without overflow.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Rows is a block of feature rows, row-major (n × d). Rows with at most
// half their entries nonzero (one-hot encodings: 15 of 109 on adult-a) are
// also kept in compressed form, and the passes over the data skip the
// zeros: on adult-a a value+gradient pass is ~5× and a Hessian ~20×
// cheaper (BenchmarkNPClientPasses).
type Rows struct {
	N, D int
	X    []float64
	// ptr, col, val: the nonzeros of row i are val[ptr[i]:ptr[i+1]] in
	// columns col[ptr[i]:ptr[i+1]] (increasing); nil for dense rows.
	ptr []int
	col []int
	val []float64
}

// NewRows copies the listed rows of x (all rows when idx is nil).
func NewRows(x *mat.Dense, idx []int) Rows {
	r, d := x.Dims()
	if idx == nil {
		idx = make([]int, r)
		for i := range idx {
			idx[i] = i
		}
	}
	return gather(d, idx, x.RawRowView)
}

// subset returns the listed rows of r.
func (r Rows) subset(idx []int) Rows { return gather(r.D, idx, r.row) }

// gather copies rows src(i), i in idx, of length d, compressed if sparse.
func gather(d int, idx []int, src func(int) []float64) Rows {
	out := Rows{N: len(idx), D: d, X: make([]float64, len(idx)*d)}
	for k, i := range idx {
		copy(out.X[k*d:(k+1)*d], src(i))
	}
	out.compress()
	return out
}

// compress builds the compressed copy if at most half the entries are
// nonzero.
func (r *Rows) compress() {
	nnz := 0
	for _, v := range r.X {
		if v != 0 {
			nnz++
		}
	}
	if 2*nnz > len(r.X) {
		return
	}
	r.ptr, r.col, r.val = make([]int, r.N+1), make([]int, 0, nnz), make([]float64, 0, nnz)
	for i := range r.N {
		for j, v := range r.row(i) {
			if v != 0 {
				r.col, r.val = append(r.col, j), append(r.val, v)
			}
		}
		r.ptr[i+1] = len(r.col)
	}
}

// row returns row i.
func (r Rows) row(i int) []float64 { return r.X[i*r.D : (i+1)*r.D] }

// dot returns ⟨x_i, w⟩.
func (r Rows) dot(i int, w []float64) float64 {
	if r.ptr == nil {
		return blas64.Dot(blas64.Vector{N: r.D, Inc: 1, Data: r.row(i)}, blas64.Vector{N: r.D, Inc: 1, Data: w})
	}
	var z float64
	a, b := r.ptr[i], r.ptr[i+1]
	for k, j := range r.col[a:b] {
		z += r.val[a+k] * w[j]
	}
	return z
}

// axpy adds alpha·x_i to g.
func (r Rows) axpy(i int, alpha float64, g []float64) {
	if r.ptr == nil {
		blas64.Axpy(alpha, blas64.Vector{N: r.D, Inc: 1, Data: r.row(i)}, blas64.Vector{N: r.D, Inc: 1, Data: g})
		return
	}
	a, b := r.ptr[i], r.ptr[i+1]
	for k, j := range r.col[a:b] {
		g[j] += alpha * r.val[a+k]
	}
}

// meanLogistic returns the mean binary logistic loss of eq. (31) over the
// rows, all with label y ∈ {0, 1}: φ(w; x, y) = -y·wᵀx + log(1 + e^{wᵀx}),
// i.e. softplus(z) for y = 0 and softplus(-z) for y = 1. With grad non-nil
// it adds scale·∇(mean loss) to grad in the same pass over the rows.
func (r Rows) meanLogistic(w []float64, y float64, scale float64, grad []float64) float64 {
	if r.N == 0 {
		return 0
	}
	var sum float64
	inv := 1 / float64(r.N)
	for i := 0; i < r.N; i++ {
		z := r.dot(i, w)
		// One exp per row serves both the loss and its derivative:
		// e = e^{-|z|}, softplus(±z) = max(±z, 0) + log1p(e), σ(z) from e.
		e := math.Exp(-math.Abs(z))
		lz := math.Log1p(e)
		var s float64 // σ(z)
		if z >= 0 {
			s = 1 / (1 + e)
		} else {
			s = e / (1 + e)
		}
		if y == 0 {
			sum += max(z, 0) + lz
		} else {
			sum += max(-z, 0) + lz
		}
		if grad != nil {
			// dφ/dz = σ(z) - y.
			r.axpy(i, scale*inv*(s-y), grad)
		}
	}
	return sum * inv
}

// addLogisticHessian adds scale·∇²(mean loss) = scale/N Σ σ(z)(1-σ(z)) x xᵀ
// to dst's upper triangle (the Hessian does not depend on the label): dense
// rows in blocks, so that the update is a rank-k BLAS-3 product; compressed
// rows pair by pair of their nonzeros.
func (r Rows) addLogisticHessian(dst *mat.SymDense, w []float64, scale float64) {
	if r.N == 0 || scale == 0 {
		return
	}
	raw := dst.RawSymmetric()
	inv := 1 / float64(r.N)
	if r.ptr != nil {
		for i := range r.N {
			s := sigmoid(r.dot(i, w))
			c := scale * inv * s * (1 - s)
			a, b := r.ptr[i], r.ptr[i+1]
			cols, vals := r.col[a:b], r.val[a:b]
			for p, j := range cols {
				cv := c * vals[p]
				row := raw.Data[j*raw.Stride:]
				for q := p; q < len(cols); q++ {
					row[cols[q]] += cv * vals[q]
				}
			}
		}
		return
	}
	const block = 128
	buf := make([]float64, block*r.D)
	for start := 0; start < r.N; start += block {
		k := min(block, r.N-start)
		for i := 0; i < k; i++ {
			s := sigmoid(r.dot(start+i, w))
			c := math.Sqrt(s * (1 - s))
			dst := buf[i*r.D : (i+1)*r.D]
			for j, v := range r.row(start + i) {
				dst[j] = c * v
			}
		}
		a := blas64.General{Rows: k, Cols: r.D, Stride: r.D, Data: buf[:k*r.D]}
		blas64.Syrk(blas.Trans, scale*inv, a, 1, raw)
	}
}

// LogisticFit returns the minimiser of the mean logistic loss over rows with
// labels y ∈ {0, 1} (plain, unconstrained logistic regression), by Newton's
// method to ||∇||_∞ <= tol or maxIter iterations. A tiny ridge (1e-8) keeps
// it defined on separable or rank-deficient data.
func LogisticFit(r Rows, y []float64, tol float64, maxIter int) []float64 {
	const ridge = 1e-8
	d := r.D
	w := make([]float64, d)
	var i0, i1 []int
	for i, v := range y {
		if v == 1 {
			i1 = append(i1, i)
		} else {
			i0 = append(i0, i)
		}
	}
	c0, c1 := r.subset(i0), r.subset(i1)
	n := float64(r.N)
	w0, w1 := float64(c0.N)/n, float64(c1.N)/n // mean over all rows = weighted class means
	obj := func(w, g []float64) float64 {
		if g != nil {
			clear(g)
			for j := range g {
				g[j] = ridge * w[j]
			}
		}
		var reg float64
		for _, v := range w {
			reg += ridge / 2 * v * v
		}
		return w0*c0.meanLogistic(w, 0, w0, g) + w1*c1.meanLogistic(w, 1, w1, g) + reg
	}
	g := make([]float64, d)
	f := obj(w, g)
	for it := 0; it < maxIter; it++ {
		if mat.Norm(mat.NewVecDense(d, g), math.Inf(1)) <= tol {
			break
		}
		h := mat.NewSymDense(d, nil)
		for j := 0; j < d; j++ {
			h.SetSym(j, j, ridge)
		}
		c0.addLogisticHessian(h, w, w0)
		c1.addLogisticHessian(h, w, w1)
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			break
		}
		var p mat.VecDense
		if ch.SolveVecTo(&p, mat.NewVecDense(d, g)) != nil {
			break
		}
		trial, gt := make([]float64, d), make([]float64, d)
		step, ok := 1.0, false
		for ls := 0; ls < 40; ls++ {
			for j := range trial {
				trial[j] = w[j] - step*p.AtVec(j)
			}
			if ft := obj(trial, gt); ft <= f {
				w, g, f, ok = trial, gt, ft, true
				break
			}
			step /= 2
		}
		if !ok {
			break
		}
	}
	return w
}
