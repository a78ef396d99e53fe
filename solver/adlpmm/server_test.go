package adlpmm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

// minimised checks that x minimises f over a convex set (proj projects
// onto it; nil: all of ℝᵏ) in two ways: no projected random perturbation
// at three scales does better, and Nelder-Mead (gonum/optimize, restarted
// until it stops improving) on f(P(y)) + ‖y − P(y)‖², whose minimiser is
// the constrained one, finds x to 1e-5 from a start 0.5 away.
func minimised(t *testing.T, name string, rng *rand.Rand, x []float64, f func([]float64) float64, proj func([]float64) []float64) {
	t.Helper()
	if proj == nil {
		proj = func(y []float64) []float64 { return y }
	}
	f0 := f(x)
	for _, step := range []float64{1e-1, 1e-3, 1e-6} {
		for range 100 {
			y := randVec(rng, len(x), step)
			for i := range y {
				y[i] += x[i]
			}
			y = proj(y)
			// 1e-11: rounding of objectives of order 10.
			if f(y) < f0-1e-11 {
				t.Fatalf("%s: %v gives %v < %v at the update's %v", name, y, f(y), f0, x)
			}
		}
	}
	g := func(y []float64) float64 {
		py := proj(append([]float64(nil), y...))
		var pen float64
		for i := range y {
			pen += (y[i] - py[i]) * (y[i] - py[i])
		}
		return f(py) + pen
	}
	y := randVec(rng, len(x), 0.5)
	for i := range y {
		y[i] += x[i]
	}
	best := math.Inf(1)
	for range 50 {
		res, err := optimize.Minimize(optimize.Problem{Func: g}, y, &optimize.Settings{
			Converger: &optimize.FunctionConverge{Absolute: 1e-15, Iterations: 200},
		}, &optimize.NelderMead{SimplexSize: 1e-2})
		if err != nil {
			t.Fatalf("%s: Nelder-Mead: %v", name, err)
		}
		y = res.X
		if res.F >= best-1e-15 {
			break
		}
		best = res.F
	}
	y = proj(y)
	for i := range x {
		if math.Abs(y[i]-x[i]) > 1e-5*math.Max(1, math.Abs(x[i])) {
			t.Fatalf("%s: Nelder-Mead's argmin %v (objective %v), the update %v (objective %v)", name, y, f(y), x, f0)
		}
	}
}

// TestServerUpdatesAreArgmins: eqs. (6)-(10) are the minimisers of the
// subproblems of Appendix E.2 and E.4 (with c' = c” = 2Sc): no perturbation
// improves on them, and a numerical minimisation finds them.
func TestServerUpdatesAreArgmins(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 30 {
		S, d := 2+trial%3, 3
		c := []float64{0.1, 1, 10}[trial%3]
		p := []float64{1, 2, math.Inf(1)}[trial%3]
		theta := []float64{0, 0.1, 0.5, 2}[trial%4]
		cp := 2 * float64(S) * c
		vh, psi := make([][]float64, S), make([][]float64, S)
		for k := range S {
			vh[k], psi[k] = randVec(rng, d, 1), randVec(rng, d, 1)
		}
		t0, z0, eta0 := randVec(rng, S, 1), randVec(rng, S, 1), randVec(rng, S, 1)
		for k := range eta0 {
			eta0[k] = math.Abs(eta0[k])
		}
		gamma := rng.NormFloat64()
		r, sigma, zeta := randVec(rng, S, 1), randVec(rng, S, 1), randVec(rng, S, 1)
		qh := ProjectSimplex(nil, randVec(rng, S, 1))

		w := make([]float64, d)
		updateW(w, vh, psi, c)
		minimised(t, "w (6)", rng, w, func(x []float64) float64 {
			var o float64
			for k := range S {
				for j := range x {
					o += psi[k][j]*x[j] + c/2*(x[j]-vh[k][j])*(x[j]-vh[k][j])
				}
			}
			return o
		}, nil)

		zN, tN, u := make([]float64, S), make([]float64, S), make([]float64, S)
		updateZT(zN, tN, u, t0, z0, eta0, gamma, r, sigma, zeta, qh, c, theta, p)
		lin := make([]float64, S) // t̄ − z̄ − γe − η
		for k := range S {
			lin[k] = t0[k] - z0[k] - gamma - eta0[k]
		}
		minimised(t, "z (7)", rng, zN, func(x []float64) float64 {
			var o float64
			for k := range S {
				o += -sigma[k]*x[k] - zeta[k]*x[k] + c/2*(x[k]-r[k])*(x[k]-r[k]) - c*lin[k]*x[k] + cp/2*(x[k]-z0[k])*(x[k]-z0[k])
			}
			return o
		}, nil)
		minimised(t, "t (8)", rng, tN, func(x []float64) float64 {
			o := theta * DualNorm(x, p)
			for k := range S {
				o += qh[k]*x[k] + sigma[k]*x[k] + c*lin[k]*x[k] + cp/2*(x[k]-t0[k])*(x[k]-t0[k])
			}
			return o
		}, nil)

		etaN := make([]float64, S)
		gN := updateEtaGamma(etaN, eta0, gamma, tN, zN, sigma, c)
		m := make([]float64, S) // −γ̄e − η̄ + t − z
		for k := range S {
			m[k] = -gamma - eta0[k] + tN[k] - zN[k]
		}
		minimised(t, "eta (9)", rng, etaN, func(x []float64) float64 {
			var o float64
			for k := range S {
				o += -sigma[k]*x[k] - c*m[k]*x[k] + cp/2*(x[k]-eta0[k])*(x[k]-eta0[k])
			}
			return o
		}, func(x []float64) []float64 {
			for i := range x {
				x[i] = math.Max(0, x[i])
			}
			return x
		})
		minimised(t, "gamma (10)", rng, []float64{gN}, func(x []float64) float64 {
			var sm, ss float64
			for k := range S {
				sm += m[k]
				ss += sigma[k]
			}
			return -x[0]*(1+ss+c*sm) + cp/2*(x[0]-gamma)*(x[0]-gamma)
		}, nil)
	}
}
