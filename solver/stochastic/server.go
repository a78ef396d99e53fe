package stochastic

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/fedcon/fedcon/solver"
)

// Lemma1 returns ν* of (39): the maximiser over [0, c] of the dual of (38),
// h(ν) = ν(A - U - bν/(4(1+τν))), with b = ‖B‖² + ‖C‖² (42).
func Lemma1(A, U, b, tau, c float64) float64 {
	den := b + 4*tau*(U-A)
	if den <= 0 { // h increasing on [0, ∞): ν* = c
		return c
	}
	nu := (math.Sqrt(b/den) - 1) / tau
	return min(max(nu, 0), c)
}

// Subproblem38 solves (38): min ‖w‖² + cs s.t. lin·w + τ‖w‖² + A - U ≤ s,
// s ≥ 0, writing w̄ = -ν* lin / (2(1+ν*τ)) (40)-(41) into w and returning
// ν* (39) and the slack s.
func Subproblem38(lin []float64, A, U, tau, c float64, w []float64) (nu, s float64) {
	var b float64
	for _, v := range lin {
		b += v * v
	}
	nu = Lemma1(A, U, b, tau, c)
	f := -nu / (2 * (1 + nu*tau))
	var lw, ww float64
	for i, v := range lin {
		w[i] = f * v
		lw += v * w[i]
		ww += w[i] * w[i]
	}
	return nu, max(lw+tau*ww+A-U, 0)
}

// server is the SSCA server state shared by Algorithms 1-4: the surrogate's
// linear term (B, C of (30)-(31), one vector over w) and constant A (Alg. 2, 4).
type server struct {
	p    Problem
	s    Settings
	lin  []float64
	a    float64
	wbar []float64
	nu   float64
	sl   float64
}

func newServer(p Problem, s Settings, d int) *server {
	return &server{p: p, s: s, lin: make([]float64, d), wbar: make([]float64, d)}
}

// step performs the server's update at iteration t, given the unbiased
// estimates ghat (∇F, (33)-(34)) and lhat (F, the loss part of (32)) at w:
// the recursions (30)-(31) (and A), the closed form (35)-(36) or Lemma 1,
// then (5) on w in place.
func (sv *server) step(t int, w, ghat []float64, lhat float64) {
	rho, gamma, tau := sv.s.Schedule.Rho(t), sv.s.Schedule.Gamma(t), sv.s.Tau
	if sv.p.Constrained {
		// Â (32) = F̂ + τ‖w‖²; A ← (1-ρ)A + ρ(Â - ĝ·w) (the constant of (24)).
		var gw, ww float64
		for i, g := range ghat {
			gw += g * w[i]
			ww += w[i] * w[i]
		}
		sv.a = (1-rho)*sv.a + rho*(lhat+tau*ww-gw)
	}
	for i, g := range ghat { // (30)-(31)
		sv.lin[i] = (1-rho)*sv.lin[i] + rho*(g-2*tau*w[i])
	}
	if sv.p.Constrained {
		sv.nu, sv.sl = Subproblem38(sv.lin, sv.a, sv.p.U, tau, sv.s.C, sv.wbar)
	} else {
		f := -1 / (2 * (tau + sv.p.Lambda)) // (35)-(36)
		for i, v := range sv.lin {
			sv.wbar[i] = f * v
		}
	}
	for i, v := range sv.wbar { // (5)
		w[i] = (1-gamma)*w[i] + gamma*v
	}
}

// finite reports whether every entry of w is finite.
func finite(w []float64) bool {
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// drawBatch sets perm[:b] to a uniformly random b-subset of perm (a partial
// Fisher-Yates shuffle: a mini-batch drawn without replacement).
func drawBatch(rng *rand.Rand, perm []int, b int) []int {
	for k := 0; k < b; k++ {
		j := k + rng.IntN(len(perm)-k)
		perm[k], perm[j] = perm[j], perm[k]
	}
	return perm[:b]
}

func seq(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// Stream ids of the per-run PCG generators: client i uses streamClient+i.
const (
	streamServer = 0x55CA0000
	streamClient = 0x55CA1000
)

func newRNG(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// loop drives rounds t = 1..T-1 of a run: it calls the recorder on w^t,
// checks ctx and divergence, and times round(t), which updates w in place.
func loop(ctx context.Context, rounds int, w []float64, rec func(int, []float64) error, sel func(int) bool,
	res *Result, round func(t int) error) error {
	record := func(t int) error {
		if rec != nil && (sel == nil || sel(t)) {
			return rec(t, w)
		}
		return nil
	}
	for t := 1; t < rounds; t++ {
		if err := record(t); err != nil {
			res.Status = solver.Canceled
			return err
		}
		if err := ctx.Err(); err != nil {
			res.Status = solver.Canceled
			return err
		}
		t0 := time.Now()
		if err := round(t); err != nil {
			return err
		}
		res.Stats.Runtime += time.Since(t0)
		res.Stats.Rounds = t
		if !finite(w) {
			res.Status = solver.Diverged
			return nil
		}
	}
	res.Status = solver.OuterIterationLimit // a fixed number of rounds, as in Section VI
	return record(rounds)
}
