package problems

import (
	"math"

	"github.com/fedcon/fedcon/internal/kernels"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

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
		return kernels.Dot(r.row(i), w)
	}
	a, b := r.ptr[i], r.ptr[i+1]
	return kernels.DotSparse(r.val[a:b], r.col[a:b], w)
}

// axpy adds alpha·x_i to g.
func (r Rows) axpy(i int, alpha float64, g []float64) {
	if r.ptr == nil {
		kernels.Axpy(alpha, r.row(i), g)
		return
	}
	a, b := r.ptr[i], r.ptr[i+1]
	kernels.AxpySparse(alpha, r.val[a:b], r.col[a:b], g)
}

// margins sets z[k] = ⟨x_{start+k}, w⟩.
func (r Rows) margins(start int, w, z []float64) {
	if r.ptr != nil {
		kernels.CSRDot(r.ptr[start:], r.col, r.val, w, z)
		return
	}
	for k := range z {
		z[k] = r.dot(start+k, w)
	}
}

// passBlock rows per block of a pass: their margins, then the vectorised
// loss/weights, then the rows again while still in cache (L1: 256 rows of
// adult-a's compressed rows are 60 KB).
const passBlock = 256

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
	var zb, db [passBlock]float64
	for start := 0; start < r.N; start += passBlock {
		z, d := zb[:min(passBlock, r.N-start)], db[:]
		r.margins(start, w, z)
		// φ = max(z,0) − y·z + log1p(e^{-|z|}) and dφ/dz = σ(z) − y, one
		// exp per row (kernels.LogLoss); block sums in a fixed order.
		sum += kernels.LogLoss(z, y, d)
		switch {
		case grad == nil:
		case r.ptr != nil:
			kernels.CSRAxpy(r.ptr[start:], r.col, r.val, scale*inv, d[:len(z)], grad)
		default:
			for k := range z {
				r.axpy(start+k, scale*inv*d[k], grad)
			}
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
	var zb, cb [passBlock]float64
	if r.ptr != nil {
		for start := 0; start < r.N; start += passBlock {
			z, c := zb[:min(passBlock, r.N-start)], cb[:]
			r.margins(start, w, z)
			kernels.LogisticWeight(z, c)
			for k := range z {
				a, b := r.ptr[start+k], r.ptr[start+k+1]
				r.syr(scale*inv*c[k], r.val[a:b], r.col[a:b], raw)
			}
		}
		return
	}
	const block = 128
	buf := make([]float64, block*r.D)
	for start := 0; start < r.N; start += block {
		k := min(block, r.N-start)
		z, c := zb[:k], cb[:]
		r.margins(start, w, z)
		kernels.LogisticWeight(z, c)
		for i := 0; i < k; i++ {
			s := math.Sqrt(c[i])
			dst := buf[i*r.D : (i+1)*r.D]
			for j, v := range r.row(start + i) {
				dst[j] = s * v
			}
		}
		a := blas64.General{Rows: k, Cols: r.D, Stride: r.D, Data: buf[:k*r.D]}
		blas64.Syrk(blas.Trans, scale*inv, a, 1, raw)
	}
}

// syr adds c·x xᵀ for the compressed row x (vals at increasing cols) to
// the upper triangle of raw.
func (r Rows) syr(c float64, vals []float64, cols []int, raw blas64.Symmetric) {
	if raw.Stride == raw.N {
		kernels.SyrSparse(c, vals, cols, raw.Data, raw.N)
		return
	}
	for p, j := range cols {
		cv := c * vals[p]
		row := raw.Data[j*raw.Stride:]
		for q := p; q < len(cols); q++ {
			row[cols[q]] += cv * vals[q]
		}
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
