package adlpmm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"golang.org/x/sync/errgroup"
)

// ErrInput signifies an invalid problem or setting; errors wrapping it name
// the field. problems/wdro wraps the same value for invalid client data.
var ErrInput = errors.New("adlpmm: invalid input")

func inputErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInput}, a...)...)
}

// Client is client s's side of the federation boundary of Algorithm 1.
// The server reaches a client's data only through it: per round it sends
// (v, z_s) to the client's Local and receives (v̂_s, r_s); at the end the
// client reports λ_s and f_s(v). Clients are implemented in problems/wdro
// (the SVM and Huber sets Ω_s).
type Client interface {
	// Rows returns N_s, the client's number of samples (q̂_s = N_s/N).
	Rows() int
	// NewLocal returns the client's side of the rounds for step size c;
	// tol is the server's stopping tolerance, which the client's own
	// accuracy has to be well below.
	NewLocal(c, tol float64) (Local, error)
	// Loss returns f_s(v), the client's worst-case loss at v = (w, b),
	// from a formula independent of Local (it certifies Result.WorstCase).
	Loss(v []float64) float64
}

// Local is what the server calls in a round: all that crosses the
// boundary. It keeps the client's state (its duals ψ_s, ζ_s, warm starts,
// α_s) between rounds and is used by one goroutine at a time. NewLocal
// builds the in-process one (Node) from a Subproblem.
type Local interface {
	// Round takes the broadcast (v, z_s), writes v̂_s into vhat (length
	// n+1) and returns r_s.
	Round(ctx context.Context, v []float64, z float64, vhat []float64) (float64, error)
	// Lambda returns λ_s of the last round (the final report).
	Lambda() float64
	// Iterations returns the inner (QP) iterations spent so far.
	Iterations() int
}

// Subproblem solves client s's subproblem C_s of Algorithm 1, line 11, on
// the client's side, given its duals.
type Subproblem interface {
	// Step minimises the client's part of the augmented Lagrangian,
	// ζ r + (c/2)(r − z)² − ψᵀv̂ + (c/2)‖v − v̂‖² over Ω_s, writes v̂_s into
	// vhat (length n+1) and returns r_s = ρ_sλ_s + eᵀα_s/N_s and λ_s.
	Step(ctx context.Context, v []float64, z float64, psi []float64, zeta float64, vhat []float64) (r, lam float64, err error)
	// Iterations returns the inner (QP) iterations spent so far.
	Iterations() int
}

// CapHitter is implemented by a Local or Subproblem whose inner solver can
// stop at an iteration cap instead of its accuracy; Result.InnerCapHits
// sums CapHits.
type CapHitter interface {
	CapHits() int
}

// Restorer is implemented by a Local that can restart from a previous
// run's duals (Settings.Start).
type Restorer interface {
	Restore(psi []float64, zeta float64)
}

// Problem is the DRFL problem (4): the clients (their data, radii and loss
// behind the Client interface), and the weight set
// Q = {q ∈ Δ_S : ‖q − q̂‖_p ≤ θ}.
type Problem struct {
	Clients []Client
	// Features is n, the length of w; v = (w, b) has n+1 entries.
	Features int
	// Theta is the radius θ ≥ 0 of Q; 0 means Q = {q̂}.
	Theta float64
	// P is the norm of Q: 1, 2 or +Inf.
	P float64
	// QHat is the centre q̂ ∈ Δ_S; nil means N_s/N.
	QHat []float64
}

