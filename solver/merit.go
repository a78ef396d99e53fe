package solver

import (
	"fmt"

	"github.com/fedcon/fedcon/internal/kernels"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// merit is one party's term of the proximal AL subproblem:
//
//	P(w) = f(w) + (1/2β)(||Proj_{K*}(μ + βc(w))||² - ||μ||²) + (prox/2)||w - center||²,
//
// which is P_{i,k} of eqs. (13)-(14) with prox = 1/((n+1)β), or one party's
// share of Algorithm 3's ℓ_k with prox = 0. A nil party is the server
// without a global constraint: P is the proximal share alone.
type merit struct {
	party  Party
	cone   Cone
	d, m   int
	beta   float64
	prox   float64
	mu     []float64 // μ^k (owned)
	center []float64 // w^k (owned)

	// The last party evaluation, reused where the paper needs several
	// quantities at one point (one pass over the data), and where Newton
	// asks for the Hessian at the point its line search just evaluated.
	evalSlot
	// The evaluation before it. An Algorithm 2 client evaluates at w^{t+1}
	// for ε̃ of (22), then its local solve starts at u_i^t, where the
	// previous step's solve ended: with two slots that pass is saved.
	prev evalSlot

	y      []float64 // Proj_{K*}(μ + βc) of the last alTerm
	hscr   []float64 // scratch of addJacobianTerm
	evals  int64     // party evaluations (passes over its data)
	hevals int64     // Hessian evaluations (one more pass each)
}

// evalSlot holds one party evaluation at w: f, ∇f (if withGrad), c and
// the Jacobian; ok is false until an evaluation succeeded.
type evalSlot struct {
	f            float64
	gf, c, jac   []float64
	w            []float64
	withGrad, ok bool
	// owed marks a slot restored from a checkpoint: w and withGrad are
	// those of the lost node's evaluation, the values are not kept.
	owed bool
}

func newMerit(p Party, d int, beta, prox float64, mu0 []float64) *merit {
	var k Cone
	if p != nil {
		k = p.Cone()
	}
	m := coneDim(k)
	mt := &merit{
		party: p, cone: k, d: d, m: m, beta: beta, prox: prox,
		mu: make([]float64, m), center: make([]float64, d), y: make([]float64, m),
		evalSlot: evalSlot{gf: make([]float64, d), c: make([]float64, m), jac: make([]float64, m*d)},
		prev:     evalSlot{gf: make([]float64, d), c: make([]float64, m), jac: make([]float64, m*d)},
	}
	copy(mt.mu, mu0)
	return mt
}

// eval evaluates the party at w, keeping f, ∇f, c and the Jacobian.
func (p *merit) eval(w []float64, withGrad bool) error {
	if p.holds(w, withGrad) {
		return nil
	}
	if p.owes(w, withGrad) {
		return p.evalAt(w, p.withGrad, false)
	}
	// Either the previous slot holds w, or the new evaluation overwrites
	// it and the last one becomes the previous.
	p.evalSlot, p.prev = p.prev, p.evalSlot
	if p.holds(w, withGrad) {
		return nil
	}
	if p.owes(w, withGrad) {
		return p.evalAt(w, p.withGrad, false)
	}
	return p.evalAt(w, withGrad, true)
}

// evalAt evaluates the party at w into the current slot; count is false
// for the evaluation that a restored node owes its cache (the lost node
// had it, and had counted it).
func (p *merit) evalAt(w []float64, withGrad, count bool) error {
	p.ok, p.owed = false, false
	if count {
		p.evals++
	}
	if p.party == nil {
		p.f = 0
		if withGrad {
			clear(p.gf)
		}
		return nil
	}
	var g, jac []float64
	if withGrad {
		g, jac = p.gf, p.jac
	}
	p.f = p.party.Eval(w, g, p.c, jac)
	if !finiteScalar(p.f) || !finite(p.c) || (withGrad && (!finite(g) || !finite(jac))) {
		return fmt.Errorf("%w: party returned NaN or Inf", ErrNonFinite)
	}
	if p.w == nil {
		p.w = make([]float64, p.d)
	}
	copy(p.w, w)
	p.withGrad, p.ok = withGrad, true
	return nil
}

// owes reports whether the current slot is a restored one (its point
// known, its values not) that would have held w.
func (p *merit) owes(w []float64, withGrad bool) bool {
	return p.owed && (p.withGrad || !withGrad) && equal(w, p.w)
}

// holds reports whether the last evaluation is at w (with a gradient if
// withGrad).
func (p *merit) holds(w []float64, withGrad bool) bool {
	return p.ok && (p.withGrad || !withGrad) && equal(w, p.w)
}

// active reports whether orthant term j of the AL is on at the last
// evaluation: (μ + βc)_j > 0, where its curvature β∇c_j∇c_jᵀ counts.
func (p *merit) active(j int) bool { return p.mu[j]+p.beta*p.c[j] > 0 }

// alTerm computes y = Proj_{K*}(μ + βc) from the last evaluation and returns
// (1/2β)(||y||² - ||μ||²).
func (p *merit) alTerm() float64 {
	if p.m == 0 {
		return 0
	}
	for j := range p.y {
		p.y[j] = p.mu[j] + p.beta*p.c[j]
	}
	p.cone.ProjectDual(p.y, p.y)
	return (floats.Dot(p.y, p.y) - floats.Dot(p.mu, p.mu)) / (2 * p.beta)
}

// funcGrad returns P(w) and writes ∇P(w) into grad (if non-nil).
func (p *merit) funcGrad(w, grad []float64) (float64, error) {
	if err := p.eval(w, grad != nil); err != nil {
		return 0, err
	}
	v := p.f + p.alTerm()
	if p.prox != 0 {
		v += p.prox / 2 * sqDist(w, p.center)
	}
	if grad != nil {
		p.gradFromEval(w, grad)
	}
	return v, nil
}

// gradFromEval writes ∇P(w) = ∇f + ∇c·y + prox(w - center) into grad from
// the last evaluation (at w) and the last alTerm.
func (p *merit) gradFromEval(w, grad []float64) {
	copy(grad, p.gf)
	if p.m > 0 {
		// grad += Jᵀ y (J row-major m×d).
		blas64.Gemv(blasTrans, 1, blas64.General{Rows: p.m, Cols: p.d, Stride: p.d, Data: p.jac},
			blas64.Vector{N: p.m, Inc: 1, Data: p.y}, 1, blas64.Vector{N: p.d, Inc: 1, Data: grad})
	}
	if p.prox != 0 {
		for j := range grad {
			grad[j] += p.prox * (w[j] - p.center[j])
		}
	}
}

// updateMultiplier sets μ ← Proj_{K*}(μ + βc(w)) from the last evaluation
// (at w^{k+1}) and returns ||μ^{k+1} - μ^k||_∞.
func (p *merit) updateMultiplier() float64 { return p.relaxMultiplier(1) }

// relaxMultiplier computes μ^{k+1} = Proj_{K*}(μ^k + βc(w)) from the last
// evaluation (at w^{k+1}), sets μ to the relaxed point
// Proj_{K*}(μ^k + λ(μ^{k+1} - μ^k)) (μ^{k+1} itself when λ = 1) and returns
// ||μ^{k+1} - μ^k||_∞, the step of test (11).
func (p *merit) relaxMultiplier(lambda float64) float64 {
	if p.m == 0 {
		return 0
	}
	p.alTerm() // y = Proj_{K*}(μ + βc)
	var step float64
	for j := range p.mu {
		step = max(step, abs(p.y[j]-p.mu[j]))
		if lambda == 1 {
			p.mu[j] = p.y[j]
		} else {
			p.mu[j] += lambda * (p.y[j] - p.mu[j])
		}
	}
	if lambda != 1 {
		p.cone.ProjectDual(p.mu, p.mu)
	}
	return step
}

// relaxCenter sets the proximal centre w^k to w^k + λ(w - w^k).
func relaxCenter(center, w []float64, lambda float64) {
	if lambda == 1 {
		copy(center, w)
		return
	}
	for j := range center {
		center[j] += lambda * (w[j] - center[j])
	}
}

// lagrangianGrad writes ∇f(w) + ∇c(w)μ into grad from the last evaluation
// (with gradient) and returns dist_∞(c(w), N_{K*}(μ)): Definition 1 per party.
func (p *merit) lagrangianGrad(grad []float64) float64 {
	copy(grad, p.gf)
	if p.m == 0 {
		return 0
	}
	blas64.Gemv(blasTrans, 1, blas64.General{Rows: p.m, Cols: p.d, Stride: p.d, Data: p.jac},
		blas64.Vector{N: p.m, Inc: 1, Data: p.mu}, 1, blas64.Vector{N: p.d, Inc: 1, Data: grad})
	return p.cone.NormalDist(p.c, p.mu)
}

// value returns the last f and a copy of the last c.
func (p *merit) value() PartyValue {
	return PartyValue{F: p.f, C: append([]float64(nil), p.c...)}
}

// subproblem is φ(u) = Σ_j P_j(u) + (σ/2)||u - z||²: every subproblem of
// Algorithms 1-3 has this form — (18) with σ = Σρ_i and z = Σρ_iũ_i/σ, (19)
// with σ = ρ_i and z = w^{t+1} - λ_i/ρ_i, Algorithm 3's ℓ_k with σ = 1/β and
// z = w^k (its merits then have prox = 0).
type subproblem struct {
	merits []*merit
	sigma  float64
	// metric, if non-nil, replaces σI by a positive definite d×d matrix S
	// (row-major, full): the term is ½(u - z)ᵀS(u - z) (RhoHessian).
	metric []float64
	mscr   []float64 // scratch: u - z, then S(u - z)
	z      []float64
	g      []float64 // scratch
	small  []float64 // scratch of the low-rank exact solve
	g32    []float64 // g rounded to float32 (held widened): the mixed-precision solve
	err    error     // first evaluation error (smooth solvers cannot return one)
	corr   corrState // Newton's second-order correction (corrector)
}

func newSubproblem(d int, ms ...*merit) *subproblem {
	return &subproblem{merits: ms, z: make([]float64, d), g: make([]float64, d)}
}

// FuncGrad implements SmoothFunc.
func (s *subproblem) FuncGrad(u, grad []float64) float64 {
	var v float64
	if grad != nil {
		clear(grad)
	}
	for _, m := range s.merits {
		var g []float64
		if grad != nil {
			g = s.g
		}
		pv, err := m.funcGrad(u, g)
		if err != nil {
			if s.err == nil {
				s.err = err
			}
			return nan()
		}
		v += pv
		if grad != nil {
			floats.Add(grad, g)
		}
	}
	if s.metric != nil {
		d := len(u)
		if len(s.mscr) < 2*d {
			s.mscr = make([]float64, 2*d)
		}
		diff, sd := s.mscr[:d], s.mscr[d:2*d]
		floats.SubTo(diff, u, s.z)
		symv(s.metric, diff, sd)
		v += floats.Dot(diff, sd) / 2
		if grad != nil {
			floats.Add(grad, sd)
		}
		return v
	}
	if s.sigma != 0 {
		v += s.sigma / 2 * sqDist(u, s.z)
		if grad != nil {
			for j := range grad {
				grad[j] += s.sigma * (u[j] - s.z[j])
			}
		}
	}
	return v
}

// passes returns the passes over the party's data: evaluations and
// Hessians (one more pass each).
func (p *merit) passes() int64 { return p.evals + p.hevals }

func (s *subproblem) evals() int64 {
	var n int64
	for _, m := range s.merits {
		n += m.passes()
	}
	return n
}

// symv sets y = S x for the full row-major d×d matrix S.
func symv(s, x, y []float64) {
	d := len(x)
	clear(y[:d])
	kernels.Gemv(1, s, d, x, y[:d])
}
