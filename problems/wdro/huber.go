package wdro

import (
	"context"
	"fmt"
	"math"

	"github.com/fedcon/fedcon/solver/adlpmm"
)

// DefaultHuberEpsilon is the Huber threshold ε of the paper's experiments
// (Section 6: "a commonly used value of ε = 1.35").
const DefaultHuberEpsilon = 1.35

// Huber returns the Huber loss H_ε(t): t²/2 for |t| ≤ ε, else ε(|t| − ε/2).
func Huber(t, eps float64) float64 {
	if a := math.Abs(t); a > eps {
		return eps * (a - eps/2)
	}
	return t * t / 2
}

// huberGrad returns H_ε'(t) = clip(t, −ε, ε) by comparisons: math.Max and
// math.Min are not inlined and took 40% of a Huber fit; the value is
// theirs for every t (NaN and −0 included).
func huberGrad(t, eps float64) float64 {
	if t > eps {
		return eps
	}
	if t < -eps {
		return -eps
	}
	return t
}

// HuberLoss returns the empirical Huber loss (1/N) Σ H_ε(⟨w, x̂⟩ + b − ŷ).
func HuberLoss(c Client, v []float64, eps float64) float64 {
	var s float64
	n := len(v) - 1
	X, Y := c.X, c.Y
	i := 0
	// Four margins at a time, added in row order (as huberGradSum).
	for ; i+3 < len(X); i += 4 {
		x0, x1, x2, x3 := X[i][:n], X[i+1][:n], X[i+2][:n], X[i+3][:n]
		m0, m1, m2, m3 := v[n], v[n], v[n], v[n]
		for j, vj := range v[:n] {
			m0 += vj * x0[j]
			m1 += vj * x1[j]
			m2 += vj * x2[j]
			m3 += vj * x3[j]
		}
		s += Huber(m0-Y[i], eps)
		s += Huber(m1-Y[i+1], eps)
		s += Huber(m2-Y[i+2], eps)
		s += Huber(m3-Y[i+3], eps)
	}
	for ; i < len(X); i++ {
		s += Huber(Margin(v, X[i])-Y[i], eps)
	}
	return s / float64(len(X))
}

// MSE returns the mean squared error (1/N) Σ (⟨w, x⟩ + b − y)², NaN for no
// rows.
func MSE(X [][]float64, Y []float64, v []float64) float64 {
	if len(X) == 0 {
		return math.NaN()
	}
	var s float64
	for i, x := range X {
		e := Margin(v, x) - Y[i]
		s += e * e
	}
	return s / float64(len(X))
}

// huberLipschitz returns ‖(w, −1)‖_* = max(‖w‖∞, 1/κ), the dual norm of
// (w, −1) for the transport cost ‖x − x̂‖₁ + κ|y − ŷ| (Cor. B.1).
func huberLipschitz(v []float64, kappa float64) float64 {
	m := 1 / kappa
	for _, wj := range v[:len(v)-1] {
		m = math.Max(m, math.Abs(wj))
	}
	return m
}

// huberWorstCase returns client c's worst-case expected Huber loss over its
// Wasserstein ball and the minimising λ. With Ξ = ℝⁿ⁺¹ (Cor. B.1) the
// constraint ε‖(w, −1)‖_* ≤ λ and α_i ≥ min_μ ½μ² + ε|t_i − μ| = H_ε(t_i)
// give f_s = ρ_s ε‖(w, −1)‖_* + (1/N)Σ H_ε(t_i) at λ = ε‖(w, −1)‖_*.
// With Epigraph it is the empirical loss and λ = 0.
func huberWorstCase(c Client, m Model, v []float64) (loss, lam float64) {
	emp := HuberLoss(c, v, m.huberEps())
	if m.Epigraph {
		return emp, 0
	}
	lam = m.huberEps() * huberLipschitz(v, m.Kappa)
	return c.Rho*lam + emp, lam
}

