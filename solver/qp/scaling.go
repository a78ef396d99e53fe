package qp

import (
	"math"

	"github.com/fedcon/fedcon/internal/kernels"
)

// scaling holds the Ruiz equilibration of OSQP Section 5.1: the scaled
// problem has P̄ = c·D P D, q̄ = c·D q, Ā = E A D, l̄ = E l, ū = E u, and
// x = D x̄, z = E⁻¹ z̄, y = E ȳ / c.
type scaling struct {
	d, dinv []float64 // n
	e, einv []float64 // m
	c, cinv float64
}

// ruizTol ends Ruiz equilibration early once a pass would change no
// scaling factor by more than this fraction.
const ruizTol = 1e-2

// limitScaling maps a norm to a usable scaling divisor (OSQP's
// limit_scaling): tiny norms give 1, huge ones are capped.
func limitScaling(v float64) float64 {
	if v < minScaling {
		return 1
	}
	if v > maxScaling {
		return maxScaling
	}
	return v
}

// ruiz scales P (upper CSC), A and q in place over iters passes and returns
// the accumulated scaling.
//
// The passes do not rescale the data: the norms of the scaled matrices are
// computed from the original entries and the accumulated factors
// (|P̄ᵢⱼ| = c·dᵢdⱼ|Pᵢⱼ|, |Āᵢⱼ| = eᵢdⱼ|Aᵢⱼ|), so each pass only reads P and A
// once, and the data are scaled once at the end.
//
// With A nil, A is read from its transpose At row by row (the dense path,
// which builds no column form of A); the products and maxima are the same,
// so is the scaling, bit for bit. At itself is left for the caller to scale.
func ruiz(P symMatrix, A, At *CSC, q []float64, iters int) *scaling {
	n := len(q)
	// aNorms raises dt[j] and et[i] to the entries e_i·|A_ij|·d_j.
	var aNorms func(e, d, et, dt []float64)
	var m int
	if A != nil {
		m = A.M
		runs := consecutiveRuns(A)
		aNorms = func(e, d, et, dt []float64) {
			for j := range dt {
				dt[j] = colAbsMax(A, runs, j, e, d[j], et, dt[j])
			}
		}
	} else {
		m = At.N
		runs := consecutiveRuns(At)
		aNorms = func(e, d, et, dt []float64) { rowAbsMax(At, runs, e, d, et, dt) }
	}
	s := &scaling{d: ones(n), e: ones(m), c: 1}
	d, e := s.d, s.e
	dt := make([]float64, n)
	et := make([]float64, m)
	// pmax[j]: ∞-norm of column j of D P D (full symmetric column), for the
	// current d; the P part of the KKT column norm is c·pmax[j].
	pmax := make([]float64, n)
	P.colAbsMax(pmax, d)
	for it := 0; it < iters; it++ {
		// Column ∞-norms of the KKT matrix [P̄ Āᵀ; Ā 0].
		for j := range dt {
			dt[j] = s.c * pmax[j]
		}
		clear(et)
		aNorms(e, d, et, dt)
		var change float64
		for j := range dt {
			dt[j] = 1 / math.Sqrt(limitScaling(dt[j]))
			change = max(change, abs(dt[j]-1))
		}
		for i := range et {
			et[i] = 1 / math.Sqrt(limitScaling(et[i]))
			change = max(change, abs(et[i]-1))
		}
		if change < ruizTol {
			break
		}
		for j := range d {
			d[j] *= dt[j]
		}
		for i := range e {
			e[i] *= et[i]
		}
		// Cost scaling: 1/max(mean column norm of P̄, ‖q̄‖∞), both taken
		// after the new D and before the new cost factor.
		P.colAbsMax(pmax, d)
		var mean float64
		for _, v := range pmax {
			mean += v
		}
		mean = s.c * mean / float64(n)
		var qn float64
		for j, v := range q {
			qn = max(qn, s.c*d[j]*abs(v))
		}
		s.c *= 1 / limitScaling(max(limitScaling(mean), qn))
	}
	c := s.c
	P.scale(c, d)
	for j := range q {
		q[j] *= c * d[j]
	}
	if A != nil {
		scaleRC(A, e, d)
	}
	s.dinv = inv(s.d)
	s.einv = inv(s.e)
	s.cinv = 1 / s.c
	return s
}

