package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// allCones are the cone kinds of eq. (1) that fedcon supports, each at a
// dimension where every case of its projection occurs.
func allCones() []Cone {
	return []Cone{
		Zero(3), NonNeg(4), SOC(1), SOC(2), SOC(5),
		Product{Zero(2), NonNeg(1), SOC(3)},
		Product{SOC(3), Product{NonNeg(2), SOC(2)}},
	}
}

// TestSOCProjectionClosedForm checks Proj_K onto the second-order cone
// against hand-computed points of the three cases of its closed form.
func TestSOCProjectionClosedForm(t *testing.T) {
	cases := []struct {
		name string
		v    []float64
		want []float64
	}{
		{"interior", []float64{5, 3, 4}, []float64{5, 3, 4}},
		{"boundary stays", []float64{5, 3, -4}, []float64{5, 3, -4}},
		{"polar cone maps to 0", []float64{-5, 3, 4}, []float64{0, 0, 0}},
		// s = 0, ||x|| = 5: α = 2.5, (2.5, 2.5·(3,4)/5).
		{"outside, s = 0", []float64{0, 3, 4}, []float64{2.5, 1.5, 2}},
		// s = 1, ||x|| = 5: α = 3.
		{"outside, s > 0", []float64{1, -3, 4}, []float64{3, -1.8, 2.4}},
		{"outside, s < 0", []float64{-1, 0, 5}, []float64{2, 0, 2}},
		{"origin", []float64{0, 0, 0}, []float64{0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := make([]float64, 3)
			SOC(3).ProjectDual(got, c.v)
			// Exact up to one rounding of α·x/a.
			if !floats.EqualApprox(got, c.want, 1e-15) {
				t.Fatalf("Proj(%v) = %v, want %v", c.v, got, c.want)
			}
			SOC(3).Project(got, got) // aliasing, idempotence
			if !floats.EqualApprox(got, c.want, 1e-15) {
				t.Fatalf("not idempotent: %v", got)
			}
		})
	}
	// SOC(1) = R_+ and a product acts block by block: (-1, 3, 4) has α = 2.
	v := []float64{-2, 7, -1, 3, 4}
	got := make([]float64, 5)
	Product{SOC(1), NonNeg(1), SOC(3)}.ProjectDual(got, v)
	if want := []float64{0, 7, 2, 1.2, 1.6}; !floats.EqualApprox(got, want, 1e-15) {
		t.Fatalf("product Proj = %v, want %v", got, want)
	}
	Product{Zero(2), SOC(3)}.Project(got, v)
	if want := []float64{0, 0, 2, 1.2, 1.6}; !floats.EqualApprox(got, want, 1e-15) {
		t.Fatalf("product Proj_K = %v, want %v", got, want)
	}
}

// inCone reports whether v ∈ K up to tol, through each block's definition.
func inCone(k Cone, v []float64, tol float64) bool {
	switch k := k.(type) {
	case Zero:
		return normInf(v) <= tol
	case NonNeg:
		return floats.Min(v) >= -tol
	case SOC:
		return floats.Norm(v[1:], 2) <= v[0]+tol
	case Product:
		var o int
		for _, b := range k {
			if !inCone(b, v[o:o+b.Dim()], tol) {
				return false
			}
			o += b.Dim()
		}
		return true
	}
	panic("unknown cone")
}

// dualOf returns K* for the cones above (Zero's dual is R^m: nil).
func dualOf(k Cone) Cone {
	switch k := k.(type) {
	case Zero:
		return nil
	case Product:
		var out Product
		for _, b := range k {
			d := dualOf(b)
			if d == nil {
				d = free(b.Dim())
			}
			out = append(out, d)
		}
		return out
	}
	return k // orthant and SOC are self-dual
}

// free is R^m as a "cone" for the membership test of dual vectors.
type free int

func (f free) Dim() int                          { return int(f) }
func (f free) Project(dst, v []float64)          { copy(dst, v) }
func (f free) ProjectDual(dst, _ []float64)      { clear(dst[:f]) }
func (f free) NormalDist(_, _ []float64) float64 { return 0 }
func (f free) String() string                    { return "free" }

func inDual(k Cone, v []float64, tol float64) bool {
	switch d := dualOf(k).(type) {
	case nil:
		return true
	case Product:
		var o int
		for _, b := range d {
			if _, ok := b.(free); !ok && !inCone(b, v[o:o+b.Dim()], tol) {
				return false
			}
			o += b.Dim()
		}
		return true
	default:
		return inCone(d, v, tol)
	}
}

