package wdro

import (
	"context"
	"fmt"
	"math"

	"github.com/fedcon/fedcon/solver/adlpmm"
	"github.com/fedcon/fedcon/solver/qp"
)

// ClientQP is client s's subproblem C_s of Algorithm 1 (line 11) as a
// convex QP in the variables
//
//	v̂ = (ŵ, b) ∈ ℝⁿ⁺¹, λ, r, α ∈ ℝᴺ, and for Box support s± ∈ ℝⁿ,
//
// with r = ρλ + eᵀα/N as one equality row, so that P is diagonal:
//
//	minimise ζ r + (c/2)(r − z)² − ψᵀv̂ + (c/2)‖v − v̂‖²  s.t.  (λ, α, v̂) ∈ Ω_s.
//
// For Box support, Proposition 6.3's LP dual variables π±, τ± are
// eliminated: by LP duality over the box, ⟨π + τ, e⟩ + ⟨τ − π, x̂⟩ at its
// best equals Σ_j sup_{x_j ∈ [−1,1]} a_j(x_j − x̂_j) − λ|x_j − x̂_j| with
// a = ∓ŷŵ, and each term is the largest of its values at x_j ∈
// {−1, clip(x̂_j), 1}, three affine functions of (ŵ_j, λ). Central bounds
// each term by its own variable (buildOmega); the client QP writes it as
// an affine function plus multiples ≥ 0 of s±_j ≥ max(0, ±ŵ_j − λ), 2n
// variables shared by all samples (buildCompactOmega): the same set Ω_s
// projected onto (v̂, r), also for rows x̂ outside the box, without the
// unbounded optimal faces (π and τ growing together) on which ADMM stalls,
// and about 2nN fewer variables: a heart client's QP has 96 variables
// instead of 1,474, and an SVM fit takes a sixth of the CPU time
// (docs/performance.md).
//
// The constraint matrix depends on the data only; each round changes the
// linear cost alone, and the solve is warm-started from the previous one.
type ClientQP struct {
	n, N   int
	c      float64
	prob   *qp.Problem
	solver *qp.Solver
	q      []float64
	start  *qp.Start
	// Stats of the last solve.
	Last qp.Stats
	// Retries counts the warm-started solves that failed and were solved
	// again by the interior-point method.
	Retries  int
	iters    int
	settings *qp.Settings
}

// ClientQP is the Local of the SVM clients.
var _ adlpmm.Subproblem = (*ClientQP)(nil)

// Iterations returns the total number of QP iterations so far.
func (cq *ClientQP) Iterations() int { return cq.iters }

// Variable layout.
func (cq *ClientQP) iB() int     { return cq.n }
func (cq *ClientQP) iLam() int   { return cq.n + 1 }
func (cq *ClientQP) iR() int     { return cq.n + 2 }
func (cq *ClientQP) iAlpha() int { return cq.n + 3 }

// DefaultQPSettings returns the client QPs' default settings:
// qp.DefaultSettings without Ruiz equilibration, which makes ADMM stall on
// these LP-like problems (IterationLimit with primal residuals near 1e-2 on
// 6×2 data, solved in ≤ 1,000 iterations unscaled; the data are already in
// [−1, 1]), and with at most 300 ADMM iterations per warm-started solve:
// beyond that the interior-point fallback (~15 factorisations, ~40 ms on a
// heart client) is cheaper than more ADMM iterations (~0.25 ms each).
// Polishing, which ends nearly every warm solve, takes one refinement step
// instead of three: it was 72% of a heart fit's CPU, and the fit's time
// fell from 10.9 s to 4.1 s with the same rounds and objective to 1e-9 (a
// polished point is accepted only if it passes the convergence test).
func DefaultQPSettings() *qp.Settings {
	s := qp.DefaultSettings()
	s.ScalingIterations = 0
	s.MaxIterations = 300
	s.PolishRefine = 1
	return s
}

// NewClientQP builds C_s for client cl under model m with step size c > 0.
// settings may be nil (DefaultQPSettings); with Box support and no
// Settings.Ordering the arrow ordering of the per-sample blocks is added
// (settings itself is not modified).
func NewClientQP(cl Client, m Model, c float64, settings *qp.Settings) (*ClientQP, error) {
	return newClientQP(cl, m, c, settings, buildCompactOmega)
}

