package qp

// kktPattern assembles the upper triangle of the permuted quasi-definite
// matrix
//
//	[ P + pdiag·I   A_Rᵀ         ]
//	[ A_R           −diag(cdiag) ]
//
// where A_R holds the rows of A listed in rows (all rows when rows is nil)
// and cdiag[k] belongs to rows[k]. The order of elimination is perm (a
// permutation of the full KKT index set 0..n+m−1, variables first) restricted
// to the variables and the selected rows. It returns the matrix, the
// position in K.X of each constraint diagonal, and the local permutation
// (loc[k] = local index eliminated k-th; local index j < n is variable j and
// n+k is rows[k]).
func kktPattern(P, A *CSC, pdiag float64, rows []int, cdiag []float64, perm []int) (K *CSC, cpos []int, loc []int) {
	n, m := P.N, A.M
	if rows == nil {
		rows = make([]int, m)
		for i := range rows {
			rows[i] = i
		}
	}
	nr := len(rows)
	N := n + nr
	// local index of each full index (−1: not selected)
	full2loc := make([]int, n+m)
	for i := range full2loc {
		full2loc[i] = -1
	}
	for j := 0; j < n; j++ {
		full2loc[j] = j
	}
	for k, i := range rows {
		full2loc[n+i] = n + k
	}
	pinv := make([]int, N) // local index → position
	loc = make([]int, 0, N)
	for _, f := range perm {
		if l := full2loc[f]; l >= 0 {
			pinv[l] = len(loc)
			loc = append(loc, l)
		}
	}
	// row k of A_R for each full row index
	rowOf := full2loc[n:]

	// Count entries per permuted column.
	cnt := make([]int, N+1)
	add := func(a, b int) { // local indices
		pa, pb := pinv[a], pinv[b]
		if pa > pb {
			pb = pa
		}
		cnt[pb+1]++
	}
	for j := 0; j < n; j++ {
		for p := P.P[j]; p < P.P[j+1]; p++ {
			add(P.I[p], j)
		}
		for p := A.P[j]; p < A.P[j+1]; p++ {
			if r := rowOf[A.I[p]]; r >= 0 {
				add(j, r)
			}
		}
	}
	for k := 0; k < nr; k++ {
		add(n+k, n+k)
	}
	for c := 0; c < N; c++ {
		cnt[c+1] += cnt[c]
	}
	K = &CSC{M: N, N: N, P: cnt, I: make([]int, cnt[N]), X: make([]float64, cnt[N])}
	next := append([]int(nil), cnt[:N]...)
	put := func(a, b int, v float64) int {
		pa, pb := pinv[a], pinv[b]
		if pa > pb {
			pa, pb = pb, pa
		}
		q := next[pb]
		next[pb]++
		K.I[q] = pa
		K.X[q] = v
		return q
	}
	for j := 0; j < n; j++ {
		for p := P.P[j]; p < P.P[j+1]; p++ {
			v := P.X[p]
			if P.I[p] == j {
				v += pdiag
			}
			put(P.I[p], j, v)
		}
		for p := A.P[j]; p < A.P[j+1]; p++ {
			if r := rowOf[A.I[p]]; r >= 0 {
				put(j, r, A.X[p])
			}
		}
	}
	cpos = make([]int, nr)
	for k := 0; k < nr; k++ {
		cpos[k] = put(n+k, n+k, -cdiag[k])
	}
	return K, cpos, loc
}

// sparseKKT solves the ADMM linear system with a sparse LDLᵀ factorisation
// of the quasi-definite KKT matrix [P+σI, Aᵀ; A, −diag(1/ρ)].
type sparseKKT struct {
	n, m   int
	sigma  float64
	K      *CSC
	cpos   []int
	loc    []int // loc[k]: KKT index eliminated k-th
	f      *ldl
	b      []float64
	pinv   []int // position of each KKT index in the elimination order
	pdpos  []int // position in K.X of each x-block diagonal
	rhoInv []float64
}

func newSparseKKT(P, A *CSC, sigma float64, rho []float64, perm []int) *sparseKKT {
	n, m := P.N, A.M
	cd := make([]float64, m)
	for i := range cd {
		cd[i] = 1 / rho[i]
	}
	K, cpos, loc := kktPattern(P, A, sigma, nil, cd, perm)
	s := &sparseKKT{
		n: n, m: m, sigma: sigma, K: K, cpos: cpos, loc: loc,
		f:      newLDL(K),
		b:      make([]float64, n+m),
		pinv:   make([]int, n+m),
		pdpos:  make([]int, n),
		rhoInv: make([]float64, m),
	}
	for k, l := range loc {
		s.pinv[l] = k
	}
	for j := 0; j < n; j++ {
		pj := s.pinv[j]
		for p := K.P[pj]; p < K.P[pj+1]; p++ {
			if K.I[p] == pj {
				s.pdpos[j] = p
			}
		}
	}
	return s
}