// TestMoreauIdentity checks, on random vectors of every cone kind, Moreau's
// decomposition v = Proj_K(v) + Proj_{-K*}(v) with orthogonal parts, where
// Proj_{-K*}(v) = -Proj_{K*}(-v), and that each part lies in its cone.
// This is what makes the AL term of eq. (6) equal ||Proj_{K*}(μ+βc)||².
func TestMoreauIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range allCones() {
		t.Run(k.String(), func(t *testing.T) {
			m := k.Dim()
			p, q, neg := make([]float64, m), make([]float64, m), make([]float64, m)
			for trial := 0; trial < 500; trial++ {
				v := make([]float64, m)
				for j := range v {
					v[j] = 3 * rng.NormFloat64()
				}
				k.Project(p, v)
				floats.ScaleTo(neg, -1, v)
				k.ProjectDual(q, neg)
				floats.Scale(-1, q) // Proj_{-K*}(v)
				scale := 1 + normInf(v)
				// Rounding of a few flops per entry: 1e-14 relative.
				for j := range v {
					if math.Abs(p[j]+q[j]-v[j]) > 1e-14*scale {
						t.Fatalf("v = %v: Proj_K + Proj_{-K*} = %v + %v", v, p, q)
					}
				}
				if dot := floats.Dot(p, q); math.Abs(dot) > 1e-13*scale*scale {
					t.Fatalf("v = %v: <Proj_K, Proj_{-K*}> = %g", v, dot)
				}
				if !inCone(k, p, 1e-13*scale) {
					t.Fatalf("Proj_K(%v) = %v not in K", v, p)
				}
				floats.Scale(-1, q)
				if !inDual(k, q, 1e-13*scale) {
					t.Fatalf("Proj_{K*}(-v) = %v not in K*", q)
				}
				// dist²(v, -K) = ||Proj_{K*}(v)||²: the form eq. (6) is computed in.
				negK := make([]float64, m)
				k.Project(negK, neg)
				floats.Scale(-1, negK) // Proj_{-K}(v) = -Proj_K(-v)
				k.ProjectDual(q, v)
				d2 := floats.Distance(v, negK, 2)
				if math.Abs(d2*d2-floats.Dot(q, q)) > 1e-12*scale*scale {
					t.Fatalf("dist²(v, -K) = %g, ||Proj_{K*}(v)||² = %g", d2*d2, floats.Dot(q, q))
				}
			}
		})
	}
}

// TestDualJacobian checks each cone's Jacobian of Proj_{K*} against central
// finite differences at random points (almost surely off the kinks).
func TestDualJacobian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range allCones() {
		t.Run(k.String(), func(t *testing.T) {
			dk := k.(DualJacobianCone)
			m := k.Dim()
			jac := make([]float64, m*m)
			pp, pm := make([]float64, m), make([]float64, m)
			for trial := 0; trial < 200; trial++ {
				v := make([]float64, m)
				for j := range v {
					v[j] = rng.NormFloat64()
				}
				dk.DualJacobian(jac, v)
				const h = 1e-6
				for j := 0; j < m; j++ {
					vp, vm := append([]float64(nil), v...), append([]float64(nil), v...)
					vp[j] += h
					vm[j] -= h
					k.ProjectDual(pp, vp)
					k.ProjectDual(pm, vm)
					for i := 0; i < m; i++ {
						fd := (pp[i] - pm[i]) / (2 * h)
						// O(h²) truncation times the curvature 1/||x|| of the
						// SOC projection; kinks within h of v are skipped.
						if math.Abs(fd-jac[i*m+j]) > 1e-5 && !nearKink(k, v, 1e-4) {
							t.Fatalf("v = %v: ∂P_%d/∂v_%d = %v, finite difference %v", v, i, j, jac[i*m+j], fd)
						}
					}
				}
			}
		})
	}
}

// nearKink reports whether v is within tol of a point where Proj_{K*} is
// not differentiable.
func nearKink(k Cone, v []float64, tol float64) bool {
	switch k := k.(type) {
	case NonNeg:
		for _, x := range v {
			if math.Abs(x) < tol {
				return true
			}
		}
	case SOC:
		a := floats.Norm(v[1:], 2)
		return math.Abs(a-v[0]) < tol || math.Abs(a+v[0]) < tol || a < tol
	case Product:
		var o int
		for _, b := range k {
			if nearKink(b, v[o:o+b.Dim()], tol) {
				return true
			}
			o += b.Dim()
		}
	}
	return false
}