// newClientQP is NewClientQP with Ω_s built by build (buildCompactOmega, or
// buildOmega in the tests that compare the two).
func newClientQP(cl Client, m Model, c float64, settings *qp.Settings, build func(Client, Model) *omega) (*ClientQP, error) {
	if err := Validate([]Client{cl}, m); err != nil {
		return nil, err
	}
	if m.Loss != LossHinge {
		return nil, inputErr("NewClientQP: loss %v, want hinge (Huber clients are HuberLocal)", m.Loss)
	}
	if !(c > 0) || math.IsInf(c, 1) {
		return nil, inputErr("c = %v, want > 0", c)
	}
	om := build(cl, m)
	n, N, nv, row := om.n, om.N, om.nv, om.rows
	ar, ac, av, lo, hi, box := om.ar, om.ac, om.av, om.lo, om.hi, om.box
	cq := &ClientQP{n: n, N: N, c: c}
	A, err := qp.NewCSC(row, nv, ar, ac, av)
	if err != nil {
		return nil, fmt.Errorf("wdro: client matrix: %w", err)
	}
	var pr, pc []int
	var pv []float64
	for j := 0; j <= n; j++ {
		pr, pc, pv = append(pr, j), append(pc, j), append(pv, c)
	}
	pr, pc, pv = append(pr, cq.iR()), append(pc, cq.iR()), append(pv, c)
	P, err := qp.NewCSC(nv, nv, pr, pc, pv)
	if err != nil {
		return nil, fmt.Errorf("wdro: client cost: %w", err)
	}
	cq.q = make([]float64, nv)
	cq.prob = &qp.Problem{P: P, Q: cq.q, A: A, L: lo, U: hi}
	if settings == nil {
		settings = DefaultQPSettings()
	} else {
		cp := *settings
		settings = &cp
	}
	if box && settings.Ordering == nil {
		shared := []int{}
		for j := 0; j < n+3; j++ {
			shared = append(shared, j)
		}
		for j := n + 3 + N; j < nv && om.compact; j++ { // s± of buildCompactOmega
			shared = append(shared, j)
		}
		shared = append(shared, nv) // the equality row couples all α
		ord, err := qp.ArrowOrdering(cq.prob, shared)
		if err != nil {
			return nil, fmt.Errorf("wdro: client ordering: %w", err)
		}
		settings.Ordering = ord
	}
	cq.settings = settings
	cq.solver, err = qp.NewSolver(cq.prob, settings)
	if err != nil {
		return nil, fmt.Errorf("wdro: client QP: %w", err)
	}
	return cq, nil
}

// interiorPoint solves the current QP by qp.InteriorPoint to 100 times the
// ADMM tolerance (its gap bounds ‖v̂ − v̂*‖ only by about its square root,
// by the c-strong convexity in v̂), then polishes its point with the ADMM
// solver warm-started from it; the polished result is kept if Solved.
func (cq *ClientQP) interiorPoint(ctx context.Context) (*qp.Result, error) {
	set := *cq.settings
	set.EpsAbs, set.EpsRel = set.EpsAbs/100, set.EpsRel/100
	res, err := qp.InteriorPoint(ctx, cq.prob, &set)
	if err != nil || res.Status != qp.Solved {
		return res, err
	}
	pol, err := cq.solver.Solve(ctx, &qp.Start{X: res.X, Y: res.Y})
	if err != nil {
		return nil, err
	}
	if pol.Status == qp.Solved {
		pol.Stats.Iterations += res.Stats.Iterations
		return pol, nil
	}
	return res, nil
}

// omega is client cl's set Ω_s for the hinge loss as rows lo ≤ Ax ≤ hi
// (triplets) in the variable layout (ŵ, b, λ, r, α, u): ŵ ∈ ℝⁿ, b, λ,
// r = ρλ + eᵀα/N (one equality row), α ∈ ℝᴺ, and for Box support the
// bounds u ∈ ℝ²ⁿᴺ of the coordinate suprema (see ClientQP).
type omega struct {
	n, N, nv, rows int
	ar, ac         []int
	av, lo, hi     []float64
	box            bool
	compact        bool // box support with shared s± (buildCompactOmega)
}

