package wdro

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedcon/fedcon/solver/adlpmm"
)

// boxClient is randClient with some features exactly at the box's ends
// ±1 (min-max scaled columns have them) and, if noisy, rows up to 2.5
// outside it (client 1's training noise).
func boxClient(rng *rand.Rand, N, n int, rho float64, noisy bool) Client {
	c := randClient(rng, N, n, rho)
	for i, x := range c.X {
		for j := range x {
			switch {
			case (i+j)%5 == 0:
				x[j] = float64(1 - 2*((i+j)%2))
			case noisy:
				x[j] += 0.8 * rng.NormFloat64()
			default:
				x[j] = math.Max(-1, math.Min(1, x[j]))
			}
		}
	}
	return c
}

// TestCompactOmegaRows: at s±_j = max(0, ±ŵ_j − λ), each sample row of
// buildCompactOmega is the closed-form supremum of its branch (sampleSup,
// minus κλ when flipped), to rounding: the rows are Ω_s's, inside the box,
// at its ends and outside it.
func TestCompactOmegaRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, tc := range []struct {
		name  string
		noisy bool
		rho   float64
	}{{"in-box", false, 0.1}, {"noisy", true, 0.1}, {"noisy-rho0", true, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			n, N := 4, 9
			cl := boxClient(rng, N, n, tc.rho, tc.noisy)
			m := Model{Support: Box, Kappa: 0.7}
			om := buildCompactOmega(cl, m)
			if want := n + 3 + N + 2*n; om.nv != want {
				t.Fatalf("%d variables, want %d", om.nv, want)
			}
			if want := 2 + 3*N + 4*n; om.rows != want {
				t.Fatalf("%d rows, want %d", om.rows, want)
			}
			for trial := range 20 {
				x := make([]float64, om.nv)
				for j := 0; j <= n; j++ {
					x[j] = 2 * rng.NormFloat64()
				}
				lam := []float64{0, 0.3, 1, 5}[trial%4] * rng.Float64()
				x[n+1] = lam
				for j := range n {
					x[n+3+N+j] = math.Max(0, x[j]-lam)
					x[n+3+N+n+j] = math.Max(0, -x[j]-lam)
				}
				ax := make([]float64, om.rows)
				for k := range om.ar {
					ax[om.ar[k]] += om.av[k] * x[om.ac[k]]
				}
				// Sample rows (α_i = 0, so Ax is the row's left side
				// minus α): the last 2N rows, keep then flip per sample.
				first := om.rows - 2*N
				for i, xi := range cl.X {
					y := cl.Y[i]
					keep := sampleSup(x[:n+1], xi, y, lam, Box)
					flip := sampleSup(x[:n+1], xi, -y, lam, Box) - m.Kappa*lam
					for b, want := range []float64{keep, flip} {
						got := ax[first+2*i+b] + 1 // row ≤ −1 holds the constant 1
						if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
							t.Fatalf("trial %d sample %d branch %d: row %v, closed form %v", trial, i, b, got, want)
						}
					}
				}
				// The s± rows hold at this point, with equality where s > 0.
				for r := N + 2; r < N+2+4*n; r++ {
					if ax[r] < om.lo[r]-1e-12 {
						t.Fatalf("trial %d: s row %d = %v below %v", trial, r, ax[r], om.lo[r])
					}
				}
			}
		})
	}
}

