package qp

import "math"

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
func ruiz(P, A *CSC, q []float64, iters int) *scaling {
	n, m := P.N, A.M
	s := &scaling{d: ones(n), e: ones(m), c: 1}
	dt := make([]float64, n)
	et := make([]float64, m)
	colMax := make([]float64, n)
	for it := 0; it < iters; it++ {
		// Column ∞-norms of the KKT matrix [P Aᵀ; A 0].
		for j := range dt {
			dt[j] = 0
		}
		for i := range et {
			et[i] = 0
		}
		for j := 0; j < n; j++ {
			dj := dt[j]
			for p := P.P[j]; p < P.P[j+1]; p++ {
				v := abs(P.X[p])
				i := P.I[p]
				dj = max(dj, v)
				dt[i] = max(dt[i], v)
			}
			for p := A.P[j]; p < A.P[j+1]; p++ {
				v := abs(A.X[p])
				dj = max(dj, v)
				et[A.I[p]] = max(et[A.I[p]], v)
			}
			dt[j] = max(dt[j], dj)
		}
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
		// Scale P (noting its new column norms for the cost scaling), A, q.
		for j := range colMax {
			colMax[j] = 0
		}
		for j := 0; j < n; j++ {
			for p := P.P[j]; p < P.P[j+1]; p++ {
				i := P.I[p]
				P.X[p] *= dt[i] * dt[j]
				v := abs(P.X[p])
				colMax[j] = max(colMax[j], v)
				colMax[i] = max(colMax[i], v)
			}
		}
		scaleRC(A, et, dt)
		for j := range q {
			q[j] *= dt[j]
			s.d[j] *= dt[j]
		}
		for i := range et {
			s.e[i] *= et[i]
		}
		// Cost scaling: 1/max(mean column norm of P, ‖q‖∞).
		var mean float64
		for _, v := range colMax {
			mean += v
		}
		mean /= float64(n)
		var qn float64
		for _, v := range q {
			qn = max(qn, abs(v))
		}
		ct := 1 / limitScaling(max(limitScaling(mean), qn))
		for p := range P.X {
			P.X[p] *= ct
		}
		for j := range q {
			q[j] *= ct
		}
		s.c *= ct
	}
	s.dinv = inv(s.d)
	s.einv = inv(s.e)
	s.cinv = 1 / s.c
	return s
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
