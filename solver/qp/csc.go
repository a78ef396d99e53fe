package qp

import (
	"fmt"
	"math"
	"sort"

	"github.com/fedcon/fedcon/internal/kernels"
	"gonum.org/v1/gonum/mat"
)

var _ mat.Matrix = (*CSC)(nil)

// CSC is an M×N sparse matrix in compressed sparse column form: the row
// indices of column j are I[P[j]:P[j+1]] and their values X[P[j]:P[j+1]].
// P has length N+1 with P[0] = 0 and P[N] = len(I) = len(X).
//
// A CSC built by NewCSC has strictly increasing row indices within each
// column and no duplicate entries; Solve also accepts CSC values built by
// hand, provided the pointers are monotone and the row indices in range
// (duplicates are summed). CSC implements mat.Matrix, so any function taking
// a mat.Matrix accepts it; its At method costs a binary search.
type CSC struct {
	M, N int
	P    []int
	I    []int
	X    []float64

	// Cache of contiguity, for the solver's internal copies only.
	contig    []bool
	contigNnz int
	fullRuns  []int // pairs [j0, j1) of at least minFullRun full columns
	oneRuns   []int // pairs [j0, j1) of at least minOneRun one-entry columns
}

// NewCSC returns the m×n CSC matrix with entries vals[k] at (rows[k], cols[k]).
// Duplicate entries are summed and explicit zeros are kept. NewCSC returns an
// *InputError (field "CSC") if the slices differ in length, an index is out of
// range or m or n is negative. The inputs are not modified.
func NewCSC(m, n int, rows, cols []int, vals []float64) (*CSC, error) {
	if m < 0 || n < 0 {
		return nil, &InputError{Field: "CSC", Reason: fmt.Sprintf("negative dimension %d×%d", m, n)}
	}
	if len(rows) != len(cols) || len(rows) != len(vals) {
		return nil, &InputError{Field: "CSC", Reason: fmt.Sprintf("triplet lengths differ: %d rows, %d cols, %d vals", len(rows), len(cols), len(vals))}
	}
	for k := range rows {
		if rows[k] < 0 || rows[k] >= m || cols[k] < 0 || cols[k] >= n {
			return nil, &InputError{Field: "CSC", Reason: fmt.Sprintf("entry %d at (%d, %d) outside %d×%d", k, rows[k], cols[k], m, n)}
		}
	}
	return fromTriplets(m, n, rows, cols, vals), nil
}

// fromTriplets builds a canonical CSC (sorted, duplicates summed) from
// in-range triplets.
func fromTriplets(m, n int, rows, cols []int, vals []float64) *CSC {
	cnt := make([]int, n+1)
	for _, c := range cols {
		cnt[c+1]++
	}
	for j := 0; j < n; j++ {
		cnt[j+1] += cnt[j]
	}
	next := append([]int(nil), cnt[:n]...)
	ri := make([]int, len(rows))
	rx := make([]float64, len(rows))
	for k, c := range cols {
		p := next[c]
		next[c]++
		ri[p] = rows[k]
		rx[p] = vals[k]
	}
	c := &CSC{M: m, N: n, P: make([]int, n+1)}
	c.I = make([]int, 0, len(rows))
	c.X = make([]float64, 0, len(rows))
	for j := 0; j < n; j++ {
		lo, hi := cnt[j], cnt[j+1]
		for p := lo + 1; p < hi; p++ {
			if ri[p] < ri[p-1] {
				sort.Stable(byRow{ri[lo:hi], rx[lo:hi]})
				break
			}
		}
		for p := lo; p < hi; p++ {
			last := len(c.I) - 1
			if last >= c.P[j] && c.I[last] == ri[p] {
				c.X[last] += rx[p]
				continue
			}
			c.I = append(c.I, ri[p])
			c.X = append(c.X, rx[p])
		}
		c.P[j+1] = len(c.I)
	}
	return c
}

type byRow struct {
	i []int
	x []float64
}

func (b byRow) Len() int           { return len(b.i) }
func (b byRow) Less(p, q int) bool { return b.i[p] < b.i[q] }
func (b byRow) Swap(p, q int) {
	b.i[p], b.i[q] = b.i[q], b.i[p]
	b.x[p], b.x[q] = b.x[q], b.x[p]
}

