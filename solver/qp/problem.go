package qp

import (
	"math"

	"github.com/fedcon/fedcon/internal/kernels"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// Problem is the convex quadratic program
//
//	minimise ½xᵀPx + qᵀx  subject to  l ≤ Ax ≤ u
//
// with x ∈ ℝⁿ and m constraint rows. Solve never modifies a Problem.
type Problem struct {
	// P is the n×n positive semidefinite cost matrix; nil means zero (a
	// linear program). A *CSC is read as the upper triangle: entries below
	// the diagonal are allowed only if they mirror an entry above it. Any
	// other mat.Matrix (*mat.Dense, *mat.SymDense, ...) must be symmetric to
	// a relative tolerance of 1e-12 and only its upper triangle is used.
	P mat.Matrix
	// Q is the linear cost, length n.
	Q []float64
	// A is the m×n constraint matrix, a *CSC or any mat.Matrix; nil means
	// no constraints (m = 0).
	A mat.Matrix
	// L and U are the bounds, length m, with L[i] ≤ U[i]. L[i] = U[i]
	// makes row i an equality. Values at or beyond ±Infinity (including
	// ±Inf) make a bound infinite; L[i] = +Inf and U[i] = −Inf are invalid.
	L, U []float64
}

// data is a validated problem in canonical form: P upper triangular CSC
// (n×n) or, from newDataDense, possibly a *symDense; A CSC (m×n), bounds
// with ±Inf for infinite values. It owns its slices.
type data struct {
	n, m int
	P    *CSC      // nil when pd is set
	pd   *symDense // a dense P kept dense (newDataDense)
	A    *CSC      // nil on the dense path when at is set: it works from at alone
	at   *CSC      // Aᵀ when A came dense (built first), else nil
	q    []float64
	l, u []float64
}

// symTol is the relative tolerance of the symmetry test of a dense P.
const symTol = 1e-12

// newData validates p and copies it into canonical form.
func newData(p *Problem) (*data, error) { return newDataFor(p, false) }

// newDataDense is newData for the dense path: a P given as a dense matrix
// (anything but a *CSC or nil) is kept in full storage (data.pd).
func newDataDense(p *Problem) (*data, error) { return newDataFor(p, true) }

func newDataFor(p *Problem, denseP bool) (*data, error) {
	if p == nil {
		return nil, inputErrorf("Problem", "nil problem")
	}
	n := len(p.Q)
	if p.P != nil {
		r, c := p.P.Dims()
		if r != c {
			return nil, inputErrorf("P", "not square: %d×%d", r, c)
		}
		if r != n {
			return nil, inputErrorf("P", "is %d×%d but len(Q) = %d", r, c, n)
		}
	}
	if n == 0 {
		return nil, inputErrorf("Q", "no variables (len(Q) = 0)")
	}
	for j, v := range p.Q {
		if !isFinite(v) {
			return nil, inputErrorf("Q", "Q[%d] = %v is not finite", j, v)
		}
	}
	d := &data{n: n, q: append([]float64(nil), p.Q...)}

	var err error
	if _, isCSC := p.P.(*CSC); denseP && p.P != nil && !isCSC {
		if d.pd, err = symDenseFrom(p.P, n); err != nil {
			return nil, err
		}
	} else if d.P, err = upperFrom(p.P, n); err != nil {
		return nil, err
	}

	m := 0
	if p.A != nil {
		r, c := p.A.Dims()
		if c != n {
			return nil, inputErrorf("A", "is %d×%d but the problem has n = %d variables (len(Q))", r, c, n)
		}
		m = r
		if dm, ok := p.A.(*mat.Dense); ok {
			// Aᵀ first: its columns are A's rows, written in order.
			if d.at, err = denseToCSCT("A", dm); err != nil {
				return nil, err
			}
			if !denseP {
				d.A = d.at.transpose()
			}
		} else if d.A, err = cscFrom("A", p.A); err != nil {
			return nil, err
		}
	} else {
		d.A = &CSC{M: 0, N: n, P: make([]int, n+1)}
	}
	d.m = m
	if len(p.L) != m {
		return nil, inputErrorf("L", "len(L) = %d but A has %d rows", len(p.L), m)
	}
	if len(p.U) != m {
		return nil, inputErrorf("U", "len(U) = %d but A has %d rows", len(p.U), m)
	}
	d.l = make([]float64, m)
	d.u = make([]float64, m)
	if err := setBounds(d.l, d.u, p.L, p.U); err != nil {
		return nil, err
	}
	return d, nil
}

// setBounds validates and copies bounds into l and u, mapping values beyond
// ±Infinity to ±Inf.
func setBounds(l, u, pl, pu []float64) error {
	for i := range pl {
		lo, hi := pl[i], pu[i]
		if math.IsNaN(lo) {
			return inputErrorf("L", "L[%d] is NaN", i)
		}
		if math.IsNaN(hi) {
			return inputErrorf("U", "U[%d] is NaN", i)
		}
		if lo >= Infinity {
			return inputErrorf("L", "L[%d] = %v is +infinite", i, lo)
		}
		if hi <= -Infinity {
			return inputErrorf("U", "U[%d] = %v is −infinite", i, hi)
		}
		if lo > hi {
			return inputErrorf("L", "L[%d] = %v > U[%d] = %v", i, lo, i, hi)
		}
		if lo <= -Infinity {
			lo = math.Inf(-1)
		}
		if hi >= Infinity {
			hi = math.Inf(1)
		}
		l[i], u[i] = lo, hi
	}
	return nil
}

// cscFrom copies any mat.Matrix into a canonical CSC, checking values.
func cscFrom(field string, a mat.Matrix) (*CSC, error) {
	var rows, cols []int
	var vals []float64
	r, c := a.Dims()
	if s, ok := a.(*CSC); ok {
		if msg := s.check(); msg != "" {
			return nil, inputErrorf(field, "invalid CSC: %s", msg)
		}
		if s.canonical() {
			for j := 0; j < s.N; j++ {
				for p := s.P[j]; p < s.P[j+1]; p++ {
					if !isFinite(s.X[p]) {
						return nil, inputErrorf(field, "entry (%d, %d) = %v is not finite", s.I[p], j, s.X[p])
					}
				}
			}
			return s.clone(), nil
		}
		rows, cols, vals = s.triplets(nil, nil, nil)
	} else if dm, ok := a.(*mat.Dense); ok {
		return denseToCSC(field, dm)
	} else {
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if v := a.At(i, j); v != 0 { // NaN and ±Inf are kept, and rejected below
					rows = append(rows, i)
					cols = append(cols, j)
					vals = append(vals, v)
				}
			}
		}
	}
	for k, v := range vals {
		if !isFinite(v) {
			return nil, inputErrorf(field, "entry (%d, %d) = %v is not finite", rows[k], cols[k], v)
		}
	}
	return fromTriplets(r, c, rows, cols, vals), nil
}

