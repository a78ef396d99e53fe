package problems

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/solver"
)

// Ball is the norm-ball constraint ||Gw - h||₂ <= T, declared as
// c(w) = (-T, h - Gw) ∈ -K with K the second-order cone soc(1+rows)
// (scalar first): an affine map into a non-polyhedral cone.
type Ball struct {
	G *mat.Dense // rows × d
	H []float64  // length rows
	T float64    // radius, >= 0
}

// BallQPParty is a party of eq. (25) with a norm ball: f(w) = ½wᵀAw + bᵀw,
// the equalities Cw + d = 0 (zero cone) and Ball (second-order cone), so
//
//	c(w) = (Cw + d, -T, h - Gw) ∈ -(zero(m) × soc(1+rows)).
//
// It is not a solver.QuadraticParty: its subproblems are not linear systems
// (the AL term has a second-order-cone projection), so the solver takes the
// smooth path, where Newton's method uses the cone's Jacobian.
type BallQPParty struct {
	QP   *QPParty
	Ball *Ball
}

var _ solver.HessianParty = (*BallQPParty)(nil)

func (p *BallQPParty) eqRows() int {
	if p.QP.C == nil {
		return 0
	}
	r, _ := p.QP.C.Dims()
	return r
}

// Cone implements solver.Party: zero(m) × soc(1+rows), or soc(1+rows) alone.
func (p *BallQPParty) Cone() solver.Cone {
	r, _ := p.Ball.G.Dims()
	soc := solver.SOC(1 + r)
	if m := p.eqRows(); m > 0 {
		return solver.Product{solver.Zero(m), soc}
	}
	return soc
}

// Eval implements solver.Party.
func (p *BallQPParty) Eval(w, grad, c, jac []float64) float64 {
	m, d := p.eqRows(), len(w)
	var jq []float64
	if jac != nil {
		jq = jac[:m*d]
	}
	f := p.QP.Eval(w, grad, c[:m], jq)
	raw := p.Ball.G.RawMatrix()
	c[m] = -p.Ball.T
	for i := 0; i < raw.Rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		c[m+1+i] = p.Ball.H[i] - floats.Dot(row, w)
	}
	if jac != nil {
		clear(jac[m*d : (m+1)*d])
		for i := 0; i < raw.Rows; i++ {
			dst := jac[(m+1+i)*d : (m+2+i)*d]
			floats.ScaleTo(dst, -1, raw.Data[i*raw.Stride:i*raw.Stride+d])
		}
	}
	return f
}

// Hessian implements solver.HessianParty: A (the constraints are affine).
func (p *BallQPParty) Hessian(dst *mat.SymDense, _, _ []float64) {
	if p.QP.A != nil {
		dst.AddSym(dst, p.QP.A)
	}
}

// BallViolation returns max(0, ||Gw - h||₂ - T).
func (b *Ball) BallViolation(w []float64) float64 {
	r, _ := b.G.Dims()
	v := mat.NewVecDense(r, nil)
	v.MulVec(b.G, mat.NewVecDense(len(w), w))
	var s float64
	for i := 0; i < r; i++ {
		e := v.AtVec(i) - b.H[i]
		s += e * e
	}
	return math.Max(0, math.Sqrt(s)-b.T)
}

// BallSpec says which parties of a conic QP get a norm ball, and how it is drawn.
type BallSpec struct {
	// Rows of G (0: no ball anywhere).
	Rows int
	// Server and Clients select the parties with a ball.
	Server, Clients bool
	// Ratio in (0, 1) sets the radius T = Ratio·||G(w_eq - w_f)||₂ (see NewConicQP).
	Ratio float64
}

// ConicQP is an instance of eq. (25), optionally with norm balls.
type ConicQP struct {
	*LCQP
	// Balls[i] is party i's ball (0 = server), nil for none.
	Balls []*Ball
}

