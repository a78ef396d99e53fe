package qp

import "math"

// ldl is a sparse LDLᵀ factorisation of a symmetric quasi-definite matrix
// given by its upper triangle in CSC form, in the order in which the rows
// and columns are to be eliminated (no pivoting). It follows the QDLDL
// algorithm (Goulart and Stellato; up-looking factorisation driven by the
// elimination tree): symbolic analysis computes the elimination tree and
// column counts once, and factor recomputes the values for a matrix with
// the same pattern.
type ldl struct {
	n     int
	etree []int
	lnz   []int   // entries below the diagonal in each column of L
	lp    []int   // column pointers of L, length n+1
	li    []int32 // row indices of L (int32: less memory traffic in solve)
	lx    []float64
	d     []float64
	dinv  []float64
	npos  int // positive pivots of the last factorisation

	// Workspace of factor.
	next  []int
	ymark []bool
	yval  []float64
	yidx  []int
	ebuf  []int
	flag  []int
}

// newLDL performs the symbolic analysis of the upper-triangular CSC K.
func newLDL(K *CSC) *ldl {
	n := K.N
	if n > math.MaxInt32 {
		panic("qp: internal error: KKT matrix too large for int32 indices")
	}
	f := &ldl{n: n, etree: make([]int, n), lnz: make([]int, n), lp: make([]int, n+1)}
	f.allocNumeric()
	work := f.flag
	for i := range f.etree {
		f.etree[i] = -1
		work[i] = -1
	}
	for j := 0; j < n; j++ {
		work[j] = j
		for p := K.P[j]; p < K.P[j+1]; p++ {
			i := K.I[p]
			if i > j {
				panic("qp: internal error: KKT matrix not upper triangular")
			}
			for work[i] != j {
				if f.etree[i] == -1 {
					f.etree[i] = j
				}
				f.lnz[i]++
				work[i] = j
				i = f.etree[i]
			}
		}
	}
	for i := 0; i < n; i++ {
		f.lp[i+1] = f.lp[i] + f.lnz[i]
	}
	nz := f.lp[n]
	f.li = make([]int32, nz)
	f.lx = make([]float64, nz)
	return f
}

// cloneSymbolic returns a factorisation object with the same symbolic
// analysis and its own numeric storage and workspace.
func (f *ldl) cloneSymbolic() *ldl {
	c := &ldl{n: f.n, etree: f.etree, lnz: f.lnz, lp: f.lp,
		li: make([]int32, len(f.li)), lx: make([]float64, len(f.lx))}
	c.allocNumeric()
	return c
}

// allocNumeric allocates the pivots and the workspace of factor (length n).
func (f *ldl) allocNumeric() {
	n := f.n
	f.d, f.dinv = make([]float64, n), make([]float64, n)
	f.next, f.ymark = make([]int, n), make([]bool, n)
	f.yval, f.yidx = make([]float64, n), make([]int, n)
	f.ebuf, f.flag = make([]int, n), make([]int, n)
}

// nnz returns the number of entries of L below the diagonal.
func (f *ldl) nnz() int { return f.lp[f.n] }

// factor computes the numeric factorisation of K, which must have the
// pattern given to newLDL. It reports false if a pivot is zero or not
// finite; f.npos counts the positive pivots.
func (f *ldl) factor(K *CSC) bool {
	n := f.n
	copy(f.next, f.lp[:n])
	f.npos = 0
	for k := 0; k < n; k++ {
		nnzY := 0
		dk := 0.0
		for p := K.P[k]; p < K.P[k+1]; p++ {
			i := K.I[p]
			if i == k {
				dk += K.X[p]
				continue
			}
			f.yval[i] += K.X[p]
			if f.ymark[i] {
				continue
			}
			// Walk up the elimination tree to the first marked node,
			// recording the path, then append it reversed.
			ne := 0
			for i != -1 && i < k && !f.ymark[i] {
				f.ymark[i] = true
				f.ebuf[ne] = i
				ne++
				i = f.etree[i]
			}
			for ne > 0 {
				ne--
				f.yidx[nnzY] = f.ebuf[ne]
				nnzY++
			}
		}
		for t := nnzY - 1; t >= 0; t-- {
			c := f.yidx[t]
			end := f.next[c]
			yc := f.yval[c]
			lic := f.li[f.lp[c]:end]
			lxc := f.lx[f.lp[c]:end]
			for q, r := range lic {
				f.yval[r] -= lxc[q] * yc
			}
			lkc := yc * f.dinv[c]
			f.li[end] = int32(k)
			f.lx[end] = lkc
			dk -= yc * lkc
			f.next[c] = end + 1
			f.yval[c] = 0
			f.ymark[c] = false
		}
		if dk == 0 || math.IsNaN(dk) || math.IsInf(dk, 0) {
			// Leave the workspace clean for a later call.
			for i := range f.yval {
				f.yval[i] = 0
				f.ymark[i] = false
			}
			return false
		}
		if dk > 0 {
			f.npos++
		}
		f.d[k] = dk
		f.dinv[k] = 1 / dk
	}
	return true
}

// solve overwrites x with K⁻¹x using the last factorisation. Most columns
// of L hold only a few entries (on the KKT systems of block problems, one
// to four), so the loops avoid per-column slicing; the diagonal scaling is
// fused into the forward pass (x[i] is final once column i is reached).
func (f *ldl) solve(x []float64) {
	n := f.n
	lp, li, lx, dinv := f.lp[:n+1], f.li, f.lx[:len(f.li)], f.dinv[:n]
	x = x[:n]
	for i := range x {
		xi := x[i]
		if xi != 0 {
			for p := lp[i]; p < lp[i+1]; p++ {
				x[li[p]] -= lx[p] * xi
			}
			x[i] = xi * dinv[i]
		}
	}
	for i := n - 1; i >= 0; i-- {
		s := x[i]
		for p := lp[i]; p < lp[i+1]; p++ {
			s -= lx[p] * x[li[p]]
		}
		x[i] = s
	}
}