// Validate checks the problem; errors wrap ErrInput and name the field.
func (p *Problem) Validate() error {
	if len(p.Clients) == 0 {
		return inputErr("no clients")
	}
	for s, c := range p.Clients {
		if c == nil || c.Rows() <= 0 {
			return inputErr("client %d has no rows", s+1)
		}
	}
	if p.Features <= 0 {
		return inputErr("features = %d, want ≥ 1", p.Features)
	}
	if !(p.P == 1 || p.P == 2 || math.IsInf(p.P, 1)) {
		return inputErr("p = %v, want 1, 2 or inf", p.P)
	}
	if !(p.Theta >= 0) || math.IsInf(p.Theta, 1) {
		return inputErr("theta = %v, want ≥ 0", p.Theta)
	}
	if p.QHat != nil {
		if len(p.QHat) != len(p.Clients) {
			return inputErr("qhat has %d entries for %d clients", len(p.QHat), len(p.Clients))
		}
		var sum float64
		for s, q := range p.QHat {
			if !(q >= 0) {
				return inputErr("qhat[%d] = %v, want ≥ 0", s+1, q)
			}
			sum += q
		}
		if math.Abs(sum-1) > 1e-9 {
			return inputErr("qhat sums to %v, want 1", sum)
		}
	}
	return nil
}

// qhat returns q̂ (N_s/N when nil).
func (p *Problem) qhat() []float64 {
	if p.QHat != nil {
		return append([]float64(nil), p.QHat...)
	}
	q := make([]float64, len(p.Clients))
	var N float64
	for _, c := range p.Clients {
		N += float64(c.Rows())
	}
	for s, c := range p.Clients {
		q[s] = float64(c.Rows()) / N
	}
	return q
}

// Defaults of Settings.
const (
	DefaultC         = 1.0   // step size c (the choice; the paper gives none)
	DefaultTol       = 1e-4  // stopping tolerance on residuals and steps
	DefaultMaxRounds = 10000 // round cap, Status RoundLimit
)

// Settings controls Solve. Zero fields take their defaults.
type Settings struct {
	// C is the step size c > 0 (default DefaultC).
	C float64
	// Tol: stop when the primal residual max(‖t − z − γe − η‖∞,
	// max_s ‖v − v̂_s‖∞, max_s |r_s − z_s|) and c times the largest change
	// of a primal block (v, t, z, η, γ, v̂_s, r_s) in one round are both
	// ≤ Tol (default DefaultTol).
	Tol float64
	// MaxRounds caps the rounds (default DefaultMaxRounds); Status
	// RoundLimit when reached.
	MaxRounds int
	// Workers is the number of clients solved at once (default 1).
	Workers int
	// Start, if non-nil, starts every primal and dual variable from a
	// previous run's Result.State (e.g. a neighbouring grid point of a
	// cross-validation) instead of 0. It must have the same number of
	// clients and features. The clients' dual copies start from it too,
	// as if each client had kept its own from that run: nothing is sent
	// for them (in process they are copied, and not counted).
	Start *State
	// Record, if non-nil, is called after every round (on the caller's
	// goroutine) with the round number and the two stopping quantities.
	Record func(round int, primal, step float64)
}

// Status is how Solve ended.
type Status int

const (
	// NotTerminated is the zero value.
	NotTerminated Status = iota
	// Converged: both stopping quantities ≤ Settings.Tol.
	Converged
	// RoundLimit: Settings.MaxRounds rounds without convergence (flagged).
	RoundLimit
	// Diverged: an iterate became NaN or ±Inf.
	Diverged
	// Canceled: the context was canceled.
	Canceled
)

