package problems

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/internal/kernels"
	"github.com/fedcon/fedcon/solver"
)

// QPParty is one party of eq. (84): f(w) = ½wᵀAw + bᵀw and the equality
// constraint Cw + d = 0. The server's party has A = nil and b = nil.
type QPParty struct {
	A *mat.SymDense // d×d, PSD; nil for zero
	B []float64     // length d; nil for zero
	C *mat.Dense    // m×d; nil for no constraint
	D []float64     // length m

	once  sync.Once
	aFull blas64.General // A in full storage, for kernels.Gemv (a Symv reads it twice as scattered)
}

var (
	_ solver.QuadraticParty = (*QPParty)(nil)
	_ solver.HessianParty   = (*QPParty)(nil)
)

// Hessian implements solver.HessianParty: A. Exact quadratic subproblems
// never need it; a subproblem that mixes QP parties with conic ones (eq.
// (25) with a norm ball) is solved by Newton's method, which does.
func (p *QPParty) Hessian(dst *mat.SymDense, _, _ []float64) {
	if p.A != nil {
		dst.AddSym(dst, p.A)
	}
}

// Cone implements solver.Party: equalities.
func (p *QPParty) Cone() solver.Cone {
	if p.C == nil {
		return nil
	}
	r, _ := p.C.Dims()
	return solver.Zero(r)
}

// Quadratic implements solver.QuadraticParty.
func (p *QPParty) Quadratic() (*mat.SymDense, []float64, *mat.Dense, []float64) {
	return p.A, p.B, p.C, p.D
}

// Eval implements solver.Party.
func (p *QPParty) Eval(w, grad, c, jac []float64) float64 {
	var f float64
	if p.A != nil {
		g := grad
		if g == nil {
			g = make([]float64, len(w))
		}
		p.once.Do(func() { p.aFull = mat.DenseCopyOf(p.A).RawMatrix() })
		clear(g)
		kernels.Gemv(1, p.aFull.Data, p.aFull.Stride, w, g) // g = Aw
		f = 0.5 * floats.Dot(w, g)
		if p.B != nil {
			f += floats.Dot(p.B, w)
			floats.Add(g, p.B)
		}
	} else if grad != nil {
		clear(grad)
		if p.B != nil {
			floats.Add(grad, p.B)
		}
	}
	if p.C != nil {
		raw := p.C.RawMatrix()
		copy(c, p.D)
		kernels.Gemv(1, raw.Data, raw.Stride, w, c[:raw.Rows])
		if jac != nil {
			copy(jac, raw.Data[:raw.Rows*raw.Cols])
		}
	}
	return f
}

// LCQP is an instance of eq. (84): n clients with (A_i, b_i, C_i, d_i) and a
// server with (C_0, d_0).
type LCQP struct {
	Dim, N, M int
	Server    *QPParty
	Clients   []*QPParty
}

// NewLCQP draws an instance as Appendix E.2 describes: A_i = U_i D_i U_iᵀ with
// D_i ~ U[0.5, 1] on the diagonal and U_i Haar-orthogonal; C_i (i = 0..n)
// with N(0, 1/d) entries; b_i and d_i (i = 0..n) uniform on the unit sphere.
// (The authors' code zeroes d_0; we follow the paper.)
func NewLCQP(rng *rand.Rand, d, n, m int) (*LCQP, error) {
	if d < 1 || n < 1 || m < 0 {
		return nil, fmt.Errorf("problems: LCQP dims d = %d, n = %d, m = %d: need d >= 1, n >= 1, m >= 0", d, n, m)
	}
	q := &LCQP{Dim: d, N: n, M: m}
	sd := 1 / math.Sqrt(float64(d))
	newC := func() (*mat.Dense, []float64) {
		if m == 0 {
			return nil, nil
		}
		c := mat.NewDense(m, d, nil)
		raw := c.RawMatrix().Data
		for j := range raw {
			raw[j] = sd * rng.NormFloat64()
		}
		return c, sphere(rng, m)
	}
	for i := 0; i < n; i++ {
		eig := make([]float64, d)
		for j := range eig {
			eig[j] = 0.5 + 0.5*rng.Float64()
		}
		u := haar(rng, d)
		p := &QPParty{A: spectral(u, eig), B: sphere(rng, d)}
		p.C, p.D = newC()
		q.Clients = append(q.Clients, p)
	}
	q.Server = &QPParty{}
	q.Server.C, q.Server.D = newC()
	return q, nil
}

// sphere draws a point uniformly from the unit sphere in R^k.
func sphere(rng *rand.Rand, k int) []float64 {
	v := make([]float64, k)
	for {
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		if nrm := floats.Norm(v, 2); nrm > 0 {
			floats.Scale(1/nrm, v)
			return v
		}
	}
}