func buildOmega(cl Client, m Model) *omega {
	n, N := len(cl.X[0]), len(cl.X)
	box := m.Support == Box && !m.Epigraph
	nv := n + 3 + N
	if box {
		nv += 2 * n * N
	}
	var ar, ac []int
	var av, lo, hi []float64
	row := 0
	add := func(col int, v float64) { ar, ac, av = append(ar, row), append(ac, col), append(av, v) }
	end := func(l, u float64) { lo, hi = append(lo, l), append(hi, u); row++ }
	inf := math.Inf(1)
	// r − ρλ − eᵀα/N = 0.
	add(n+2, 1)
	if !m.Epigraph && cl.Rho != 0 {
		add(n+1, -cl.Rho)
	}
	for i := range N {
		add((n+3)+i, -1/float64(N))
	}
	end(0, 0)
	// λ ≥ 0 (λ = 0 for the epigraph).
	add(n+1, 1)
	if m.Epigraph {
		end(0, 0)
	} else {
		end(0, inf)
	}
	for i := range N {
		add((n+3)+i, 1)
		end(0, inf)
	}
	if !m.Epigraph && m.Support == Free {
		// ‖ŵ‖∞ ≤ λ.
		for j := range n {
			for _, pm := range []float64{1, -1} {
				add(j, pm)
				add(n+1, -1)
				end(-inf, 0)
			}
		}
	}
	for i, x := range cl.X {
		y := cl.Y[i]
		ia := (n + 3) + i
		base := n + 3 + N + 2*n*i
		labels := []float64{y, -y}
		if m.Epigraph {
			labels = labels[:1] // no flipped label without transport
		}
		for branch, ys := range labels {
			// 1 − ys(⟨ŵ,x̂⟩ + b) [+ Σ u] [− κλ if flipped] ≤ α
			for j := range n {
				add(j, -ys*x[j])
			}
			add(n, -ys)
			add(ia, -1)
			if box {
				for j := range n {
					add(base+n*branch+j, 1)
				}
			}
			if branch == 1 {
				add(n+1, -m.Kappa)
			}
			end(-inf, -1)
			if !box {
				continue
			}
			for j := range n {
				uj := base + n*branch + j
				pts := []float64{-1, 1}
				if c := math.Max(-1, math.Min(1, x[j])); c != -1 && c != 1 {
					pts = append(pts, c)
				}
				for _, xc := range pts {
					// −ys(xc − x̂_j)ŵ_j − |xc − x̂_j|λ − u_j ≤ 0
					d := xc - x[j]
					if d != 0 {
						add(j, -ys*d)
						add(n+1, -math.Abs(d))
					}
					add(uj, -1)
					end(-inf, 0)
				}
			}
		}
	}
	return &omega{n: n, N: N, nv: nv, rows: row, ar: ar, ac: ac, av: av, lo: lo, hi: hi, box: box}
}

// Size returns the number of variables and rows of the QP.
func (cq *ClientQP) Size() (vars, rows int) { return cq.solver.Size() }

// Step runs C_s(v, z, ψ, ζ) and writes the new local model v̂ = (ŵ, b)
// into vhat (length n+1); it returns r = ρλ + eᵀα/N and λ. The first
// round is solved by qp.InteriorPoint, later rounds by the QP's ADMM
// warm-started from the previous solution, falling back to the interior
// point when ADMM ends unsolved (SolvedInaccurate included). If that fails
// too, the error wraps the status's error.
func (cq *ClientQP) Step(ctx context.Context, v []float64, z float64, psi []float64, zeta float64, vhat []float64) (r, lam float64, err error) {
	for j := 0; j <= cq.n; j++ {
		cq.q[j] = -psi[j] - cq.c*v[j]
	}
	cq.q[cq.iR()] = zeta - cq.c*z
	if err := cq.solver.Update(cq.q, nil, nil); err != nil {
		return 0, 0, fmt.Errorf("wdro: client update: %w", err)
	}
	var res *qp.Result
	if cq.start != nil {
		res, err = cq.solver.Solve(ctx, cq.start)
		if err != nil {
			return 0, 0, err
		}
	}
	if res == nil || res.Status != qp.Solved {
		// Cold starts, and warm starts that stall (SolvedInaccurate too: at
		// the 300-iteration cap it means 10× looser): the QP's ADMM can need
		// 10,000+ iterations on these LP-like problems (heart, repetition
		// 5, round 5: ρ adapted down to 2.8e-4, primal residual 1.7e-2
		// after 20,000), which the interior-point method solves in ~15.
		if res != nil {
			cq.iters += res.Stats.Iterations
			cq.Retries++
		}
		if res, err = cq.interiorPoint(ctx); err != nil {
			return 0, 0, err
		}
	}
	cq.Last = res.Stats
	cq.iters += res.Stats.Iterations
	if !res.Status.HasSolution() {
		return 0, 0, fmt.Errorf("wdro: client QP: %w", res.Status.Err())
	}
	cq.start = &qp.Start{X: res.X, Y: res.Y}
	copy(vhat, res.X[:cq.n+1])
	return res.X[cq.iR()], res.X[cq.iLam()], nil
}