// rayDistOracle is min_{λ>=0} ||c - λr||_∞ by enumerating the breakpoints
// of this convex piecewise-linear function: λ = 0 and every λ where two of
// the lines ±(c_j - λr_j) cross.
func rayDistOracle(c, r []float64) float64 {
	g := func(l float64) float64 {
		var d float64
		for j := range c {
			d = max(d, math.Abs(c[j]-l*r[j]))
		}
		return d
	}
	best := g(0)
	try := func(l float64) {
		if l >= 0 && !math.IsInf(l, 0) && !math.IsNaN(l) {
			best = min(best, g(l))
		}
	}
	for j := range c {
		try(c[j] / r[j])
		for i := range c {
			try((c[j] - c[i]) / (r[j] - r[i]))
			try((c[j] + c[i]) / (r[j] + r[i]))
		}
	}
	return best
}

// TestSOCNormalDist checks dist_∞(c, N_{K*}(μ)) of Definition 1 for the
// second-order cone in each case of its normal cone.
func TestSOCNormalDist(t *testing.T) {
	k := SOC(3)
	cases := []struct {
		name  string
		c, mu []float64
		want  float64
	}{
		// μ = 0: dist_∞(c, -K). c = (1, 0, 0): the box meets -K at s = 0 when t = 1.
		{"mu 0, c = (1,0,0)", []float64{1, 0, 0}, []float64{0, 0, 0}, 1},
		// c = (0, 3, 4): -t + ||(3-t, 4-t)|| = 0 gives t² - 14t + 25 = 0.
		{"mu 0, c = (0,3,4)", []float64{0, 3, 4}, []float64{0, 0, 0}, 7 - 2*math.Sqrt(6)},
		{"mu 0, c in -K", []float64{-5, 3, 4}, []float64{0, 0, 0}, 0},
		{"mu 0, c in -K interior", []float64{-2, 0.1, 0}, []float64{0, 0, 0}, 0},
		// Interior μ: N = {0}.
		{"mu interior", []float64{-0.5, 0.25, 0}, []float64{2, 1, 0}, 0.5},
		// Boundary μ = (1, 1, 0): N = {λ(-1, 1, 0)}.
		{"mu boundary, c on the ray", []float64{-2, 2, 0}, []float64{1, 1, 0}, 0},
		{"mu boundary, c off the ray", []float64{0, 0, 1}, []float64{1, 1, 0}, 1},
		{"mu boundary, best λ = 2", []float64{-1, 3, 0}, []float64{1, 1, 0}, 1},
		// Boundary up to rounding, as Proj_{K*} leaves it.
		{"mu boundary after projection", []float64{-1, 0.6, 0.8}, proj(k, []float64{0, 3, 4}), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Bisection and ternary search run to rounding: 1e-12.
			if got := k.NormalDist(c.c, c.mu); math.Abs(got-c.want) > 1e-12 {
				t.Fatalf("NormalDist(%v, %v) = %v, want %v", c.c, c.mu, got, c.want)
			}
		})
	}
	// Random boundary multipliers against the breakpoint oracle, and random
	// c at μ = 0 between the Euclidean bounds ||Proj_{K*}(c)||/√m <= dist_∞ <= ||Proj_{K*}(c)||.
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		m := 2 + trial%5
		k := SOC(m)
		c, x := make([]float64, m), make([]float64, m-1)
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		mu := append([]float64{floats.Norm(x, 2)}, x...)
		r := append([]float64{-mu[0]}, x...)
		if got, want := k.NormalDist(c, mu), rayDistOracle(c, r); math.Abs(got-want) > 1e-12 {
			t.Fatalf("boundary μ = %v, c = %v: got %v, oracle %v", mu, c, got, want)
		}
		got := k.NormalDist(c, make([]float64, m))
		e := floats.Norm(proj(k, c), 2)
		if got > e*(1+1e-12) || got < e/math.Sqrt(float64(m))*(1-1e-12) {
			t.Fatalf("dist_∞(c, -K) = %v outside [%v, %v] for c = %v", got, e/math.Sqrt(float64(m)), e, c)
		}
		if got != Violation(k, c) {
			t.Fatalf("Violation differs from NormalDist at μ = 0")
		}
	}
}