// denseToCSC copies the non-zeros of a dense matrix into a CSC directly:
// scanning by rows gives sorted row indices in each column, so neither
// triplets nor sorting are needed.
func denseToCSC(field string, dm *mat.Dense) (*CSC, error) {
	raw := dm.RawMatrix()
	r, c := raw.Rows, raw.Cols
	cnt := make([]int, c+1)
	for i := 0; i < r; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			if v != 0 {
				if !isFinite(v) {
					return nil, inputErrorf(field, "entry (%d, %d) = %v is not finite", i, j, v)
				}
				cnt[j+1]++
			}
		}
	}
	for j := 0; j < c; j++ {
		cnt[j+1] += cnt[j]
	}
	out := &CSC{M: r, N: c, P: cnt, I: make([]int, cnt[c]), X: make([]float64, cnt[c])}
	next := append([]int(nil), cnt[:c]...)
	for i := 0; i < r; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			if v != 0 {
				p := next[j]
				next[j]++
				out.I[p] = i
				out.X[p] = v
			}
		}
	}
	return out, nil
}

// denseToCSCT returns the transpose of a dense matrix as a CSC, scanning
// its rows in order (the same checks and messages as denseToCSC). A row
// without zeros (a dense constraint) is copied whole; elsewhere (a box
// row: one entry in n) runs of four zeros are passed over at once.
func denseToCSCT(field string, dm *mat.Dense) (*CSC, error) {
	raw := dm.RawMatrix()
	r, c := raw.Rows, raw.Cols
	ptr := make([]int, r+1)
	for i := 0; i < r; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+c]
		nz, finite := kernels.NonZeros(row)
		if !finite {
			for j, v := range row {
				if !isFinite(v) {
					return nil, inputErrorf(field, "entry (%d, %d) = %v is not finite", i, j, v)
				}
			}
		}
		ptr[i+1] = ptr[i] + nz
	}
	out := &CSC{M: c, N: r, P: ptr, I: make([]int, ptr[r]), X: make([]float64, ptr[r])}
	for i := 0; i < r; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+c]
		p := ptr[i]
		if ptr[i+1]-p == c {
			copy(out.X[p:p+c], row)
			for j := range c {
				out.I[p+j] = j
			}
			continue
		}
		j := 0
		for ; j+4 <= c; j += 4 {
			v := row[j : j+4 : j+4]
			if (math.Float64bits(v[0])|math.Float64bits(v[1])|math.Float64bits(v[2])|math.Float64bits(v[3]))<<1 == 0 {
				continue // four zeros, of either sign
			}
			for t, x := range v {
				if x != 0 {
					out.I[p], out.X[p] = j+t, x
					p++
				}
			}
		}
		for ; j < c; j++ {
			if x := row[j]; x != 0 {
				out.I[p], out.X[p] = j, x
				p++
			}
		}
	}
	return out, nil
}