func (s Status) String() string {
	switch s {
	case NotTerminated:
		return "NotTerminated"
	case Converged:
		return "Converged"
	case RoundLimit:
		return "RoundLimit"
	case Diverged:
		return "Diverged"
	case Canceled:
		return "Canceled"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// State is the iterate of Algorithm 1: primal (v, t, z, η, γ, v̂_s, r_s)
// and dual (σ, ψ_s, ζ) variables.
type State struct {
	V, T, Z, Eta []float64
	Gamma        float64
	Sigma, Zeta  []float64
	Psi, VHat    [][]float64
	R            []float64
}

// fits reports whether every block of st has the sizes of S clients and
// d = n+1 model entries.
func (st *State) fits(S, d int) bool {
	for _, x := range [][]float64{st.T, st.Z, st.Eta, st.Sigma, st.Zeta, st.R} {
		if len(x) != S {
			return false
		}
	}
	if len(st.V) != d || len(st.Psi) != S || len(st.VHat) != S {
		return false
	}
	for k := range S {
		if len(st.Psi[k]) != d || len(st.VHat[k]) != d {
			return false
		}
	}
	return true
}

func cloneState(v, t, z, eta []float64, gamma float64, sigma, zeta []float64, psi, vh [][]float64, r []float64) *State {
	cl := func(x []float64) []float64 { return append([]float64(nil), x...) }
	st := &State{V: cl(v), T: cl(t), Z: cl(z), Eta: cl(eta), Gamma: gamma, Sigma: cl(sigma), Zeta: cl(zeta), R: cl(r)}
	for k := range psi {
		st.Psi, st.VHat = append(st.Psi, cl(psi[k])), append(st.VHat, cl(vh[k]))
	}
	return st
}

// Result is the outcome of Solve.
type Result struct {
	// V is the global model (w, b), length n+1.
	V []float64
	// QStar is the worst-case weight estimate −σ (at optimality −σ = ζ ∈ Q).
	QStar []float64
	// Objective is the value of (4) at the last iterate,
	// q̂ᵀ(z + η) + θ‖z + γe + η‖_{p*}.
	Objective float64
	// WorstCase is the certified objective at V: max_{q ∈ Q} Σ q_s f_s(V)
	// with the clients' worst-case losses f_s from Client.Loss and the
	// maximising q from WorstWeights.
	WorstCase float64
	// ClientLoss holds f_s(V).
	ClientLoss []float64
	// Lambda holds the clients' λ_s.
	Lambda []float64
	Status Status
	// Rounds is the number of rounds run.
	Rounds int
	// PrimalResidual and Step are the stopping quantities of the last round.
	PrimalResidual, Step float64
	// BytesPerRound is 2·S·8(n+2): (w, b, z_s) down and (ŵ_s, b_s, r_s) up.
	// BytesReport is the clients' final report, λ_s and f_s(V): 16·S.
	// BytesTotal is Rounds·BytesPerRound + BytesReport.
	BytesPerRound, BytesReport, BytesTotal int64
	// QPIterations is the total of the clients' QP iterations.
	QPIterations int
	// InnerCapHits counts the clients' inner solves that stopped at an
	// iteration cap (CapHitter); the result may then be less accurate.
	InnerCapHits int
	Runtime      time.Duration
	// State is the last iterate, for Settings.Start of a later run.
	State *State `json:"-"`
}

// Solve runs Algorithm 1 on p. s may be nil (defaults). On cancellation it
// returns the partial Result (Status Canceled) and an error wrapping
// ctx.Err(); a client QP failure is an error naming the client and round.
func Solve(ctx context.Context, p *Problem, s *Settings) (*Result, error) {
	start := time.Now()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	set := Settings{}
	if s != nil {
		set = *s
	}
	if set.C == 0 {
		set.C = DefaultC
	}
	if set.Tol == 0 {
		set.Tol = DefaultTol
	}
	if set.MaxRounds == 0 {
		set.MaxRounds = DefaultMaxRounds
	}
	if set.Workers <= 0 {
		set.Workers = 1
	}
	if !(set.C > 0) || math.IsInf(set.C, 1) {
		return nil, inputErr("c = %v, want > 0", set.C)
	}
	S := len(p.Clients)
	n := p.Features
	d := n + 1
	c := set.C
	qh := p.qhat()

	clients := make([]Local, S)
	for k, cl := range p.Clients {
		lc, err := cl.NewLocal(c, set.Tol)
		if err != nil {
			return nil, fmt.Errorf("adlpmm: client %d: %w", k+1, err)
		}
		clients[k] = lc
	}

	v := make([]float64, d)
	t, z, eta := make([]float64, S), make([]float64, S), make([]float64, S)
	var gamma float64
	sigma, zeta := make([]float64, S), make([]float64, S)
	psi := make([][]float64, S)
	vh := make([][]float64, S)
	vhNew := make([][]float64, S)
	for k := range S {
		psi[k], vh[k], vhNew[k] = make([]float64, d), make([]float64, d), make([]float64, d)
	}
	r, rNew := make([]float64, S), make([]float64, S)
	vNew, tNew, zNew, etaNew := make([]float64, d), make([]float64, S), make([]float64, S), make([]float64, S)
	u := make([]float64, S)
	if st := set.Start; st != nil {
		if !st.fits(S, d) {
			return nil, inputErr("start state for %d clients and %d features, want %d and %d", len(st.Z), len(st.V)-1, S, n)
		}
		copy(v, st.V)
		copy(t, st.T)
		copy(z, st.Z)
		copy(eta, st.Eta)
		gamma = st.Gamma
		copy(sigma, st.Sigma)
		copy(zeta, st.Zeta)
		copy(r, st.R)
		for k := range S {
			copy(psi[k], st.Psi[k])
			copy(vh[k], st.VHat[k])
			// A restart restores both sides' copies of the duals.
			rs, ok := clients[k].(Restorer)
			if !ok {
				return nil, inputErr("client %d cannot restart from a start state", k+1)
			}
			rs.Restore(st.Psi[k], st.Zeta[k])
		}
	}

	res := &Result{BytesPerRound: int64(2 * S * 8 * (n + 2)), BytesReport: int64(S * 8 * 2)}
	finish := func(st Status) *Result {
		res.Status = st
		res.State = cloneState(v, t, z, eta, gamma, sigma, zeta, psi, vh, r)
		res.V = append([]float64(nil), v...)
		res.QStar = make([]float64, S)
		for k := range S {
			res.QStar[k] = -sigma[k]
		}
		res.Lambda = make([]float64, S)
		for k, lc := range clients {
			res.Lambda[k] = lc.Lambda()
		}
		a := make([]float64, S)
		var obj float64
		for k := range S {
			a[k] = z[k] + gamma + eta[k]
			obj += qh[k] * (z[k] + eta[k])
		}
		res.Objective = obj + p.Theta*DualNorm(a, p.P)
		res.ClientLoss = make([]float64, S)
		for k, cl := range p.Clients {
			res.ClientLoss[k] = cl.Loss(v)
		}
		qw := WorstWeights(res.ClientLoss, qh, p.Theta, p.P)
		for k := range S {
			res.WorstCase += qw[k] * res.ClientLoss[k]
		}
		res.BytesTotal = res.BytesPerRound*int64(res.Rounds) + res.BytesReport
		for _, lc := range clients {
			res.QPIterations += lc.Iterations()
			if ch, ok := lc.(CapHitter); ok {
				res.InnerCapHits += ch.CapHits()
			}
		}
		res.Runtime = time.Since(start)
		return res
	}

	for round := 1; round <= set.MaxRounds; round++ {
		if err := ctx.Err(); err != nil {
			return finish(Canceled), fmt.Errorf("adlpmm: round %d: %w", round, err)
		}
		updateW(vNew, vh, psi, c)
		updateZT(zNew, tNew, u, t, z, eta, gamma, r, sigma, zeta, qh, c, p.Theta, p.P)
		gammaNew := updateEtaGamma(etaNew, eta, gamma, tNew, zNew, sigma, c)
		// Line 11: the clients, concurrently, each into its own slot.
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(set.Workers)
		for k := range S {
			g.Go(func() error {
				rr, err := clients[k].Round(gctx, vNew, zNew[k], vhNew[k])
				if err != nil {
					return fmt.Errorf("adlpmm: round %d client %d: %w", round, k+1, err)
				}
				rNew[k] = rr
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			if ctx.Err() != nil {
				return finish(Canceled), fmt.Errorf("adlpmm: round %d: %w", round, ctx.Err())
			}
			return finish(NotTerminated), err
		}
		// Step sizes of all primal blocks, then accept.
		var step float64
		step = math.Max(step, maxDiff(vNew, v))
		step = math.Max(step, maxDiff(tNew, t))
		step = math.Max(step, maxDiff(zNew, z))
		step = math.Max(step, maxDiff(etaNew, eta))
		step = math.Max(step, math.Abs(gammaNew-gamma))
		step = math.Max(step, maxDiff(rNew, r))
		for k := range S {
			step = math.Max(step, maxDiff(vhNew[k], vh[k]))
		}
		copy(v, vNew)
		copy(t, tNew)
		copy(z, zNew)
		copy(eta, etaNew)
		gamma = gammaNew
		copy(r, rNew)
		for k := range S {
			copy(vh[k], vhNew[k])
		}
		// Lines 14-17: dual updates, and the primal residual. ψ_s and ζ_s
		// as on the clients (Node.Round): same values, same arithmetic.
		var prim float64
		for k := range S {
			e := t[k] - z[k] - gamma - eta[k]
			sigma[k] += c * e
			prim = math.Max(prim, math.Abs(e))
			for j := range d {
				e := v[j] - vh[k][j]
				psi[k][j] += c * e
				prim = math.Max(prim, math.Abs(e))
			}
			e = r[k] - z[k]
			zeta[k] += c * e
			prim = math.Max(prim, math.Abs(e))
		}
		step *= c
		res.Rounds, res.PrimalResidual, res.Step = round, prim, step
		if set.Record != nil {
			set.Record(round, prim, step)
		}
		if math.IsNaN(prim) || math.IsInf(prim, 0) || math.IsNaN(step) || math.IsInf(step, 0) {
			return finish(Diverged), nil
		}
		if prim <= set.Tol && step <= set.Tol {
			return finish(Converged), nil
		}
	}
	return finish(RoundLimit), nil
}

// updateW is eq. (6): w = Σ_s (c v̂_s − ψ_s) / (cS), into dst.
func updateW(dst []float64, vh, psi [][]float64, c float64) {
	S := float64(len(vh))
	for j := range dst {
		var a float64
		for k := range vh {
			a += c*vh[k][j] - psi[k][j]
		}
		dst[j] = a / (c * S)
	}
}

// updateZT is eqs. (7) and (8) with c' = 2Sc, from the previous t, z, η, γ
// and π = r (the clients' last ρλ + eᵀα/N): z into zNew, t into tNew (u is
// scratch).
func updateZT(zNew, tNew, u, t, z, eta []float64, gamma float64, r, sigma, zeta, qh []float64, c, theta, p float64) {
	S := float64(len(t))
	for k := range t {
		e := t[k] - z[k] - gamma - eta[k]
		zNew[k] = (r[k] + e + 2*S*z[k] + (zeta[k]+sigma[k])/c) / (1 + 2*S)
		u[k] = t[k] - (qh[k]+sigma[k]+c*e)/(2*S*c)
	}
	ProxDualNorm(tNew, u, theta/(2*S*c), p)
}

// updateEtaGamma is eqs. (9) and (10) with c” = 2Sc, from the new t, z and
// the previous η, γ: η into etaNew; it returns the new γ.
func updateEtaGamma(etaNew, eta []float64, gamma float64, t, z, sigma []float64, c float64) float64 {
	S := float64(len(t))
	var sumSig, sumRes float64
	for k := range t {
		rk := sigma[k]/c - gamma - eta[k] + t[k] - z[k]
		etaNew[k] = math.Max(eta[k]+rk/(2*S), 0)
		sumSig += sigma[k]
		sumRes += -gamma - eta[k] + t[k] - z[k]
	}
	return gamma + (1+sumSig+c*sumRes)/(2*S*c)
}

func maxDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}
