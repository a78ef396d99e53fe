package qp

// rowState classifies row i from a primal value v ≈ (Ax)ᵢ and multiplier
// y: equality if l = u, lower-active if v + y/ρ < l, upper-active if
// v + y/ρ > u. For an ADMM iterate (v = z) this is exactly the set of rows
// clamped by the last projection with a non-zero multiplier; for a polished
// point it is the primal-dual active set rule (a semismooth Newton step on
// y = ρ(v + y/ρ − Π(v + y/ρ))).
func (s *Solver) rowState(i int, v, y float64) int8 {
	if s.l[i] == s.u[i] {
		return actEq
	}
	w := v + y/s.rho[i]
	switch {
	case w < s.l[i]:
		return actLower
	case w > s.u[i]:
		return actUpper
	}
	return actNone
}

// activeSetChanged reports whether the active set guessed from the ADMM
// iterate differs from the one recorded at the last polishing attempt
// (always true if have is false).
func (s *Solver) activeSetChanged(have bool) bool {
	if !have {
		return true
	}
	for i, a := range s.polSeen {
		if s.rowState(i, s.z[i], s.y[i]) != a {
			return true
		}
	}
	return false
}

// polish runs up to Settings.PolishMaxSteps primal-dual active-set steps
// from the active set guessed from the ADMM iterate. Each step solves the
// equality-constrained QP on the active set R,
//
//	minimise ½x̄ᵀP̄x̄ + q̄ᵀx̄  subject to  Ā_R x̄ = b_R,
//
// by proximal-point iterations on its KKT system: with the regularised
// matrix K_δ = [P̄+δI, Ā_Rᵀ; Ā_R, −δI] and the exact one K₀, each iteration
// is v ← v + K_δ⁻¹(b − K₀v), which is OSQP's iterative refinement
// (Section 4.3) started from the current point instead of zero, so that
// directions the guessed active set leaves free move by a bounded amount.
// It then builds the candidate (s.xp, s.zp, s.yp) with y projected onto the
// normal cone (lower-active rows y ≤ 0, upper-active y ≥ 0, inactive y = 0)
// and z on the active bounds, and stops if the candidate passes the
// convergence test. Otherwise the next active set is read off the raw point
// by rowState; the attempt fails when the active set stops changing or
// returns to one already tried in this attempt (a cycle).
func (s *Solver) polish(st *Stats) (resid, bool) {
	st.PolishAttempts++
	n := s.n
	for i := range s.polState {
		s.polState[i] = s.rowState(i, s.z[i], s.y[i])
	}
	copy(s.polSeen, s.polState)
	cx, cy := s.polCx, s.polCy
	copy(cx, s.x)
	copy(cy, s.y)
	seen := []uint64{stateHash(s.polState)}
	var r resid
	for step := 0; step < s.set.PolishMaxSteps; step++ {
		st.PolishSteps++
		rows := s.polActive[:0] // the factorisations keep copies
		for i, a := range s.polState {
			if a != actNone {
				rows = append(rows, i)
			}
		}
		s.polActive = rows
		sol, ok := s.polishSolve(rows, cx, cy)
		if !ok {
			return r, false
		}
		copy(s.xp, sol[:n])
		copy(cx, sol[:n])
		for i := range cy {
			cy[i] = 0
		}
		for t, i := range rows {
			cy[i] = sol[n+t]
		}
		ax := s.wm
		for i := range ax {
			ax[i] = 0
		}
		s.Ap.mul(ax, s.xp)
		// Next active set from the raw point, then the candidate.
		changes := 0
		for i := range s.polState {
			a := s.polState[i]
			na := s.rowState(i, ax[i], cy[i])
			if na != a {
				changes++
			}
			s.yp[i] = cy[i]
			switch a {
			case actLower:
				s.yp[i] = min(cy[i], 0)
				s.zp[i] = s.l[i]
			case actUpper:
				s.yp[i] = max(cy[i], 0)
				s.zp[i] = s.u[i]
			case actEq:
				s.zp[i] = s.l[i]
			default:
				s.zp[i] = min(max(ax[i], s.l[i]), s.u[i])
			}
			s.polNext[i] = na
		}
		r = s.residuals(s.xp, s.zp, s.yp)
		if !r.finite() {
			return r, false
		}
		if r.converged(1) {
			return r, true
		}
		if changes == 0 {
			return r, false // a fixed point that fails the test: numerical trouble
		}
		h := stateHash(s.polNext)
		for _, g := range seen {
			if g == h {
				return r, false // the active-set steps cycle
			}
		}
		seen = append(seen, h)
		s.polState, s.polNext = s.polNext, s.polState
	}
	return r, false
}