// canonical reports whether the row indices of every column are strictly
// increasing (sorted, no duplicates).
func (c *CSC) canonical() bool {
	for j := 0; j < c.N; j++ {
		for p := c.P[j] + 1; p < c.P[j+1]; p++ {
			if c.I[p] <= c.I[p-1] {
				return false
			}
		}
	}
	return true
}

// upperFrom returns the upper triangle of the symmetric matrix p (nil: zero)
// as a canonical CSC with every diagonal entry stored.
func upperFrom(p mat.Matrix, n int) (*CSC, error) {
	var rows, cols []int
	var vals []float64
	switch pp := p.(type) {
	case nil:
	case *CSC:
		if msg := pp.check(); msg != "" {
			return nil, inputErrorf("P", "invalid CSC: %s", msg)
		}
		tr, tc, tv := pp.triplets(nil, nil, nil)
		full := fromTriplets(pp.M, pp.N, tr, tc, tv)
		for j := 0; j < n; j++ {
			for k := full.P[j]; k < full.P[j+1]; k++ {
				i, v := full.I[k], full.X[k]
				if !isFinite(v) {
					return nil, inputErrorf("P", "entry (%d, %d) = %v is not finite", i, j, v)
				}
				if i > j {
					// Must mirror the upper entry (j, i).
					w := full.At(j, i)
					if !symClose(v, w) {
						return nil, inputErrorf("P", "not symmetric: P[%d][%d] = %v but P[%d][%d] = %v (supply the upper triangle only, or a symmetric matrix)", i, j, v, j, i, w)
					}
					continue
				}
				rows = append(rows, i)
				cols = append(cols, j)
				vals = append(vals, v)
			}
		}
	default:
		if sd, ok := p.(*mat.SymDense); ok {
			if out := upperFromSymDense(sd); out != nil {
				return out, nil
			}
		}
		_, isSym := p.(mat.Symmetric)
		nz := n * (n + 1) / 2
		// Columns are scanned in order with increasing rows and every
		// diagonal entry is stored, so the CSC is built directly.
		out := &CSC{M: n, N: n, P: make([]int, n+1), I: make([]int, 0, nz), X: make([]float64, 0, nz)}
		at := p.At
		switch pm := p.(type) {
		case *mat.Dense:
			raw := pm.RawMatrix()
			at = func(i, j int) float64 { return raw.Data[i*raw.Stride+j] }
		case *mat.SymDense:
			raw := pm.RawSymmetric()
			if raw.Uplo == blas.Upper {
				at = func(i, j int) float64 {
					if i > j {
						i, j = j, i
					}
					return raw.Data[i*raw.Stride+j]
				}
			}
		}
		for j := 0; j < n; j++ {
			for i := 0; i <= j; i++ {
				v := at(i, j)
				if !isFinite(v) {
					return nil, inputErrorf("P", "entry (%d, %d) = %v is not finite", i, j, v)
				}
				if !isSym && i != j {
					w := at(j, i)
					if !isFinite(w) {
						return nil, inputErrorf("P", "entry (%d, %d) = %v is not finite", j, i, w)
					}
					if !symClose(v, w) {
						return nil, inputErrorf("P", "not symmetric: P[%d][%d] = %v but P[%d][%d] = %v", i, j, v, j, i, w)
					}
				}
				if v != 0 || i == j {
					out.I = append(out.I, i)
					out.X = append(out.X, v)
				}
			}
			out.P[j+1] = len(out.I)
		}
		return out, nil
	}
	// Store every diagonal entry so that scaling and the KKT pattern can
	// rely on it.
	for j := 0; j < n; j++ {
		rows = append(rows, j)
		cols = append(cols, j)
		vals = append(vals, 0)
	}
	return fromTriplets(n, n, rows, cols, vals), nil
}

// upperFromSymDense copies the upper triangle of an upper-stored SymDense
// into a CSC with every diagonal entry stored, scanning the rows (contiguous
// in memory) rather than the columns. It returns nil for lower storage or a
// non-finite entry; the general loop then reports the first one in column
// order, as for any other matrix.
func upperFromSymDense(sd *mat.SymDense) *CSC {
	raw := sd.RawSymmetric()
	if raw.Uplo != blas.Upper {
		return nil
	}
	n := raw.N
	cnt := make([]int, n+1)
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
		for k, v := range row {
			if !isFinite(v) {
				return nil
			}
			if v != 0 || k == 0 {
				cnt[i+k+1]++
			}
		}
	}
	for j := 0; j < n; j++ {
		cnt[j+1] += cnt[j]
	}
	out := &CSC{M: n, N: n, P: cnt, I: make([]int, cnt[n]), X: make([]float64, cnt[n])}
	next := append([]int(nil), cnt[:n]...)
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
		for k, v := range row {
			if v != 0 || k == 0 {
				j := i + k
				out.I[next[j]] = i
				out.X[next[j]] = v
				next[j]++
			}
		}
	}
	return out
}

func symClose(a, b float64) bool {
	return math.Abs(a-b) <= symTol*math.Max(math.Abs(a), math.Abs(b))
}