// HuberLocal is client s's subproblem C_s of Algorithm 1 for the Huber
// model. C_s sees α_s only through r_s = ρλ + eᵀα/N, so with μ eliminated
// (min_μ ½μ² + ε|t − μ| = H_ε(t)) and λ at its least feasible value, C_s
// is
//
//	minimise ζr + (c/2)(r − z)² + (c/2)‖v̂ − a‖²  s.t.  r ≥ F(v̂),
//	a = v + ψ/c,  F(v̂) = ρε max(‖ŵ‖∞, 1/κ) + (1/N)Σ H_ε(⟨ŵ, x̂_i⟩ + b − ŷ_i),
//
// a convex quadratic constraint, which a QP cannot hold. Dualising it with
// ν ≥ 0 gives r = z + (ν − ζ)/c and v̂(ν) = prox_{(ν/c)F}(a); the residual
// φ(ν) = F(v̂(ν)) − r(ν) is decreasing (slope ≤ −1/c), φ(0) ≤ 0 means the
// constraint is slack (ν = 0, v̂ = a), and otherwise its root lies in
// [0, c·φ(0)] and is found by a safeguarded secant (Illinois) method. Each
// prox is a strongly convex composite problem in n+1 variables, solved by
// accelerated proximal gradient with the prox of the ∞-norm term in closed
// form (a clip at max(1/κ, level of the ℓ∞ prox)).
type HuberLocal struct {
	data  Client
	model Model
	c     float64
	// acc is the accuracy of |φ| and of the prox's gradient mapping.
	acc float64
	// lip is λ_max(X̃ᵀX̃)/N with X̃ = [X e], the curvature bound of the
	// mean Huber loss.
	lip   float64
	nu    float64 // last root, the secant's first guess
	iters int
	// caps counts inner solves that stopped at an iteration cap
	// (proxCap, secantCap) instead of their accuracy.
	caps, proxCap, secantCap int
	// scratch
	a, u, y, prev, g, tmp []float64
	resid                 []float64
}

var _ adlpmm.Subproblem = (*HuberLocal)(nil)

// NewHuberLocal builds C_s for client cl under the Huber model m with step
// size c > 0, solving to accuracy acc > 0 (|φ| and the prox's gradient
// mapping; the certificate of the server uses the exact F).
func NewHuberLocal(cl Client, m Model, c, acc float64) (*HuberLocal, error) {
	if err := Validate([]Client{cl}, m); err != nil {
		return nil, err
	}
	if m.Loss != LossHuber {
		return nil, inputErr("NewHuberLocal: loss %v, want huber", m.Loss)
	}
	if !(c > 0) || math.IsInf(c, 1) {
		return nil, inputErr("c = %v, want > 0", c)
	}
	if !(acc > 0) {
		return nil, inputErr("accuracy = %v, want > 0", acc)
	}
	d := len(cl.X[0]) + 1
	h := &HuberLocal{data: cl, model: m, c: c, acc: acc, lip: gramNorm(cl.X),
		proxCap: huberProxCap, secantCap: huberSecantCap}
	h.a, h.u, h.y, h.prev = make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	h.g, h.tmp, h.resid = make([]float64, d), make([]float64, d-1), make([]float64, len(cl.X))
	return h, nil
}

// gramNorm returns λ_max(X̃ᵀX̃)/N for X̃ = [X e], by power iteration
// (60 steps from e), inflated by 1% and a small floor: an upper bound is
// what the step size needs, and a slight overestimate only slows it.
func gramNorm(X [][]float64) float64 {
	d := len(X[0]) + 1
	v, w := make([]float64, d), make([]float64, d)
	for j := range v {
		v[j] = 1 / math.Sqrt(float64(d))
	}
	var lam float64
	for range 60 {
		clear(w)
		for _, x := range X {
			t := Margin(v, x)
			for j, xj := range x {
				w[j] += t * xj
			}
			w[d-1] += t
		}
		var nrm float64
		for _, wj := range w {
			nrm += wj * wj
		}
		nrm = math.Sqrt(nrm)
		if nrm == 0 {
			break
		}
		lam = nrm
		for j := range v {
			v[j] = w[j] / nrm
		}
	}
	return 1.01*lam/float64(len(X)) + 1e-12
}

// Iterations returns the proximal-gradient iterations spent so far.
func (h *HuberLocal) Iterations() int { return h.iters }

// F returns ρε max(‖ŵ‖∞, 1/κ) + (1/N)Σ H_ε(t_i) (the worst-case loss; no
// ball term for the epigraph models).
func (h *HuberLocal) F(v []float64) float64 {
	f, _ := huberWorstCase(h.data, h.model, v)
	return f
}