// Dims returns the dimensions of the matrix.
func (c *CSC) Dims() (r, cols int) { return c.M, c.N }

// At returns the element at row i and column j. It panics if i or j is out of
// range, as mat.Matrix requires.
func (c *CSC) At(i, j int) float64 {
	if i < 0 || i >= c.M || j < 0 || j >= c.N {
		panic(mat.ErrIndexOutOfRange)
	}
	lo, hi := c.P[j], c.P[j+1]
	k := lo + sort.SearchInts(c.I[lo:hi], i)
	var v float64
	// Hand-built matrices may hold duplicates; sum them.
	for ; k < hi && c.I[k] == i; k++ {
		v += c.X[k]
	}
	return v
}

// T returns the transpose of the matrix as an implicit mat.Transpose.
func (c *CSC) T() mat.Matrix { return mat.Transpose{Matrix: c} }

// Nnz returns the number of stored entries.
func (c *CSC) Nnz() int { return c.P[c.N] }

// check reports the first structural defect of c, or "" if none.
func (c *CSC) check() string {
	if c.M < 0 || c.N < 0 {
		return fmt.Sprintf("negative dimension %d×%d", c.M, c.N)
	}
	if len(c.P) != c.N+1 {
		return fmt.Sprintf("len(P) = %d, want N+1 = %d", len(c.P), c.N+1)
	}
	if c.P[0] != 0 {
		return fmt.Sprintf("P[0] = %d, want 0", c.P[0])
	}
	for j := 0; j < c.N; j++ {
		if c.P[j+1] < c.P[j] {
			return fmt.Sprintf("column pointers decrease at column %d", j)
		}
	}
	nz := c.P[c.N]
	if len(c.I) != nz || len(c.X) != nz {
		return fmt.Sprintf("P[N] = %d but len(I) = %d, len(X) = %d", nz, len(c.I), len(c.X))
	}
	for k, i := range c.I {
		if i < 0 || i >= c.M {
			return fmt.Sprintf("row index I[%d] = %d outside [0, %d)", k, i, c.M)
		}
	}
	return ""
}

// triplets appends the entries of c to the given slices.
func (c *CSC) triplets(rows, cols []int, vals []float64) ([]int, []int, []float64) {
	for j := 0; j < c.N; j++ {
		for p := c.P[j]; p < c.P[j+1]; p++ {
			rows = append(rows, c.I[p])
			cols = append(cols, j)
			vals = append(vals, c.X[p])
		}
	}
	return rows, cols, vals
}

// minRun is the column length from which a column whose row indices are
// consecutive is processed with the vectorised kernels of internal/kernels.
const minRun = 16

// contiguity returns, per column, whether the column has at least minRun
// entries with consecutive row indices (a dense stretch, as in a dense
// matrix or a dense row of Aᵀ), and the number of entries in such columns.
// It is computed once and cached: the solver's matrices do not change after
// setup.
func (c *CSC) contiguity() ([]bool, int) {
	if c.contig == nil {
		c.contig = make([]bool, c.N)
		c.contigNnz = 0
		for j := 0; j < c.N; j++ {
			lo, hi := c.P[j], c.P[j+1]
			if hi-lo >= minRun && c.I[hi-1]-c.I[lo] == hi-lo-1 {
				c.contig[j] = true
				c.contigNnz += hi - lo
			}
		}
	}
	return c.contig, c.contigNnz
}

// minFullRun: from this many consecutive full columns (every row stored),
// mulAdd takes them as one row-major block (stride M) and one GemvT, which
// keeps y in registers instead of loading and storing it per column.
const minFullRun = 4

// fullColumnRuns returns the runs of minFullRun or more consecutive full
// columns, as pairs [j0, j1); their values are then adjacent in X.
func (c *CSC) fullColumnRuns() []int {
	if c.fullRuns == nil {
		c.fullRuns = []int{}
		full := func(j int) bool {
			lo, hi := c.P[j], c.P[j+1]
			return c.M > 0 && hi-lo == c.M && c.I[lo] == 0 && c.I[hi-1] == c.M-1
		}
		for j := 0; j < c.N; {
			if !full(j) {
				j++
				continue
			}
			j1 := j + 1
			for j1 < c.N && full(j1) {
				j1++
			}
			if j1-j >= minFullRun {
				c.fullRuns = append(c.fullRuns, j, j1)
			}
			j = j1
		}
	}
	return c.fullRuns
}

