// Package recheck recomputes, for `fedcon check`, the objective, the
// constraints and Definition 1's KKT residuals of a classification trial at
// its stored point (w, μ). It is deliberately plain: float64 loops over the
// rows, in row order, with no code shared with solver/, problems/ or
// internal/kernels, so that a bug there cannot hide in both the run and the
// gate.
//
// Definition 1 (core paper): (w, μ) is an (ε1, ε2)-KKT point when
//
//	dist_∞(0, Σ_i ∇f_i(w) + ∇c_i(w)μ_i) <= ε1 and
//	max_i dist_∞(c_i(w), N_{K_i*}(μ_i)) <= ε2,
//
// with K_i = R^m_+ for the classification problems (every constraint is
// c <= 0), so μ_i >= 0 and N_{K*}(μ_ij) = {0} when μ_ij > 0, (-∞, 0] when
// μ_ij = 0; K_i = {0} for the QP's equalities c = 0, so μ_i is free,
// N_{K*}(μ_i) = {0} and the feasibility residual is ||c_i||_∞; and the
// second-order cone for a norm ball (SOCNormalDist), whose normal cone is
// -K, {0} or a ray as μ_i is 0, interior or on the boundary.
//
// It also solves what the gate compares runs with: the equality QP
// (EqQP; with one norm ball, EqQPBall; with several, EqQPBalls), the partitioned Neyman-Pearson problem (NPReference, a log
// barrier), and evaluates the SSCA network at stored weights (SwishEval).
package recheck

import (
	"errors"
	"fmt"
	"math"
)

// Gamma is the rounding bound of a recomputation against the run's own
// values: two float64 evaluations of the same sums in another order and
// with other kernels differ by at most about (m + d + c)·u times the sum of
// the magnitudes of their terms (u = 2^-53 ≈ 1.1e-16; m rows, d features,
// c a few ulps for exp/log1p). The largest cell has m < 5·10^4 rows and
// d < 130, so (m + d + c)·u < 6e-12; Gamma leaves a margin of about 20 for
// the margins wᵀx, whose error grows with ||w||₁. An edited w or μ moves the
// residuals by many orders more.
const Gamma = 1e-10

// Party is one party's values at a point: f_i(w), ∇f_i(w), c_i(w) and the
// gradients ∇c_ij(w) (one row per constraint). Each constraint is
// c_ij <= 0, or c_ij = 0 when Eq; Blocks, when set, give the cones of
// consecutive constraints instead (their Dims sum to len(C)).
type Party struct {
	F      float64
	Grad   []float64
	C      []float64
	Jac    [][]float64
	Eq     bool
	Blocks []Block
}

// blocks returns p.Blocks, or one block of every constraint in the
// orthant (the zero cone when Eq).
func (p Party) blocks() []Block {
	if p.Blocks != nil {
		return p.Blocks
	}
	if p.Eq {
		return []Block{{ZeroCone, len(p.C)}}
	}
	return []Block{{Orthant, len(p.C)}}
}

// Violation is max over the party's blocks of dist_∞(c, -K): how far c_i(w)
// is from c_i(w) ∈ -K_i (Definition 1's residual at μ = 0).
func (p Party) Violation() float64 {
	var v float64
	at := 0
	for _, b := range p.blocks() {
		c := p.C[at : at+b.Dim]
		at += b.Dim
		switch b.Kind {
		case Orthant:
			for _, x := range c {
				v = math.Max(v, x)
			}
		case ZeroCone:
			v = math.Max(v, normInf(c))
		case SecondOrder:
			v = math.Max(v, SOCPolarDist(c))
		}
	}
	return v
}

// Softplus is log(1 + e^z) without overflow: z + log1p(e^-z) for z > 0.
func Softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// Sigmoid is 1/(1 + e^-z) without overflow.
func Sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Logistic returns the mean logistic loss of eq. (31),
// φ(w; x, y) = log(1 + e^{wᵀx}) - y·wᵀx, over rows x[k] with labels y[k],
// and its gradient (mean of (σ(wᵀx) - y)·x). No rows: 0 and a zero gradient.
func Logistic(x [][]float64, y []float64, w []float64) (float64, []float64) {
	g := make([]float64, len(w))
	if len(x) == 0 {
		return 0, g
	}
	var sum float64
	for k, row := range x {
		var z float64
		for j, v := range row {
			z += w[j] * v
		}
		sum += Softplus(z) - y[k]*z
		s := Sigmoid(z) - y[k]
		for j, v := range row {
			g[j] += s * v
		}
	}
	inv := 1 / float64(len(x))
	for j := range g {
		g[j] *= inv
	}
	return sum * inv, g
}

// labels returns m copies of y.
func labels(m int, y float64) []float64 {
	out := make([]float64, m)
	for k := range out {
		out[k] = y
	}
	return out
}

// NP is client i of the Neyman-Pearson problem, eq. (30), with n clients:
// f_i = L0/n with L0 the mean class-0 loss, c_i = L1 - r with L1 the mean
// class-1 loss. It also returns L0 and L1.
func NP(class0, class1 [][]float64, n int, r float64, w []float64) (p Party, l0, l1 float64) {
	l0, g0 := Logistic(class0, labels(len(class0), 0), w)
	l1, g1 := Logistic(class1, labels(len(class1), 1), w)
	for j := range g0 {
		g0[j] /= float64(n)
	}
	return Party{F: l0 / float64(n), Grad: g0, C: []float64{l1 - r}, Jac: [][]float64{g1}}, l0, l1
}

