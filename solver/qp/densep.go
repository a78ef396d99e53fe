package qp

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/internal/kernels"
)

// symMatrix is the cost matrix P as the solver uses it: a *CSC holding the
// upper triangle, or, on the dense path for a P given as a dense matrix, a
// *symDense.
type symMatrix interface {
	// symMulAdd computes y += P x; y must not overlap x.
	symMulAdd(y, x []float64)
	// Nnz is the number of stored entries of the upper triangle.
	Nnz() int
	// colAbsMax sets cm[j] to the ∞-norm of column j of D P D.
	colAbsMax(cm, d []float64)
	// scale replaces P by c·D P D.
	scale(c float64, d []float64)
}

var (
	_ symMatrix = (*CSC)(nil)
	_ symMatrix = (*symDense)(nil)
)

func (c *CSC) colAbsMax(cm, d []float64) { pColMax(cm, c, d) }

func (c *CSC) scale(f float64, d []float64) {
	for j := 0; j < c.N; j++ {
		cdj := f * d[j]
		for p := c.P[j]; p < c.P[j+1]; p++ {
			c.X[p] *= cdj * d[c.I[p]]
		}
	}
}

// symDense is a symmetric n×n matrix stored in full, row-major. Row j up to
// the diagonal is column j of the upper triangle, so every loop below
// visits the entries a CSC holding all of the upper triangle would, in the
// same order and with the same roundings: with no zero in P, the dense path
// gives the same bits whether P comes as a dense matrix or as a CSC. Setup
// copies rows instead of scattering a CSC, and the ADMM matrix is filled by
// copying rows of the upper triangle.
type symDense struct {
	n int
	a []float64
}

// Nnz counts the upper triangle, as a CSC of a dense P would.
func (p *symDense) Nnz() int { return p.n * (p.n + 1) / 2 }

// symMulAdd matches CSC.symMulAdd on a full upper triangle: short columns
// (fewer than minRun entries) entry by entry, the others by DotAxpy.
func (p *symDense) symMulAdd(y, x []float64) {
	n := p.n
	for j := 0; j < n; j++ {
		xj := x[j]
		col := p.a[j*n : j*n+j+1]
		if j+1 >= minRun {
			y[j] += kernels.DotAxpy(xj, col[:j], x[:j], y[:j]) + col[j]*xj
			continue
		}
		var s float64
		for i, v := range col {
			y[i] += v * xj
			if i != j {
				s += v * x[i]
			}
		}
		y[j] += s
	}
}

// colAbsMax matches pColMax on a full upper triangle.
func (p *symDense) colAbsMax(cm, d []float64) {
	clear(cm)
	n := p.n
	for j := 0; j < n; j++ {
		dj := d[j]
		mj := cm[j]
		col := p.a[j*n : j*n+j+1]
		if j+1 >= minRun {
			m := kernels.AbsMax(col, d[:j+1], dj, cm[:j+1])
			cm[j] = max(cm[j], mj, m)
			continue
		}
		for i, v := range col {
			w := d[i] * abs(v) * dj
			if w > mj {
				mj = w
			}
			cm[i] = max(cm[i], w)
		}
		cm[j] = max(cm[j], mj)
	}
}

// scale rounds each entry as CSC.scale rounds its upper twin: the factor of
// entry (i, j) is (c·d_max(i,j))·d_min(i,j).
func (p *symDense) scale(c float64, d []float64) {
	n := p.n
	cd := make([]float64, n)
	for j, v := range d {
		cd[j] = c * v
	}
	for r := 0; r < n; r++ {
		row := p.a[r*n : (r+1)*n]
		cdr, dr := cd[r], d[r]
		for i := range row[:r+1] {
			row[i] *= cdr * d[i]
		}
		for i := r + 1; i < n; i++ {
			row[i] *= cd[i] * dr
		}
	}
}

// upperTo copies the upper triangle into the row-major n×n k (its strict
// lower triangle is left as it was) and adds shift to the diagonal.
func (p *symDense) upperTo(k []float64, shift float64) {
	n := p.n
	for i := 0; i < n; i++ {
		copy(k[i*n+i:(i+1)*n], p.a[i*n+i:(i+1)*n])
		k[i*n+i] += shift
	}
}

// symDenseFrom copies a P given as a dense matrix (any mat.Matrix but a
// *CSC) into full storage, reading the upper triangle as upperFrom does. On
// any invalid entry it returns upperFrom's error, so the message is the
// same on both paths.
func symDenseFrom(p mat.Matrix, n int) (*symDense, error) {
	s := &symDense{n: n, a: make([]float64, n*n)}
	ok := true
	switch pm := p.(type) {
	case *mat.SymDense:
		raw := pm.RawSymmetric()
		ok = raw.Uplo == blas.Upper // what gonum stores; other forms below
		for i := 0; i < n && ok; i++ {
			ok = copyFinite(s.a[i*n+i:(i+1)*n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
		}
		if ok {
			s.mirrorUpper()
		}
	case *mat.Dense:
		raw := pm.RawMatrix()
		for i := 0; i < n && ok; i++ {
			ok = copyFinite(s.a[i*n:(i+1)*n], raw.Data[i*raw.Stride:i*raw.Stride+n])
		}
		for i := 0; i < n && ok; i++ {
			for j := i + 1; j < n; j++ {
				if !symClose(s.a[i*n+j], s.a[j*n+i]) {
					ok = false
					break
				}
			}
		}
		if ok {
			s.mirrorUpper()
		}
	default:
		ok = false
	}
	if ok {
		return s, nil
	}
	// Other types, and the messages for bad entries: through the CSC.
	c, err := upperFrom(p, n)
	if err != nil {
		return nil, err
	}
	clear(s.a)
	for j := 0; j < n; j++ {
		for q := c.P[j]; q < c.P[j+1]; q++ {
			i := c.I[q]
			s.a[i*n+j] = c.X[q]
			s.a[j*n+i] = c.X[q]
		}
	}
	return s, nil
}

// copyFinite copies src into dst and reports whether every value is finite.
func copyFinite(dst, src []float64) bool {
	copy(dst, src)
	return allFinite(src)
}

// allFinite reports whether every value of src is finite.
func allFinite(src []float64) bool {
	// v − v is NaN for NaN and ±Inf, 0 otherwise; four sums keep the
	// additions off one dependency chain.
	var z0, z1, z2, z3 float64
	i := 0
	for ; i+4 <= len(src); i += 4 {
		v := src[i : i+4 : i+4]
		z0 += v[0] - v[0]
		z1 += v[1] - v[1]
		z2 += v[2] - v[2]
		z3 += v[3] - v[3]
	}
	for _, v := range src[i:] {
		z0 += v - v
	}
	return z0+z1+z2+z3 == 0
}

// mirrorUpper copies the upper triangle into the lower one, by blocks so
// that the strided reads stay in cache.
func (p *symDense) mirrorUpper() {
	const b = 32
	n, a := p.n, p.a
	for i0 := 0; i0 < n; i0 += b {
		for j0 := 0; j0 <= i0; j0 += b {
			for i := i0; i < min(i0+b, n); i++ {
				for j := j0; j < min(j0+b, i); j++ {
					a[i*n+j] = a[j*n+i]
				}
			}
		}
	}
}