// factor computes the numeric factorisation for the current ρ. It reports
// false if a pivot vanished or the inertia is not (n, m), which means
// P + σI + AᵀρA is not positive definite.
func (s *sparseKKT) factor() bool {
	return s.f.factor(s.K) && s.f.npos == s.n
}

func (s *sparseKKT) setRho(rho []float64) bool {
	for i, p := range s.cpos {
		s.rhoInv[i] = 1 / rho[i]
		s.K.X[p] = -s.rhoInv[i]
	}
	return s.factor()
}

func (s *sparseKKT) step(xt, zt, x, z, y, q, rho []float64) {
	b := s.b
	px, pz := s.pinv[:s.n], s.pinv[s.n:]
	sigma := s.sigma
	x, q = x[:len(px)], q[:len(px)]
	for j, p := range px {
		b[p] = sigma*x[j] - q[j]
	}
	rinv := s.rhoInv[:len(pz)]
	z, y = z[:len(pz)], y[:len(pz)]
	for i, p := range pz {
		b[p] = z[i] - y[i]*rinv[i]
	}
	s.f.solve(b)
	xt = xt[:len(px)]
	for j, p := range px {
		xt[j] = b[p]
	}
	zt = zt[:len(pz)]
	for i, p := range pz {
		zt[i] = z[i] + (b[p]-y[i])*rinv[i]
	}
}

func (s *sparseKKT) factorNnz() int { return s.f.nnz() + s.K.N }

// polishInactive is the magnitude of the diagonal given to inactive rows in
// the polishing matrix: their multipliers become ν = (Ax)ᵢ/polishInactive,
// which adds AᵢᵀAᵢ/polishInactive (≈ 1e-12 relative on the scaled problem)
// to the x-block, far below the regularisation δ that iterative refinement
// removes anyway.
const polishInactive = 1e12

// sparsePolish is a factorisation of the regularised polishing matrix
// [P+δI, Aᵀ; A, −diag(d)] on the full KKT pattern, with dᵢ = δ on the active
// rows R and polishInactive on the others, so that the symbolic analysis of
// the ADMM matrix is reused and only a numeric factorisation is needed. Seen
// from the active rows it is the OSQP polishing matrix [P+δI, A_Rᵀ; A_R, −δI].
type sparsePolish struct {
	kk   *sparseKKT
	f    *ldl
	vals *CSC
	rows []int
	b    []float64
}

// newPolish factors the polishing matrix for the active rows, reusing old's
// storage when non-nil; it reports false if a pivot vanished or the inertia
// is wrong (the workspace is returned either way).
func (s *sparseKKT) newPolish(delta float64, rows []int, old *sparsePolish) (*sparsePolish, bool) {
	sp := old
	if sp == nil {
		sp = &sparsePolish{kk: s, f: s.f.cloneSymbolic(), b: make([]float64, s.n+s.m)}
		sp.vals = &CSC{M: s.K.M, N: s.K.N, P: s.K.P, I: s.K.I, X: make([]float64, len(s.K.X))}
	}
	copy(sp.vals.X, s.K.X)
	for _, p := range s.pdpos {
		sp.vals.X[p] += delta - s.sigma
	}
	for _, p := range s.cpos {
		sp.vals.X[p] = -polishInactive
	}
	for _, i := range rows {
		sp.vals.X[s.cpos[i]] = -delta
	}
	sp.rows = append(sp.rows[:0], rows...)
	ok := sp.f.factor(sp.vals) && sp.f.npos == s.n
	return sp, ok
}

// solve overwrites v = [r_x; r_R] (length n+len(rows)) with the solution of
// the polishing system, the inactive rows having right-hand side zero.
func (sp *sparsePolish) solve(v []float64) {
	s := sp.kk
	n := s.n
	full := s.b
	for i := range full {
		full[i] = 0
	}
	// full is in elimination order: position pinv[idx].
	for j := 0; j < n; j++ {
		full[s.pinv[j]] = v[j]
	}
	for t, i := range sp.rows {
		full[s.pinv[n+i]] = v[n+t]
	}
	sp.f.solve(full)
	for j := 0; j < n; j++ {
		v[j] = full[s.pinv[j]]
	}
	for t, i := range sp.rows {
		v[n+t] = full[s.pinv[n+i]]
	}
}