// Fair is party i of the fairness problem, eq. (32): rows x with labels y
// and sensitive group g (0 or 1); f_i = scale·(mean loss over all rows)
// (scale 1/n for a client, 0 for the server), L_g the mean loss over group
// g's rows, c_i = (L_0 - L_1 - r, L_1 - L_0 - r). It also returns the mean
// loss and the disparity |L_0 - L_1|.
func Fair(x [][]float64, y []float64, g []int, scale, r float64, w []float64) (p Party, loss, disparity float64) {
	var x0, x1 [][]float64
	var y0, y1 []float64
	for k := range x {
		if g[k] == 0 {
			x0, y0 = append(x0, x[k]), append(y0, y[k])
		} else {
			x1, y1 = append(x1, x[k]), append(y1, y[k])
		}
	}
	loss, grad := Logistic(x, y, w)
	l0, g0 := Logistic(x0, y0, w)
	l1, g1 := Logistic(x1, y1, w)
	d := make([]float64, len(w))
	nd := make([]float64, len(w))
	for j := range d {
		grad[j] *= scale
		d[j] = g0[j] - g1[j]
		nd[j] = -d[j]
	}
	p = Party{F: scale * loss, Grad: grad, C: []float64{l0 - l1 - r, l1 - l0 - r}, Jac: [][]float64{d, nd}}
	return p, loss, math.Abs(l0 - l1)
}

// QP is party i of the QP of eq. (84): f_i = ½wᵀAw + bᵀw (a nil: zero
// quadratic; b nil: zero linear term) and the equalities Cw + dv = 0, with
// a and c given by rows.
func QP(a [][]float64, b []float64, c [][]float64, dv []float64, w []float64) Party {
	p := Party{Grad: make([]float64, len(w)), Eq: true}
	for r, row := range a {
		var s float64
		for j, v := range row {
			s += v * w[j]
		}
		p.Grad[r] = s
		p.F += 0.5 * w[r] * s
	}
	for j, v := range b {
		p.Grad[j] += v
		p.F += v * w[j]
	}
	for r, row := range c {
		s := dv[r]
		for j, v := range row {
			s += v * w[j]
		}
		p.C = append(p.C, s)
		p.Jac = append(p.Jac, row)
	}
	return p
}

// KKT is Definition 1's residuals at (w, μ) from the parties' values there
// (cones: the parties' Blocks; without them the nonnegative orthant, or
// {0} for Eq parties), and the scales of their sums for the rounding
// bound: stationarity's is Σ_i ||∇f_i||_∞ + Σ_j |μ_ij|·||∇c_ij||_∞,
// feasibility's is 1 + max_ij |c_ij|. It fails when μ does not match the
// parties' constraints or lies outside K* (R^m_+; R^m for {0}; the
// second-order cone, up to a projection's rounding).
func KKT(parties []Party, mu [][]float64) (stat, feas, statScale, feasScale float64, err error) {
	if len(mu) != len(parties) {
		return 0, 0, 0, 0, fmt.Errorf("recheck: %d multiplier blocks for %d parties", len(mu), len(parties))
	}
	if len(parties) == 0 {
		return 0, 0, 0, 0, errors.New("recheck: no parties")
	}
	g := make([]float64, len(parties[0].Grad))
	feasScale = 1
	for i, p := range parties {
		if len(mu[i]) != len(p.C) {
			return 0, 0, 0, 0, fmt.Errorf("recheck: party %d has %d multipliers for %d constraints", i, len(mu[i]), len(p.C))
		}
		statScale += normInf(p.Grad)
		for j := range g {
			g[j] += p.Grad[j]
		}
		for k, c := range p.C {
			m := mu[i][k]
			if math.IsNaN(m) || math.IsInf(m, 0) {
				return 0, 0, 0, 0, fmt.Errorf("recheck: party %d multiplier %d is %g", i, k, m)
			}
			statScale += math.Abs(m) * normInf(p.Jac[k])
			for j := range g {
				g[j] += m * p.Jac[k][j]
			}
			feasScale = math.Max(feasScale, 1+math.Abs(c))
		}
		at := 0
		for _, b := range p.blocks() {
			if b.Dim < 0 || at+b.Dim > len(p.C) {
				return 0, 0, 0, 0, fmt.Errorf("recheck: party %d: cone blocks exceed its %d constraints", i, len(p.C))
			}
			c, m := p.C[at:at+b.Dim], mu[i][at:at+b.Dim]
			switch b.Kind {
			case Orthant:
				for k := range c {
					if m[k] < 0 {
						return 0, 0, 0, 0, fmt.Errorf("recheck: party %d multiplier %d is %g, outside the dual cone [0, ∞)", i, at+k, m[k])
					}
					if m[k] > 0 {
						feas = math.Max(feas, math.Abs(c[k]))
					} else {
						feas = math.Max(feas, c[k])
					}
				}
			case ZeroCone:
				feas = math.Max(feas, normInf(c))
			case SecondOrder:
				if b.Dim == 0 {
					break
				}
				if !socInDual(m) {
					return 0, 0, 0, 0, fmt.Errorf("recheck: party %d multipliers %d..%d = %v, outside the dual cone (second-order)", i, at, at+b.Dim-1, m)
				}
				feas = math.Max(feas, SOCNormalDist(c, m))
			}
			at += b.Dim
		}
		if at != len(p.C) {
			return 0, 0, 0, 0, fmt.Errorf("recheck: party %d: cone blocks cover %d of its %d constraints", i, at, len(p.C))
		}
	}
	return normInf(g), feas, statScale, feasScale, nil
}

func normInf(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// Agree reports whether a stored value and its recomputation agree within
// the rounding bound Gamma·(1 + scale), scale being the magnitude of the
// terms summed (|value| for a plain mean).
func Agree(stored, recomputed, scale float64) bool {
	return math.Abs(stored-recomputed) <= Gamma*(1+math.Abs(scale))
}