func proj(k Cone, v []float64) []float64 {
	out := make([]float64, len(v))
	k.ProjectDual(out, v)
	return out
}

func TestProductNormalDistAndString(t *testing.T) {
	k := Product{Zero(1), NonNeg(1), SOC(3)}
	c := []float64{0.3, -1, 0, 3, 4}
	mu := []float64{5, 0, 0, 0, 0}
	// Blocks: |0.3|, 0 (slack inequality), 7 - 2√6 ≈ 2.10.
	if got, want := k.NormalDist(c, mu), 7-2*math.Sqrt(6); math.Abs(got-want) > 1e-12 {
		t.Fatalf("product NormalDist = %v, want %v", got, want)
	}
	if got := k.String(); got != "product(zero(1), nonneg(1), soc(3))" {
		t.Fatalf("String = %q", got)
	}
	if k.Dim() != 5 {
		t.Fatalf("Dim = %d", k.Dim())
	}
}

// ballParty is f(w) = ½||w||² + qᵀw with c(w) = (aᵀw - 1, -t, h - Gw) in
// -(zero(1) × soc(3)): one equality and the ball ||Gw - h|| <= t on R³.
type ballParty struct{}

var (
	ballG = []float64{1, 2, 0, 0, -1, 3}
	ballH = []float64{0.5, -1}
)

func (ballParty) Cone() Cone { return Product{Zero(1), SOC(3)} }
func (ballParty) Eval(w, grad, c, jac []float64) float64 {
	q := []float64{1, -2, 0.5}
	f := 0.5*floats.Dot(w, w) + floats.Dot(q, w)
	if grad != nil {
		floats.AddTo(grad, w, q)
	}
	c[0] = w[0] + w[1] - w[2] - 1
	c[1] = -0.7
	for i := 0; i < 2; i++ {
		c[2+i] = ballH[i] - floats.Dot(ballG[3*i:3*i+3], w)
	}
	if jac != nil {
		clear(jac)
		copy(jac[0:3], []float64{1, 1, -1})
		for i := 0; i < 2; i++ {
			for j := 0; j < 3; j++ {
				jac[(2+i)*3+j] = -ballG[3*i+j]
			}
		}
	}
	return f
}
func (ballParty) Hessian(dst *mat.SymDense, _, _ []float64) {
	for j := 0; j < 3; j++ {
		dst.SetSym(j, j, dst.At(j, j)+1)
	}
}

// TestSOCMeritDerivatives checks, for an SOC-constrained party, the AL
// gradient of eq. (56) against finite differences of the AL value, and the
// semismooth Newton Hessian against finite differences of that gradient.
func TestSOCMeritDerivatives(t *testing.T) {
	m := newMerit(ballParty{}, 3, 2, 0.25, []float64{0.3, 1, 0.2, -0.5})
	copy(m.center, []float64{0.1, 0, -0.1})
	sub := newSubproblem(3, m)
	sub.sigma = 0.5
	copy(sub.z, []float64{1, 1, 1})
	rng := rand.New(rand.NewPCG(7, 8))
	g, gp, gm := make([]float64, 3), make([]float64, 3), make([]float64, 3)
	h := mat.NewSymDense(3, nil)
	for trial := 0; trial < 50; trial++ {
		w := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		sub.FuncGrad(w, g)
		if !sub.Hessian(h, w) {
			t.Fatal("no Hessian for a product of zero and SOC cones")
		}
		const step = 1e-6
		for j := 0; j < 3; j++ {
			wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
			wp[j] += step
			wm[j] -= step
			fp := sub.FuncGrad(wp, gp)
			fm := sub.FuncGrad(wm, gm)
			// The AL value is C¹ with a piecewise-smooth gradient:
			// O(step²) error away from the kinks.
			if fd := (fp - fm) / (2 * step); math.Abs(fd-g[j]) > 1e-6 {
				t.Fatalf("w = %v: ∂φ/∂w%d = %v, finite difference %v", w, j, g[j], fd)
			}
			for i := 0; i < 3; i++ {
				if fd := (gp[i] - gm[i]) / (2 * step); math.Abs(fd-h.At(i, j)) > 1e-5 {
					t.Fatalf("w = %v: H[%d][%d] = %v, finite difference %v", w, i, j, h.At(i, j), fd)
				}
			}
		}
	}
}