// Step solves C_s(v, z, ψ, ζ): see HuberLocal.
func (h *HuberLocal) Step(ctx context.Context, v []float64, z float64, psi []float64, zeta float64, vhat []float64) (r, lam float64, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	c := h.c
	for j := range h.a {
		h.a[j] = v[j] + psi[j]/c
	}
	r0 := z - zeta/c
	phi0 := h.F(h.a) - r0
	if phi0 <= 0 {
		// Slack: α can absorb the gap, ν = 0.
		copy(vhat, h.a)
		h.nu = 0
		return r0, h.lambda(vhat), nil
	}
	// fu is F(h.u) of the last φ evaluation: the reply's r, not recomputed.
	fu, evaluated := 0.0, false
	phi := func(nu float64) float64 {
		h.prox(nu / c)
		fu, evaluated = h.F(h.u), true
		return fu - (z + (nu-zeta)/c)
	}
	// Bracket [lo, hi] with φ(lo) > 0 ≥ φ(hi); φ(c·φ(0)) ≤ 0 since φ
	// falls at least as fast as ν/c.
	lo, flo := 0.0, phi0
	hi := c * phi0
	fhi := math.Inf(-1) // not evaluated yet
	nu := h.nu
	if !(nu > lo && nu < hi) {
		nu = hi
	}
	side := 0
	for it := range h.secantCap {
		f := phi(nu)
		if math.IsNaN(f) {
			return 0, 0, fmt.Errorf("wdro: huber client: non-finite residual at ν = %v", nu)
		}
		if math.Abs(f) <= h.acc || hi-lo <= 1e-15*(1+hi) {
			break
		}
		if it == h.secantCap-1 {
			h.caps++
		}
		if f > 0 {
			lo, flo = nu, f
			if side == 1 && !math.IsInf(fhi, -1) {
				fhi /= 2 // Illinois: keep the stale end from stalling
			}
			side = 1
		} else {
			hi, fhi = nu, f
			if side == -1 {
				flo /= 2
			}
			side = -1
		}
		if math.IsInf(fhi, -1) {
			// hi is only a bound: step by the secant slope −1/c bound.
			nu = math.Min(lo+c*flo, (lo+hi)/2)
			if nu <= lo {
				nu = (lo + hi) / 2
			}
			continue
		}
		nu = lo + flo*(hi-lo)/(flo-fhi)
		if !(nu > lo && nu < hi) {
			nu = (lo + hi) / 2
		}
	}
	h.nu = nu
	copy(vhat, h.u)
	if !evaluated {
		fu = h.F(vhat)
	}
	return fu, h.lambda(vhat), nil
}

// Iteration caps of the inner solvers; a solve that reaches one is counted
// (CapHits) and reported, not hidden.
const (
	huberSecantCap = 200
	huberProxCap   = 100000
)

// CapHits returns how many inner solves stopped at an iteration cap.
func (h *HuberLocal) CapHits() int { return h.caps }

// lambda returns λ_s at v̂: ε max(‖ŵ‖∞, 1/κ), its least feasible value
// (any larger one only raises r), and 0 for the epigraph models.
func (h *HuberLocal) lambda(v []float64) float64 {
	if h.model.Epigraph {
		return 0
	}
	return h.model.huberEps() * huberLipschitz(v, h.model.Kappa)
}