// NewConicQP draws an instance of eq. (25) as Section 5.1 describes: A_i =
// U_i D_i U_iᵀ with D_i's diagonal ~ U[5, 10] and U_i Haar-orthogonal; b_i
// (i = 1..n), C_i and d_i (i = 0..n) with N(0, 1) entries. The server's
// objective is zero.
//
// Balls (not in the paper; issue #7): for each selected party, G has N(0,
// 1/d) entries, h = G w_f and T = Ratio·||G(w_eq - w_f)||₂, where w_f is the
// minimum-norm point of the equalities and w_eq the optimum of eq. (25)
// without balls. So w_f is strictly feasible (Slater's condition, hence
// Assumption 1(c)) and w_eq violates every ball when Ratio < 1.
func NewConicQP(rng *rand.Rand, d, n, m int, ball BallSpec) (*ConicQP, error) {
	if d < 1 || n < 1 || m < 0 {
		return nil, fmt.Errorf("problems: conic QP dims d = %d, n = %d, m = %d: need d >= 1, n >= 1, m >= 0", d, n, m)
	}
	if ball.Rows < 0 || (ball.Rows > 0 && !(ball.Ratio > 0 && ball.Ratio < 1)) {
		return nil, fmt.Errorf("problems: ball rows %d, ratio %v: need rows >= 0 and ratio in (0, 1)", ball.Rows, ball.Ratio)
	}
	normal := func(k int) []float64 {
		v := make([]float64, k)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		return v
	}
	newC := func() (*mat.Dense, []float64) {
		if m == 0 {
			return nil, nil
		}
		return mat.NewDense(m, d, normal(m*d)), normal(m)
	}
	q := &LCQP{Dim: d, N: n, M: m, Server: &QPParty{}}
	q.Server.C, q.Server.D = newC()
	for i := 0; i < n; i++ {
		eig := make([]float64, d)
		for j := range eig {
			eig[j] = 5 + 5*rng.Float64()
		}
		p := &QPParty{A: spectral(haar(rng, d), eig), B: normal(d)}
		p.C, p.D = newC()
		q.Clients = append(q.Clients, p)
	}
	cq := &ConicQP{LCQP: q, Balls: make([]*Ball, n+1)}
	if ball.Rows == 0 || !(ball.Server || ball.Clients) {
		return cq, nil
	}
	weq, _, _, err := q.ExactKKT()
	if err != nil {
		return nil, err
	}
	wf, err := q.minNormFeasible()
	if err != nil {
		return nil, err
	}
	diff := make([]float64, d)
	floats.SubTo(diff, weq, wf)
	sd := 1 / math.Sqrt(float64(d))
	for i := 0; i <= n; i++ {
		if (i == 0 && !ball.Server) || (i > 0 && !ball.Clients) {
			continue
		}
		g := normal(ball.Rows * d)
		floats.Scale(sd, g)
		b := &Ball{G: mat.NewDense(ball.Rows, d, g), H: make([]float64, ball.Rows)}
		hv := mat.NewVecDense(ball.Rows, b.H)
		hv.MulVec(b.G, mat.NewVecDense(d, wf))
		gd := mat.NewVecDense(ball.Rows, nil)
		gd.MulVec(b.G, mat.NewVecDense(d, diff))
		b.T = ball.Ratio * mat.Norm(gd, 2)
		if b.T == 0 {
			b.T = ball.Ratio
		}
		cq.Balls[i] = b
	}
	return cq, nil
}

// minNormFeasible returns the minimum-norm w with C_iw + d_i = 0 for all
// parties: w = Cᵀ(CCᵀ)⁻¹(-d) with C, d stacked.
func (q *LCQP) minNormFeasible() ([]float64, error) {
	var rows [][]float64
	var rhs []float64
	for _, p := range q.parties() {
		if p.C == nil {
			continue
		}
		r, _ := p.C.Dims()
		for a := 0; a < r; a++ {
			rows = append(rows, p.C.RawRowView(a))
			rhs = append(rhs, -p.D[a])
		}
	}
	w := make([]float64, q.Dim)
	if len(rows) == 0 {
		return w, nil
	}
	c := mat.NewDense(len(rows), q.Dim, nil)
	for a, r := range rows {
		c.SetRow(a, r)
	}
	var cct mat.SymDense
	cct.SymOuterK(1, c)
	var y mat.VecDense
	var chol mat.Cholesky
	if !chol.Factorize(&cct) {
		return nil, fmt.Errorf("problems: stacked equality constraints of eq. (25) are rank deficient")
	}
	if err := chol.SolveVecTo(&y, mat.NewVecDense(len(rhs), rhs)); err != nil {
		return nil, fmt.Errorf("problems: min-norm feasible point: %w", err)
	}
	wv := mat.NewVecDense(q.Dim, w)
	wv.MulVec(c.T(), &y)
	return w, nil
}

// party returns party i (0 = server) as a solver party: the QP party itself
// when it has no ball (its subproblems stay exact linear solves).
func (cq *ConicQP) party(i int) solver.Party {
	qp := cq.Server
	if i > 0 {
		qp = cq.Clients[i-1]
	}
	if b := cq.Balls[i]; b != nil {
		return &BallQPParty{QP: qp, Ball: b}
	}
	if i == 0 && qp.C == nil {
		return nil
	}
	return qp
}

// Problem returns the instance as a solver problem.
func (cq *ConicQP) Problem() *solver.Problem {
	p := &solver.Problem{Dim: cq.Dim}
	if s := cq.party(0); s != nil {
		p.Server = s
	}
	for i := range cq.Clients {
		p.Clients = append(p.Clients, cq.party(i+1))
	}
	return p
}

