package qp

import "math"

// ldl is a sparse LDLᵀ factorisation of a symmetric quasi-definite matrix
// given by its upper triangle in CSC form, in the order in which the rows
// and columns are to be eliminated (no pivoting). It follows the QDLDL
// algorithm (Goulart and Stellato; up-looking factorisation driven by the
// elimination tree): symbolic analysis computes the elimination tree and
// column counts once, and factor recomputes the values for a matrix with
// the same pattern. The symbolic analysis also records the pattern of each
// row of L in the order the up-looking factorisation visits it (the
// elimination-tree walks of QDLDL's numeric phase) and the row indices of
// L, so that the many numeric refactorisations (ρ updates, polishing)
// only do arithmetic.
type ldl struct {
	n     int
	etree []int
	lnz   []int   // entries below the diagonal in each column of L
	lp    []int   // column pointers of L, length n+1
	li    []int32 // row indices of L (int32: less memory traffic in solve)
	rp    []int   // row k of L visits columns rpat[rp[k]:rp[k+1]], in order
	rpat  []int32
	lx    []float64
	// L by rows, columns increasing: row k holds columns rc[rp[k]:rp[k+1]]
	// with values rx; rpos maps a position in lx to one in rx.
	rc   []int32
	rpos []int32
	rx   []float64
	d    []float64
	dinv []float64
	npos int // positive pivots of the last factorisation

	// Workspace of factor.
	next []int
	yval []float64
}

// newLDL performs the symbolic analysis of the upper-triangular CSC K.
func newLDL(K *CSC) *ldl {
	n := K.N
	if n > math.MaxInt32 {
		panic("qp: internal error: KKT matrix too large for int32 indices")
	}
	f := &ldl{n: n, etree: make([]int, n), lnz: make([]int, n), lp: make([]int, n+1)}
	f.allocNumeric()
	work := make([]int, n)
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
	f.rx = make([]float64, nz)

	// Row patterns: for row k, walk up the elimination tree from each entry
	// to the first marked node, recording the path; the paths appended in
	// reverse and read backwards give a topological order.
	f.rp = make([]int, n+1)
	f.rpat = make([]int32, nz)
	mark := make([]bool, n)
	yidx := make([]int, n)
	ebuf := make([]int, n)
	next := f.next
	copy(next, f.lp[:n])
	for k := 0; k < n; k++ {
		nnzY := 0
		for p := K.P[k]; p < K.P[k+1]; p++ {
			i := K.I[p]
			if i == k || mark[i] {
				continue
			}
			ne := 0
			for i != -1 && i < k && !mark[i] {
				mark[i] = true
				ebuf[ne] = i
				ne++
				i = f.etree[i]
			}
			for ne > 0 {
				ne--
				yidx[nnzY] = ebuf[ne]
				nnzY++
			}
		}
		q := f.rp[k]
		for t := nnzY - 1; t >= 0; t-- {
			c := yidx[t]
			f.rpat[q] = int32(c)
			q++
			f.li[next[c]] = int32(k)
			next[c]++
			mark[c] = false
		}
		f.rp[k+1] = q
	}
	// Row-wise copy of the pattern, by scanning the columns in order.
	f.rc = make([]int32, nz)
	f.rpos = make([]int32, nz)
	copy(next, f.rp[:n])
	for c := 0; c < n; c++ {
		for q := f.lp[c]; q < f.lp[c+1]; q++ {
			r := f.li[q]
			f.rc[next[r]] = int32(c)
			f.rpos[q] = int32(next[r])
			next[r]++
		}
	}
	return f
}

// cloneSymbolic returns a factorisation object with the same symbolic
// analysis and its own numeric storage and workspace.
func (f *ldl) cloneSymbolic() *ldl {
	c := &ldl{n: f.n, etree: f.etree, lnz: f.lnz, lp: f.lp, li: f.li, rp: f.rp, rpat: f.rpat,
		rc: f.rc, rpos: f.rpos, lx: make([]float64, len(f.lx)), rx: make([]float64, len(f.lx))}
	c.allocNumeric()
	return c
}

// allocNumeric allocates the pivots and the workspace of factor (length n).
func (f *ldl) allocNumeric() {
	n := f.n
	f.d, f.dinv = make([]float64, n), make([]float64, n)
	f.next, f.yval = make([]int, n), make([]float64, n)
}

// nnz returns the number of entries of L below the diagonal.
func (f *ldl) nnz() int { return f.lp[f.n] }

// factor computes the numeric factorisation of K, which must have the
// pattern given to newLDL. It reports false if a pivot is zero or not
// finite; f.npos counts the positive pivots.
func (f *ldl) factor(K *CSC) bool {
	n := f.n
	next, yval, li, lx, dinv := f.next, f.yval, f.li, f.lx, f.dinv
	copy(next, f.lp[:n])
	f.npos = 0
	for k := 0; k < n; k++ {
		dk := 0.0
		for p := K.P[k]; p < K.P[k+1]; p++ {
			i := K.I[p]
			if i == k {
				dk += K.X[p]
				continue
			}
			yval[i] += K.X[p]
		}
		for _, c := range f.rpat[f.rp[k]:f.rp[k+1]] {
			end := next[c]
			yc := yval[c]
			for q := f.lp[c]; q < end; q++ {
				yval[li[q]] -= lx[q] * yc
			}
			lkc := yc * dinv[c]
			lx[end] = lkc
			dk -= yc * lkc
			next[c] = end + 1
			yval[c] = 0
		}
		if dk == 0 || math.IsNaN(dk) || math.IsInf(dk, 0) {
			clear(yval) // leave the workspace clean for a later call
			return false
		}
		if dk > 0 {
			f.npos++
		}
		f.d[k] = dk
		dinv[k] = 1 / dk
	}
	for q, t := range f.rpos {
		f.rx[t] = lx[q]
	}
	return true
}

// solve overwrites x with K⁻¹x using the last factorisation. Both
// triangular solves gather (a dot product per row of L, then per column):
// on the chain-like elimination trees of block problems a scatter forward
// solve waits on the store of each entry before the next column can start.
// The row-wise forward solve subtracts in increasing column order, as the
// column-wise one did, so results are unchanged.
func (f *ldl) solve(x []float64) {
	n := f.n
	rp, rc, rx := f.rp[:n+1], f.rc, f.rx[:len(f.rc)]
	x = x[:n]
	for k := range x {
		s := x[k]
		for t := rp[k]; t < rp[k+1]; t++ {
			s -= rx[t] * x[rc[t]]
		}
		x[k] = s
	}
	lp, li, lx, dinv := f.lp[:n+1], f.li, f.lx[:len(f.li)], f.dinv[:n]
	for i := n - 1; i >= 0; i-- {
		s := x[i] * dinv[i]
		for p := lp[i]; p < lp[i+1]; p++ {
			s -= lx[p] * x[li[p]]
		}
		x[i] = s
	}
}