// prox writes into h.u the minimiser of τF(u) + ½‖u − a‖², warm-started
// from h.u, by accelerated proximal gradient for a 1-strongly convex
// objective (constant momentum (√L − 1)/(√L + 1)), stopping when the
// gradient mapping is ≤ acc/10·max(1, ‖a‖∞) in ∞-norm.
func (h *HuberLocal) prox(tau float64) {
	L := 1 + tau*h.lip
	step := 1 / L
	beta := (math.Sqrt(L) - 1) / (math.Sqrt(L) + 1)
	eps := h.model.huberEps()
	N := float64(len(h.data.X))
	copy(h.y, h.u)
	copy(h.prev, h.u)
	// Relative to a: with a tiny c, a = v + ψ/c is large and an absolute
	// tolerance would fall below one ulp of it.
	var an float64
	for _, v := range h.a {
		an = math.Max(an, math.Abs(v))
	}
	tol := h.acc / 10 * math.Max(1, an)
	tn := tau / N
	for range h.proxCap {
		h.iters++
		// g = ∇(smooth part) at y: τ/N Σ H'(t_i) x̃_i + (y − a).
		huberGradSum(h.g, h.y, h.data.X, h.data.Y, tn, eps)
		var gm float64
		for j := range h.u {
			h.g[j] += h.y[j] - h.a[j]
			h.u[j] = h.y[j] - step*h.g[j]
		}
		h.proxBall(h.u, step*tau)
		for j := range h.u {
			// math.Max's value, NaN kept, without its call.
			if d := math.Abs(h.u[j] - h.y[j]); d > gm || d != d {
				gm = d
			}
		}
		if gm*L <= tol {
			return
		}
		for j := range h.u {
			h.y[j] = h.u[j] + beta*(h.u[j]-h.prev[j])
			h.prev[j] = h.u[j]
		}
	}
	h.caps++ // stopped by the cap, not the tolerance
}

// proxBall applies in place the prox of s·ρε·max(‖w‖∞, 1/κ) to the w part
// of u (b is not transported): a clip of w at T = max(1/κ, T*), T* the
// level of the prox of the plain ∞-norm (0 if ‖w‖₁ ≤ sρε).
func (h *HuberLocal) proxBall(u []float64, s float64) {
	m := h.model
	if m.Epigraph || h.data.Rho == 0 {
		return
	}
	w := u[:len(u)-1]
	adlpmm.ProxDualNorm(h.tmp, w, s*h.data.Rho*m.huberEps(), 1)
	T := 1 / m.Kappa
	for _, v := range h.tmp {
		T = math.Max(T, math.Abs(v))
	}
	for j, v := range w {
		w[j] = math.Max(-T, math.Min(T, v))
	}
}

// huberGradSum writes g = tn Σ_i H_ε'(⟨w, x_i⟩ + b − y_i)(x_i, 1) for
// v = (w, b), four rows at a time: each margin and each sum into g_j takes
// its terms in the order of Margin and of a row-by-row loop, so the result
// is that loop's to the last bit, while the rows' independent chains of
// additions overlap (the loop is latency-bound: twice as fast on abalone).
func huberGradSum(g, v []float64, X [][]float64, Y []float64, tn, eps float64) {
	n := len(v) - 1
	g, v = g[:n+1], v[:n+1]
	clear(g)
	i := 0
	for ; i+3 < len(X); i += 4 {
		x0, x1, x2, x3 := X[i][:n], X[i+1][:n], X[i+2][:n], X[i+3][:n]
		m0, m1, m2, m3 := v[n], v[n], v[n], v[n]
		for j, vj := range v[:n] {
			m0 += vj * x0[j]
			m1 += vj * x1[j]
			m2 += vj * x2[j]
			m3 += vj * x3[j]
		}
		g0 := tn * huberGrad(m0-Y[i], eps)
		g1 := tn * huberGrad(m1-Y[i+1], eps)
		g2 := tn * huberGrad(m2-Y[i+2], eps)
		g3 := tn * huberGrad(m3-Y[i+3], eps)
		for j := range x0 {
			g[j] = g[j] + g0*x0[j] + g1*x1[j] + g2*x2[j] + g3*x3[j]
		}
		g[n] = g[n] + g0 + g1 + g2 + g3
	}
	for ; i+1 < len(X); i += 2 {
		x0, x1 := X[i][:n], X[i+1][:n]
		m0, m1 := v[n], v[n]
		for j, vj := range v[:n] {
			m0 += vj * x0[j]
			m1 += vj * x1[j]
		}
		g0 := tn * huberGrad(m0-Y[i], eps)
		g1 := tn * huberGrad(m1-Y[i+1], eps)
		for j := range x0 {
			g[j] = g[j] + g0*x0[j] + g1*x1[j]
		}
		g[n] = g[n] + g0 + g1
	}
	for ; i < len(X); i++ {
		x := X[i][:n]
		gi := tn * huberGrad(Margin(v, x)-Y[i], eps)
		for j, xj := range x {
			g[j] += gi * xj
		}
		g[n] += gi
	}
}