// polishSolve runs the proximal-point iterations for the active rows from
// the centre (cx, cy restricted to rows) and returns [x̄; ν_R] (an internal
// buffer).
func (s *Solver) polishSolve(rows []int, cx, cy []float64) ([]float64, bool) {
	n, k := s.n, len(rows)
	if !equalInts(rows, s.polRows) || s.polSys == nil {
		s.polRows = append(s.polRows[:0], rows...)
		sys, ok := s.polishFactor(rows)
		if !ok {
			s.polSys = nil
			return nil, false
		}
		s.polSys = sys
	}
	if cap(s.rhs) < n+k {
		s.rhs = make([]float64, n+k)
		s.sol = make([]float64, n+k)
		s.res = make([]float64, n+k)
	}
	rhs, sol, rr := s.rhs[:n+k], s.sol[:n+k], s.res[:n+k]
	for j := 0; j < n; j++ {
		rhs[j] = -s.q[j]
	}
	for t, i := range rows {
		if s.polState[i] == actUpper {
			rhs[n+t] = s.u[i]
		} else {
			rhs[n+t] = s.l[i]
		}
	}
	copy(sol, cx)
	for t, i := range rows {
		sol[n+t] = cy[i]
	}
	for it := 0; it <= s.set.PolishRefine; it++ {
		s.kktTimes(rr, sol, rows)
		for t := range rr {
			rr[t] = rhs[t] - rr[t]
		}
		s.polSys.solve(rr)
		var dmax, smax float64
		for t := range sol {
			sol[t] += rr[t]
			dmax = max(dmax, abs(rr[t]))
			smax = max(smax, abs(sol[t]))
		}
		if dmax <= 1e-15*smax {
			break
		}
	}
	for _, v := range sol {
		if !isFinite(v) {
			return nil, false
		}
	}
	return sol, true
}

// kktTimes computes dst = K₀ v for the unregularised polishing matrix
// K₀ = [P̄, Ā_Rᵀ; Ā_R, 0].
func (s *Solver) kktTimes(dst, v []float64, rows []int) {
	n := s.n
	for j := 0; j < n; j++ {
		dst[j] = 0
	}
	s.P.symMulAdd(dst[:n], v[:n])
	w := s.wm
	for i := range w {
		w[i] = 0
	}
	for t, i := range rows {
		w[i] = v[n+t]
	}
	s.Ap.mulT(dst[:n], w)
	if s.kind == LinearSolverDense {
		// Dense rows by the vectorised Dot (the sparse path keeps its
		// sums, and so its results, as they were).
		for t, i := range rows {
			dst[n+t] = s.At.colDot(i, v[:n])
		}
		return
	}
	for t, i := range rows {
		var a float64
		for p := s.At.P[i]; p < s.At.P[i+1]; p++ {
			a += s.At.X[p] * v[s.At.I[p]]
		}
		dst[n+t] = a
	}
}

// polishFactor factors the regularised polishing matrix for rows, reusing
// the polishing workspace of earlier calls.
func (s *Solver) polishFactor(rows []int) (polishSys, bool) {
	delta := s.set.PolishDelta
	if s.kind == LinearSolverDense {
		s.polDense = newDensePolish(s.lin.(*denseKKT), delta, s.polDense)
		if !s.polDense.factor(rows) {
			return nil, false
		}
		return s.polDense, true
	}
	sp, ok := s.lin.(*sparseKKT).newPolish(delta, rows, s.polSparse)
	s.polSparse = sp
	if !ok {
		return nil, false
	}
	return sp, true
}

// stateHash returns the FNV-1a hash of an active-set vector.
func stateHash(st []int8) uint64 {
	h := uint64(14695981039346656037)
	for _, a := range st {
		h ^= uint64(uint8(a))
		h *= 1099511628211
	}
	return h
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