// consecutiveRuns returns, per entry of A, the length of the run of
// consecutive row indices in its column that starts there if that is at
// least minRun (the dense rows of A), else 0: found once for all passes.
func consecutiveRuns(A *CSC) []int32 {
	runs := make([]int32, A.Nnz())
	for j := 0; j < A.N; j++ {
		lo, hi := A.P[j], A.P[j+1]
		for p := lo; p < hi; {
			q := p + 1
			for q < hi && A.I[q] == A.I[q-1]+1 {
				q++
			}
			if q-p >= minRun {
				runs[p] = int32(q - p)
			}
			p = q
		}
	}
	return runs
}

// colAbsMax returns the maximum of cm and of v_p = e_i·|A_ij|·dj over
// column j of A, and raises et[i] to v_p: the runs of consecutiveRuns go
// through the vectorised kernels.AbsMax, which rounds the same products and
// takes the same maxima.
func colAbsMax(A *CSC, runs []int32, j int, e []float64, dj float64, et []float64, cm float64) float64 {
	lo, hi := A.P[j], A.P[j+1]
	idx, val, run := A.I[lo:hi], A.X[lo:hi], runs[lo:hi]
	for p := 0; p < len(idx); {
		if l := int(run[p]); l > 0 {
			r := idx[p]
			cm = max(cm, kernels.AbsMax(val[p:p+l], e[r:r+l], dj, et[r:r+l]))
			p += l
			continue
		}
		i := idx[p]
		v := e[i] * abs(val[p]) * dj
		if v > cm {
			cm = v
		}
		if v > et[i] {
			et[i] = v
		}
		p++
	}
	return cm
}

// rowAbsMax is colAbsMax for every column at once, reading A row by row
// from At (column i = row i of A): it raises et[i] and dt[j] to
// v = e_i·|A_ij|·d_j, rounded as colAbsMax rounds it (kernels.AbsMaxT on
// the runs of consecutiveRuns(At)).
func rowAbsMax(At *CSC, runs []int32, e, d, et, dt []float64) {
	for i := 0; i < At.N; i++ {
		lo, hi := At.P[i], At.P[i+1]
		idx, val, run := At.I[lo:hi], At.X[lo:hi], runs[lo:hi]
		ei, cm := e[i], et[i]
		for p := 0; p < len(idx); {
			if l := int(run[p]); l > 0 {
				r := idx[p]
				cm = max(cm, kernels.AbsMaxT(val[p:p+l], d[r:r+l], ei, dt[r:r+l]))
				p += l
				continue
			}
			j := idx[p]
			v := ei * abs(val[p]) * d[j]
			cm = max(cm, v)
			dt[j] = max(dt[j], v)
			p++
		}
		et[i] = cm
	}
}

// pColMax sets cm[j] to the ∞-norm of column j of the symmetric matrix
// D P D, P given by its upper triangle.
func pColMax(cm []float64, P *CSC, d []float64) {
	clear(cm)
	contig, _ := P.contiguity()
	for j := 0; j < P.N; j++ {
		dj := d[j]
		mj := cm[j]
		lo, hi := P.P[j], P.P[j+1]
		idx, val := P.I[lo:hi], P.X[lo:hi]
		if contig[j] {
			// Consecutive rows r..: the same products and maxima, vectorised.
			r := idx[0]
			m := kernels.AbsMax(val, d[r:r+len(val)], dj, cm[r:r+len(val)])
			cm[j] = max(cm[j], mj, m)
			continue
		}
		val = val[:len(idx)]
		// A running maximum rarely changes (a predictable branch); the
		// scattered ones do at random, so they use the branch-free builtin.
		for k, i := range idx {
			v := d[i] * abs(val[k]) * dj
			if v > mj {
				mj = v
			}
			cm[i] = max(cm[i], v)
		}
		cm[j] = max(cm[j], mj)
	}
}

// scaleRC replaces A by diag(r) A diag(c).
func scaleRC(A *CSC, r, c []float64) {
	for j := 0; j < A.N; j++ {
		for p := A.P[j]; p < A.P[j+1]; p++ {
			A.X[p] *= r[A.I[p]] * c[j]
		}
	}
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func inv(v []float64) []float64 {
	w := make([]float64, len(v))
	for i, x := range v {
		w[i] = 1 / x
	}
	return w
}