// TestCompactClientQPMatchesFull: over rounds of random broadcasts, the
// compact client QP (NewClientQP) returns the v̂ and r of the QP over
// Central's Ω_s with a variable per sample and coordinate (buildOmega),
// both warm-started round after round. The bound 1e-7 is the QPs'
// tolerance: polished solves agree to about 1e-10, one that ends by the
// ADMM test only to its tolerance (3e-8 in "noisy").
func TestCompactClientQPMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, tc := range []struct {
		name  string
		noisy bool
		rho   float64
		kappa float64
	}{
		{"in-box", false, 0.01, 0.5},
		{"noisy", true, 0.01, 0.5},
		{"large-rho", true, 0.5, 0.2},
		{"rho0", false, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, N := 3, 12
			cl := boxClient(rng, N, n, tc.rho, tc.noisy)
			m := Model{Support: Box, Kappa: tc.kappa}
			const c = 1.0
			compact, err := NewClientQP(cl, m, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			full, err := newClientQP(cl, m, c, nil, buildOmega)
			if err != nil {
				t.Fatal(err)
			}
			nc, _ := compact.Size()
			nf, _ := full.Size()
			if nc >= nf {
				t.Fatalf("compact QP has %d variables, full %d", nc, nf)
			}
			v, psi := make([]float64, n+1), make([]float64, n+1)
			var worst float64
			for round := range 15 {
				// Slowly moving broadcasts, as in Algorithm 1's late rounds,
				// and a jump every fifth round.
				scale := 0.05
				if round%5 == 0 {
					scale = 1
				}
				for j := range v {
					v[j] += scale * rng.NormFloat64()
					psi[j] += 0.1 * scale * rng.NormFloat64()
				}
				z, zeta := 0.5+0.2*rng.NormFloat64(), 0.3*rng.Float64()
				vc, vf := make([]float64, n+1), make([]float64, n+1)
				rc, _, err := compact.Step(context.Background(), v, z, psi, zeta, vc)
				if err != nil {
					t.Fatalf("round %d compact: %v", round, err)
				}
				rf, _, err := full.Step(context.Background(), v, z, psi, zeta, vf)
				if err != nil {
					t.Fatalf("round %d full: %v", round, err)
				}
				d := math.Abs(rc - rf)
				for j := range vc {
					d = math.Max(d, math.Abs(vc[j]-vf[j]))
				}
				worst = math.Max(worst, d)
				if d > 1e-7 {
					t.Fatalf("round %d: compact v̂ %v r %v, full %v %v (differ by %v)", round, vc, rc, vf, rf, d)
				}
			}
			t.Logf("largest difference %.2g", worst)
		})
	}
}

// fullClient is an Algorithm 1 client whose C_s is the QP over buildOmega.
type fullClient struct {
	data  Client
	model Model
}

func (f *fullClient) Rows() int { return len(f.data.X) }
func (f *fullClient) NewLocal(c, tol float64) (adlpmm.Local, error) {
	set := DefaultQPSettings()
	set.EpsAbs = math.Min(set.EpsAbs, tol/100)
	set.EpsRel = set.EpsAbs
	cq, err := newClientQP(f.data, f.model, c, set, buildOmega)
	if err != nil {
		return nil, err
	}
	return adlpmm.NewLocal(cq, c, len(f.data.X[0])+1), nil
}
func (f *fullClient) Loss(v []float64) float64 {
	l, _ := WorstCaseLoss(f.data, f.model, v)
	return l
}

// TestCompactAlgorithm1MatchesFull: Algorithm 1 with the compact client
// QPs (Federate) takes the rounds of Algorithm 1 with the full ones, to a
// model and objective within 1e-8 (each round's QP solutions agree to
// about 1e-10, and the iteration does not amplify them).
func TestCompactAlgorithm1MatchesFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	clients := []Client{boxClient(rng, 15, 3, 0.01, true), boxClient(rng, 12, 3, 0.01, false), boxClient(rng, 10, 3, 0.01, false)}
	m := Model{Support: Box, Kappa: 0.5}
	fed, n, err := Federate(clients, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	full := make([]adlpmm.Client, len(clients))
	for s, c := range clients {
		full[s] = &fullClient{data: c, model: m}
	}
	set := &adlpmm.Settings{Workers: 2}
	a, err := adlpmm.Solve(context.Background(), &adlpmm.Problem{Clients: fed, Features: n, Theta: 0.01, P: 1}, set)
	if err != nil {
		t.Fatal(err)
	}
	b, err := adlpmm.Solve(context.Background(), &adlpmm.Problem{Clients: full, Features: n, Theta: 0.01, P: 1}, set)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != adlpmm.Converged || b.Status != adlpmm.Converged {
		t.Fatalf("status %v and %v", a.Status, b.Status)
	}
	// A round more or less at the stopping test would leave the models
	// within Algorithm 1's tolerance only (as in one run of Figure 5).
	bound := 1e-8
	if a.Rounds != b.Rounds {
		bound = 1e-4
	}
	if d := a.Rounds - b.Rounds; d < -2 || d > 2 {
		t.Fatalf("compact %d rounds, full %d", a.Rounds, b.Rounds)
	}
	d := math.Abs(a.Objective - b.Objective)
	for j := range a.V {
		d = math.Max(d, math.Abs(a.V[j]-b.V[j]))
	}
	if d > bound {
		t.Fatalf("compact V %v objective %v, full %v %v (differ by %v)", a.V, a.Objective, b.V, b.Objective, d)
	}
	t.Logf("%d rounds, largest difference %.2g", a.Rounds, d)
}