// UnitSphere draws a point uniformly from the unit sphere in R^k (the
// trials' starting points w0).
func UnitSphere(rng *rand.Rand, k int) []float64 { return sphere(rng, k) }

// haar draws a Haar-distributed orthogonal matrix: the Q factor of a
// Gaussian matrix with the signs of R's diagonal moved into Q.
func haar(rng *rand.Rand, d int) *mat.Dense {
	g := mat.NewDense(d, d, nil)
	raw := g.RawMatrix().Data
	for j := range raw {
		raw[j] = rng.NormFloat64()
	}
	var qr mat.QR
	qr.Factorize(g)
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	for j := 0; j < d; j++ {
		if r.At(j, j) < 0 {
			for i := 0; i < d; i++ {
				q.Set(i, j, -q.At(i, j))
			}
		}
	}
	return &q
}

// spectral returns U diag(eig) Uᵀ, symmetrised exactly.
func spectral(u *mat.Dense, eig []float64) *mat.SymDense {
	d := len(eig)
	var ud mat.Dense
	ud.Apply(func(_, j int, v float64) float64 { return v * eig[j] }, u)
	var a mat.Dense
	a.Mul(&ud, u.T())
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s.SetSym(i, j, 0.5*(a.At(i, j)+a.At(j, i)))
		}
	}
	return s
}

// Problem returns the instance as a solver problem.
func (q *LCQP) Problem() *solver.Problem {
	p := &solver.Problem{Dim: q.Dim}
	if q.Server != nil && q.Server.C != nil {
		p.Server = q.Server
	}
	for _, c := range q.Clients {
		p.Clients = append(p.Clients, c)
	}
	return p
}

// parties returns server then clients.
func (q *LCQP) parties() []*QPParty { return append([]*QPParty{q.Server}, q.Clients...) }

// Objective returns Σ_i ½wᵀA_iw + b_iᵀw.
func (q *LCQP) Objective(w []float64) float64 {
	var f float64
	for _, c := range q.Clients {
		f += c.Eval(w, nil, make([]float64, q.M), nil)
	}
	return f
}

// Violation returns max_{i=0..n} ||C_iw + d_i||_∞, Table 4's feasibility violation.
func (q *LCQP) Violation(w []float64) float64 {
	var v float64
	c := make([]float64, q.M)
	for _, p := range q.parties() {
		if p.C == nil {
			continue
		}
		p.Eval(w, nil, c, nil)
		for _, x := range c {
			v = math.Max(v, math.Abs(x))
		}
	}
	return v
}

// Exact solves the KKT system of eq. (84),
//
//	[ΣA_i  Cᵀ] [w]   [-Σb_i]
//	[C     0 ] [ν] = [-d   ],
//
// with C and d stacking all parties' constraints, and returns w* and f(w*).
func (q *LCQP) Exact() ([]float64, float64, error) {
	w, _, f, err := q.ExactKKT()
	return w, f, err
}

// ExactKKT is Exact that also returns the multipliers ν* of the stacked
// constraints (server first, then clients, m̃ each).
func (q *LCQP) ExactKKT() ([]float64, []float64, float64, error) {
	d := q.Dim
	var rows int
	for _, p := range q.parties() {
		if p.C != nil {
			rows += q.M
		}
	}
	k := mat.NewDense(d+rows, d+rows, nil)
	rhs := mat.NewVecDense(d+rows, nil)
	for _, c := range q.Clients {
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				k.Set(i, j, k.At(i, j)+c.A.At(i, j))
			}
			rhs.SetVec(i, rhs.AtVec(i)-c.B[i])
		}
	}
	q.kktConstraintRows(k, rhs)
	var x mat.VecDense
	if err := x.SolveVec(k, rhs); err != nil {
		return nil, nil, 0, fmt.Errorf("problems: KKT system of eq. (84): %w", err)
	}
	w := make([]float64, d)
	for j := range w {
		w[j] = x.AtVec(j)
	}
	nu := make([]float64, rows)
	for j := range nu {
		nu[j] = x.AtVec(d + j)
	}
	return w, nu, q.Objective(w), nil
}

// kktConstraintRows fills the constraint rows and columns of the KKT matrix
// [H Cᵀ; C 0] (rows d.. of k) and their right-hand side -d, for every party.
func (q *LCQP) kktConstraintRows(k *mat.Dense, rhs *mat.VecDense) {
	d, r := q.Dim, q.Dim
	for _, p := range q.parties() {
		if p.C == nil {
			continue
		}
		for a := 0; a < q.M; a++ {
			for j := 0; j < d; j++ {
				k.Set(r, j, p.C.At(a, j))
				k.Set(j, r, p.C.At(a, j))
			}
			rhs.SetVec(r, -p.D[a])
			r++
		}
	}
}
