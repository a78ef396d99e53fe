package stochastic

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// dual is h(ν) of Appendix C.
func dual(nu, A, U, b, tau float64) float64 { return nu * (A - U - b*nu/(4*(1+tau*nu))) }

// bruteMax maximises h on [0, c] by a grid and golden-section refinement.
func bruteMax(A, U, b, tau, c float64) float64 {
	best, bestV := 0.0, dual(0, A, U, b, tau)
	const n = 20000
	for k := 0; k <= n; k++ {
		nu := c * float64(k) / n
		if v := dual(nu, A, U, b, tau); v > bestV {
			best, bestV = nu, v
		}
	}
	lo, hi := max(0, best-c/n), min(c, best+c/n)
	for range 200 { // h is concave: golden section converges
		m1, m2 := lo+(hi-lo)*0.382, lo+(hi-lo)*0.618
		if dual(m1, A, U, b, tau) < dual(m2, A, U, b, tau) {
			lo = m1
		} else {
			hi = m2
		}
	}
	if v := dual((lo+hi)/2, A, U, b, tau); v > bestV {
		best = (lo + hi) / 2
	}
	return best
}

func TestLemma1(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	lin := make([]float64, 6)
	for i := range lin {
		lin[i] = rng.NormFloat64()
	}
	var b float64
	for _, v := range lin {
		b += v * v
	}
	const tau, c = 0.1, 50.0
	for _, tc := range []struct {
		name   string
		A, U   float64
		want   string // "zero", "interior", "c"
		degen  bool   // b + 4τ(U-A) <= 0
		cValue float64
	}{
		{"nu zero: w=0 feasible", 0.5, 1, "zero", false, c},
		{"interior", 3, 1, "interior", false, c},
		{"interior near zero", 1.01, 1, "interior", false, c},
		{"nu = c: capped", 3, 1, "c", false, 0.05},
		{"b+4τ(U-A) <= 0", 1 + b/(4*tau) + 1, 1, "c", true, c},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := tc.cValue
			if den := b + 4*tau*(tc.U-tc.A); (den <= 0) != tc.degen {
				t.Fatalf("case set-up: b+4τ(U-A) = %v", den)
			}
			w := make([]float64, len(lin))
			nu, s := Subproblem38(lin, tc.A, tc.U, tau, cc, w)
			switch tc.want {
			case "zero":
				if nu != 0 {
					t.Fatalf("ν* = %v, want 0", nu)
				}
			case "c":
				if nu != cc {
					t.Fatalf("ν* = %v, want c = %v", nu, cc)
				}
			case "interior":
				if !(nu > 0 && nu < cc) {
					t.Fatalf("ν* = %v, want in (0, c)", nu)
				}
			}
			// Brute-force maximisation of the dual on [0, c].
			bf := bruteMax(tc.A, tc.U, b, tau, cc)
			if math.Abs(nu-bf) > 1e-6*max(1, nu) || dual(nu, tc.A, tc.U, b, tau) < dual(bf, tc.A, tc.U, b, tau)-1e-12 {
				t.Errorf("ν* = %v, brute force %v", nu, bf)
			}
			// Primal value ‖w‖² + cs equals the dual h(ν*): zero duality gap.
			var ww, lw float64
			for i := range w {
				ww += w[i] * w[i]
				lw += lin[i] * w[i]
			}
			if gap := ww + cc*s - dual(nu, tc.A, tc.U, b, tau); math.Abs(gap) > 1e-9*max(1, ww+cc*s) {
				t.Errorf("duality gap %v", gap)
			}
			// KKT of (38) with μ = c - ν (Appendix C), to 1e-9.
			g := lw + tau*ww + tc.A - tc.U // constraint function F̄ + A - U
			for i := range w {             // stationarity: 2w + ν(lin + 2τw) = 0
				if r := 2*w[i] + nu*(lin[i]+2*tau*w[i]); math.Abs(r) > 1e-9 {
					t.Fatalf("stationarity residual %v", r)
				}
			}
			mu := cc - nu
			for _, r := range []struct {
				what string
				v    float64
			}{
				{"feasibility g - s <= 0", max(g-s, 0)},
				{"s >= 0", max(-s, 0)},
				{"ν(g - s) = 0", nu * (g - s)},
				{"(c - ν)s = 0", mu * s},
				{"μ >= 0", max(-mu, 0)},
			} {
				if math.Abs(r.v) > 1e-9 {
					t.Errorf("KKT %s: residual %v", r.what, r.v)
				}
			}
		})
	}
}

// TestSurrogateStationary: w̄ of (35)-(36) minimises the surrogate (8) plus
// λ‖w‖². The oracle builds (8)'s linear term from the unrolled recursion
// (9), Σ_k ρ_k Π_{j>k}(1−ρ_j)(ĝ_k − 2τw_k) with ρ_k = a1/k^α, from the
// recorded (w_k, ĝ_k) of each step, not from the server's state, and checks
// the surrogate's central-difference gradient at w̄ and that random moves
// away from w̄ raise it.
func TestSurrogateStationary(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, lam := range []float64{0, 1e-3, 0.5} {
		d := 7
		s := Settings{Tau: 0.1, Schedule: Schedule{A1: 0.6, A2: 0.9, Alpha: 0.3, GammaOffset: 0.05}}
		sv := newServer(Problem{Lambda: lam}, s, d)
		w := make([]float64, d)
		var ws, gs [][]float64
		for it := 1; it <= 4; it++ {
			g := make([]float64, d)
			for i := range g {
				g[i], w[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			ws, gs = append(ws, slices.Clone(w)), append(gs, g)
			sv.step(it, w, g, 0)
			lin := make([]float64, d)
			for k := 1; k <= it; k++ {
				c := 0.6 / math.Pow(float64(k), 0.3)
				for j := k + 1; j <= it; j++ {
					c *= 1 - 0.6/math.Pow(float64(j), 0.3)
				}
				for i := range lin {
					lin[i] += c * (gs[k-1][i] - 2*s.Tau*ws[k-1][i])
				}
			}
			fbar := func(v []float64) float64 {
				var f float64
				for i, x := range v {
					f += lin[i]*x + (s.Tau+lam)*x*x
				}
				return f
			}
			wb := slices.Clone(sv.wbar)
			f0 := fbar(wb)
			for i := range wb {
				h := 1e-5
				v := slices.Clone(wb)
				v[i] += h
				fp := fbar(v)
				v[i] -= 2 * h
				if g := (fp - fbar(v)) / (2 * h); math.Abs(g) > 1e-8 {
					t.Fatalf("λ=%v t=%d: surrogate gradient %v at w̄[%d]", lam, it, g, i)
				}
			}
			for range 5 {
				v := slices.Clone(wb)
				for i := range v {
					v[i] += 1e-3 * rng.NormFloat64()
				}
				if fbar(v) <= f0 {
					t.Fatalf("λ=%v t=%d: a move from w̄ lowers the surrogate", lam, it)
				}
			}
		}
	}
}