// minOneRun: from this many consecutive columns with one entry each (the
// rows of box constraints, in Aᵀ), the products take them in one tight
// loop over their entries, which are adjacent in I and X.
const minOneRun = 8

// oneEntryRuns returns the runs of minOneRun or more consecutive columns
// with exactly one entry, as pairs [j0, j1).
func (c *CSC) oneEntryRuns() []int {
	if c.oneRuns == nil {
		c.oneRuns = []int{}
		for j := 0; j < c.N; {
			if c.P[j+1]-c.P[j] != 1 {
				j++
				continue
			}
			j1 := j + 1
			for j1 < c.N && c.P[j1+1]-c.P[j1] == 1 {
				j1++
			}
			if j1-j >= minOneRun {
				c.oneRuns = append(c.oneRuns, j, j1)
			}
			j = j1
		}
	}
	return c.oneRuns
}

// mulAdd computes y += A x for a general (unsymmetric) CSC A.
func (c *CSC) mulAdd(y, x []float64) {
	contig, _ := c.contiguity()
	runs := c.fullColumnRuns()
	ones := c.oneEntryRuns()
	for j := 0; j < c.N; j++ {
		if len(runs) > 0 && j == runs[0] {
			j1 := runs[1]
			kernels.GemvT(1, c.X[c.P[j]:c.P[j1]], c.M, x[j:j1], y[:c.M])
			runs = runs[2:]
			j = j1 - 1
			continue
		}
		if len(ones) > 0 && j == ones[0] {
			// The same operations as the general loop below, in order.
			j1 := ones[1]
			lo := c.P[j]
			idx, val, xs := c.I[lo:lo+j1-j], c.X[lo:lo+j1-j], x[j:j1]
			for t, i := range idx {
				if xt := xs[t]; xt != 0 {
					y[i] += val[t] * xt
				}
			}
			ones = ones[2:]
			j = j1 - 1
			continue
		}
		xj := x[j]
		if xj == 0 {
			continue
		}
		lo, hi := c.P[j], c.P[j+1]
		if contig[j] {
			r := c.I[lo]
			kernels.Axpy(xj, c.X[lo:hi], y[r:r+hi-lo])
			continue
		}
		for p := lo; p < hi; p++ {
			y[c.I[p]] += c.X[p] * xj
		}
	}
}

// mulTAdd computes y += Aᵀ x for a general CSC A.
func (c *CSC) mulTAdd(y, x []float64) {
	contig, _ := c.contiguity()
	ones := c.oneEntryRuns()
	for j := 0; j < c.N; j++ {
		if len(ones) > 0 && j == ones[0] {
			// The same roundings as the general loop: y += (0 + a·x).
			j1 := ones[1]
			lo := c.P[j]
			idx, val, ys := c.I[lo:lo+j1-j], c.X[lo:lo+j1-j], y[j:j1]
			for t, i := range idx {
				var s float64
				s += val[t] * x[i]
				ys[t] += s
			}
			ones = ones[2:]
			j = j1 - 1
			continue
		}
		lo, hi := c.P[j], c.P[j+1]
		if contig[j] {
			r := c.I[lo]
			y[j] += kernels.Dot(c.X[lo:hi], x[r:r+hi-lo])
			continue
		}
		var s float64
		for p := lo; p < hi; p++ {
			s += c.X[p] * x[c.I[p]]
		}
		y[j] += s
	}
}

// symMulAdd computes y += S x where c holds the upper triangle of the
// symmetric matrix S; y must not overlap x.
func (c *CSC) symMulAdd(y, x []float64) {
	contig, _ := c.contiguity()
	for j := 0; j < c.N; j++ {
		xj := x[j]
		lo, hi := c.P[j], c.P[j+1]
		if contig[j] && c.I[hi-1] == j {
			// Rows r..j: the off-diagonal part r..j−1 by vector kernels.
			r := c.I[lo]
			e := hi - 1
			y[j] += kernels.DotAxpy(xj, c.X[lo:e], x[r:j], y[r:j]) + c.X[e]*xj
			continue
		}
		var s float64
		for p := lo; p < hi; p++ {
			i := c.I[p]
			v := c.X[p]
			y[i] += v * xj
			if i != j {
				s += v * x[i]
			}
		}
		y[j] += s
	}
}