// buildCompactOmega is buildOmega with the coordinate suprema bounded by
// 2n variables shared by all samples instead of 2n per sample: with a_j =
// ∓ŷŵ_j and s±_j ≥ max(0, ±ŵ_j − λ), the term sup_{x_j ∈ [−1,1]}
// a_j(x_j − x̂_j) − λ|x_j − x̂_j| is
//
//	(1 − x̂_j) max(0, a_j − λ) + (1 + x̂_j) max(0, −a_j − λ)   for |x̂_j| ≤ 1,
//	(x̂_j − 1)(−a_j − λ) + 2 max(0, −a_j − λ)                    for x̂_j > 1,
//	(−1 − x̂_j)(a_j − λ) + 2 max(0, a_j − λ)                     for x̂_j < −1,
//
// each max being s+_j or s−_j, with coefficients ≥ 0, so that raising s
// only tightens the row and the projection of the set onto (v̂, r) is
// buildOmega's. The client QP has n+3+N+2n variables and 2+3N+4n rows
// instead of about 2nN and 6nN; its solution (v̂, r) is the same, since
// C_s is strongly convex in (v̂, r). Without box support it is buildOmega.
func buildCompactOmega(cl Client, m Model) *omega {
	if m.Support != Box || m.Epigraph {
		return buildOmega(cl, m)
	}
	n, N := len(cl.X[0]), len(cl.X)
	iLam, iR, iA, iS := n+1, n+2, n+3, n+3+N
	sPlus := func(j int) int { return iS + j }
	sMinus := func(j int) int { return iS + n + j }
	nv := iS + 2*n
	var ar, ac []int
	var av, lo, hi []float64
	row := 0
	add := func(col int, v float64) {
		if v != 0 {
			ar, ac, av = append(ar, row), append(ac, col), append(av, v)
		}
	}
	end := func(l, u float64) { lo, hi = append(lo, l), append(hi, u); row++ }
	inf := math.Inf(1)
	// r − ρλ − eᵀα/N = 0.
	add(iR, 1)
	add(iLam, -cl.Rho)
	for i := range N {
		add(iA+i, -1/float64(N))
	}
	end(0, 0)
	add(iLam, 1) // λ ≥ 0
	end(0, inf)
	for i := range N {
		add(iA+i, 1)
		end(0, inf)
	}
	// s±_j ≥ ±ŵ_j − λ and s±_j ≥ 0.
	for j := range n {
		for _, pm := range []float64{1, -1} {
			sj := sPlus(j)
			if pm < 0 {
				sj = sMinus(j)
			}
			add(sj, 1)
			add(j, -pm)
			add(iLam, 1)
			end(0, inf)
			add(sj, 1)
			end(0, inf)
		}
	}
	// s(σ) is max(0, σŵ_j − λ): s+_j for σ = 1, s−_j for σ = −1.
	s := func(sigma float64, j int) int {
		if sigma > 0 {
			return sPlus(j)
		}
		return sMinus(j)
	}
	wc, sc := make([]float64, n), make([]float64, 2*n)
	for i, x := range cl.X {
		y := cl.Y[i]
		for branch, ys := range []float64{y, -y} {
			// 1 − ys(⟨ŵ,x̂⟩ + b) + Σ_j T_j [− κλ if flipped] ≤ α_i, with
			// a_j = −ys ŵ_j: a_j − λ = −ysŵ_j − λ and −a_j − λ = ysŵ_j − λ.
			clear(wc)
			clear(sc)
			var lc float64
			for j, xj := range x {
				wc[j] = -ys * xj
				switch {
				case xj > 1:
					// (x̂ − 1)(ysŵ − λ) + 2 s(ys)
					wc[j] += (xj - 1) * ys
					lc -= xj - 1
					sc[s(ys, j)-iS] += 2
				case xj < -1:
					// (−1 − x̂)(−ysŵ − λ) + 2 s(−ys)
					wc[j] += (1 + xj) * ys
					lc += 1 + xj
					sc[s(-ys, j)-iS] += 2
				default:
					sc[s(-ys, j)-iS] += 1 - xj
					sc[s(ys, j)-iS] += 1 + xj
				}
			}
			if branch == 1 {
				lc -= m.Kappa
			}
			for j := range n {
				add(j, wc[j])
			}
			add(n, -ys)
			add(iLam, lc)
			add(iA+i, -1)
			for k, v := range sc {
				add(iS+k, v)
			}
			end(-inf, -1)
		}
	}
	return &omega{n: n, N: N, nv: nv, rows: row, ar: ar, ac: ac, av: av, lo: lo, hi: hi, box: true, compact: true}
}