// NumBalls is the number of parties with a ball.
func (cq *ConicQP) NumBalls() int {
	var k int
	for _, b := range cq.Balls {
		if b != nil {
			k++
		}
	}
	return k
}

// Violation returns max_i dist_∞(c_i(w), -K_i) over the server and the
// clients: max_i ||C_iw + d_i||_∞ for the equalities of eq. (25) (Table 1's
// feasibility violation), and for a ball dist_∞((-T, h - Gw), -soc).
func (cq *ConicQP) Violation(w []float64) float64 {
	var v float64
	for i := 0; i <= cq.N; i++ {
		p := cq.party(i)
		if p == nil || p.Cone() == nil {
			continue
		}
		k := p.Cone()
		c := make([]float64, k.Dim())
		p.Eval(w, nil, c, nil)
		v = math.Max(v, solver.Violation(k, c))
	}
	return v
}

// ExactSingleBall solves eq. (25) with at most one ball to high accuracy,
// independently of the solver package: for the ball's multiplier λ >= 0,
// w(λ) and ν(λ) solve the linear KKT system
//
//	[ΣA_i + λGᵀG  Cᵀ] [w]   [-Σb_i + λGᵀh]
//	[C            0 ] [ν] = [-d          ],
//
// and ψ(λ) = ||Gw(λ) - h|| - T is nonincreasing; λ* = 0 if ψ(0) <= 0, else
// the root of ψ, found by bisection to rounding. It returns w*, λ* and f(w*).
func (cq *ConicQP) ExactSingleBall() ([]float64, float64, float64, error) {
	var ball *Ball
	for _, b := range cq.Balls {
		if b != nil {
			if ball != nil {
				return nil, 0, 0, fmt.Errorf("problems: ExactSingleBall: %d balls", cq.NumBalls())
			}
			ball = b
		}
	}
	if ball == nil {
		w, _, f, err := cq.ExactKKT()
		return w, 0, f, err
	}
	solve := func(lambda float64) ([]float64, float64, error) {
		w, err := cq.kktWithBall(ball, lambda)
		if err != nil {
			return nil, 0, err
		}
		return w, ballGap(ball, w), nil
	}
	w, psi, err := solve(0)
	if err != nil {
		return nil, 0, 0, err
	}
	if psi <= 0 {
		return w, 0, cq.Objective(w), nil
	}
	lo, hi := 0.0, 1.0
	for {
		if _, psi, err = solve(hi); err != nil {
			return nil, 0, 0, err
		}
		if psi <= 0 {
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1e300 {
			return nil, 0, 0, fmt.Errorf("problems: ExactSingleBall: no multiplier found (infeasible ball?)")
		}
	}
	for it := 0; it < 200; it++ {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if _, psi, err = solve(mid); err != nil {
			return nil, 0, 0, err
		}
		if psi > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	w, _, err = solve(hi)
	if err != nil {
		return nil, 0, 0, err
	}
	return w, hi, cq.Objective(w), nil
}

// ballGap is ||Gw - h|| - T (negative inside the ball).
func ballGap(b *Ball, w []float64) float64 {
	r, _ := b.G.Dims()
	v := mat.NewVecDense(r, nil)
	v.MulVec(b.G, mat.NewVecDense(len(w), w))
	for i := 0; i < r; i++ {
		v.SetVec(i, v.AtVec(i)-b.H[i])
	}
	return mat.Norm(v, 2) - b.T
}

// kktWithBall solves the linear KKT system of ExactSingleBall at λ.
func (cq *ConicQP) kktWithBall(b *Ball, lambda float64) ([]float64, error) {
	d := cq.Dim
	var rows int
	for _, p := range cq.parties() {
		if p.C != nil {
			rows += cq.M
		}
	}
	k := mat.NewDense(d+rows, d+rows, nil)
	rhs := mat.NewVecDense(d+rows, nil)
	for _, c := range cq.Clients {
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				k.Set(i, j, k.At(i, j)+c.A.At(i, j))
			}
			rhs.SetVec(i, rhs.AtVec(i)-c.B[i])
		}
	}
	var gtg mat.SymDense
	gtg.SymOuterK(lambda, b.G.T())
	gth := mat.NewVecDense(d, nil)
	gth.MulVec(b.G.T(), mat.NewVecDense(len(b.H), b.H))
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			k.Set(i, j, k.At(i, j)+gtg.At(i, j))
		}
		rhs.SetVec(i, rhs.AtVec(i)+lambda*gth.AtVec(i))
	}
	cq.kktConstraintRows(k, rhs)
	var x mat.VecDense
	if err := x.SolveVec(k, rhs); err != nil {
		return nil, fmt.Errorf("problems: KKT system of eq. (25) with a ball: %w", err)
	}
	w := make([]float64, d)
	for j := range w {
		w[j] = x.AtVec(j)
	}
	return w, nil
}