// colDot returns the dot product of column j with x.
func (c *CSC) colDot(j int, x []float64) float64 {
	contig, _ := c.contiguity()
	lo, hi := c.P[j], c.P[j+1]
	if contig[j] {
		r := c.I[lo]
		return kernels.Dot(c.X[lo:hi], x[r:r+hi-lo])
	}
	var s float64
	for p := lo; p < hi; p++ {
		s += c.X[p] * x[c.I[p]]
	}
	return s
}

// colAxpy computes y += alpha·(column j).
func (c *CSC) colAxpy(j int, alpha float64, y []float64) {
	contig, _ := c.contiguity()
	lo, hi := c.P[j], c.P[j+1]
	if contig[j] {
		r := c.I[lo]
		kernels.Axpy(alpha, c.X[lo:hi], y[r:r+hi-lo])
		return
	}
	for p := lo; p < hi; p++ {
		y[c.I[p]] += alpha * c.X[p]
	}
}

// pair holds a matrix and its transpose and computes products with
// whichever of the two has more entries in dense stretches (vectorised
// kernels); the results are the same up to summation order.
type pair struct {
	a, at *CSC
	useT  bool
}

func newPair(a *CSC) *pair { return newPairT(a, a.transpose()) }

// newPairT is newPair given at = aᵀ. a may be nil (the dense path): it is
// then built only if products go by it, as they would with both given.
func newPairT(a, at *CSC) *pair {
	p := &pair{a: a, at: at}
	_, nt := p.at.contiguity()
	var na int
	if a != nil {
		_, na = a.contiguity()
	} else {
		na = transposedContigNnz(at)
	}
	p.useT = nt > na
	if !p.useT && p.a == nil {
		p.a = at.transpose()
	}
	return p
}

// transposedContigNnz is the count contiguity would give for cᵀ, from c:
// row j of c is column j of cᵀ, its entries met in increasing column order.
func transposedContigNnz(c *CSC) int {
	count := make([]int, c.M)
	first := make([]int, c.M)
	last := make([]int, c.M)
	for i := 0; i < c.N; i++ {
		for _, j := range c.I[c.P[i]:c.P[i+1]] {
			if count[j] == 0 {
				first[j] = i
			}
			last[j] = i
			count[j]++
		}
	}
	nnz := 0
	for j, k := range count {
		if k >= minRun && last[j]-first[j] == k-1 {
			nnz += k
		}
	}
	return nnz
}

// mul computes y += A x.
func (p *pair) mul(y, x []float64) {
	if p.useT {
		p.at.mulTAdd(y, x)
	} else {
		p.a.mulAdd(y, x)
	}
}

// mulT computes y += Aᵀ x.
func (p *pair) mulT(y, x []float64) {
	if p.useT {
		p.at.mulAdd(y, x)
	} else {
		p.a.mulTAdd(y, x)
	}
}

// clone returns a deep copy of c.
func (c *CSC) clone() *CSC {
	return &CSC{
		M: c.M, N: c.N,
		P: append([]int(nil), c.P...),
		I: append([]int(nil), c.I...),
		X: append([]float64(nil), c.X...),
	}
}

// transpose returns cᵀ in canonical form.
func (c *CSC) transpose() *CSC {
	t := &CSC{M: c.N, N: c.M, P: make([]int, c.M+1)}
	nz := c.P[c.N]
	t.I = make([]int, nz)
	t.X = make([]float64, nz)
	for _, i := range c.I[:nz] {
		t.P[i+1]++
	}
	for i := 0; i < c.M; i++ {
		t.P[i+1] += t.P[i]
	}
	next := append([]int(nil), t.P[:c.M]...)
	for j := 0; j < c.N; j++ {
		for p := c.P[j]; p < c.P[j+1]; p++ {
			i := c.I[p]
			q := next[i]
			next[i]++
			t.I[q] = j
			t.X[q] = c.X[p]
		}
	}
	return t
}

// isFinite reports whether v is neither NaN nor ±Inf.
func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
