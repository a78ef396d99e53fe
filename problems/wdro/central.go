package wdro

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/fedcon/fedcon/solver/qp"
)

// Central solves problem (4) for the hinge loss centrally, as one LP in
// all clients' variables: each client's Ω_s block (buildOmega) with its
// copy v̂_s of v = (w, b) tied to v by equality rows, r_s in the role of
// z_s, η ≥ 0, γ, and θ‖z + γe + η‖_{p*} by one bound (p = 1, p* = ∞) or S
// bounds (p = ∞, p* = 1). It is solved by qp.InteriorPoint; the
// cross-validation of the DRFL experiments may use it in place of
// Algorithm 1 (issue 10 allows centralised solves there), since the
// interior point takes a few dozen factorisations where Algorithm 1 takes
// hundreds of rounds. qhat nil means N_s/N. It returns v and the
// objective of (4). Huber (a quadratic constraint) and p = 2 (a second-
// order cone) are not LPs and are refused.
func Central(ctx context.Context, clients []Client, m Model, theta, p float64, qhat []float64) (v []float64, obj float64, err error) {
	return new(CentralLP).Solve(ctx, clients, m, theta, p, qhat)
}

// A CentralLP solves (4) like Central and keeps the KKT ordering of the
// last sparsity pattern it saw, so that a grid of fits on the same
// clients (a cross-validation fold) orders once: on the DRFL folds the
// minimum-degree ordering was 7% of the time. It is safe for concurrent
// use; the solution does not depend on whether the ordering was reused.
type CentralLP struct {
	// Eps, if > 0, replaces the interior point's EpsAbs and EpsRel
	// (default 1e-7); SolvedInaccurate, at ten times it, is accepted.
	Eps   float64
	mu    sync.Mutex
	colP  []int // pattern of the cached ordering: A's column pointers
	rowI  []int // and row indices
	order []int
}

// Solve is Central with the ordering cache.
func (c *CentralLP) Solve(ctx context.Context, clients []Client, m Model, theta, p float64, qhat []float64) (v []float64, obj float64, err error) {
	prob, A, err := centralProblem(clients, m, theta, p, qhat)
	if err != nil {
		return nil, 0, err
	}
	n := Features(clients)
	set := qp.DefaultSettings()
	if c.Eps > 0 {
		set.EpsAbs, set.EpsRel = c.Eps, c.Eps
	}
	if set.Ordering, err = c.ordering(prob, A); err != nil {
		return nil, 0, fmt.Errorf("wdro: central LP: %w", err)
	}
	res, err := qp.InteriorPoint(ctx, prob, set)
	if err != nil {
		return nil, 0, fmt.Errorf("wdro: central LP: %w", err)
	}
	if !res.Status.HasSolution() { // SolvedInaccurate (10× looser) is enough here
		return nil, 0, fmt.Errorf("wdro: central LP: %w", res.Status.Err())
	}
	return res.X[:n+1], res.Objective, nil
}

// centralProblem builds the LP of Central: its variables start with
// v = (w, b).
func centralProblem(clients []Client, m Model, theta, p float64, qhat []float64) (*qp.Problem, *qp.CSC, error) {
	if err := Validate(clients, m); err != nil {
		return nil, nil, err
	}
	if m.Loss != LossHinge {
		return nil, nil, inputErr("central solve: loss %v is not an LP, want hinge", m.Loss)
	}
	if p != 1 && !math.IsInf(p, 1) {
		return nil, nil, inputErr("central solve: p = %v is not an LP, want 1 or inf", p)
	}
	if !(theta >= 0) {
		return nil, nil, inputErr("theta = %v, want ≥ 0", theta)
	}
	S, n := len(clients), Features(clients)
	if qhat == nil {
		qhat = SampleShares(clients)
	}
	if len(qhat) != S {
		return nil, nil, inputErr("qhat has %d entries for %d clients", len(qhat), S)
	}
	var ar, ac []int
	var av, lo, hi, cost []float64
	nv := n + 1 // v
	newVar := func(c float64) int { cost = append(cost, c); nv++; return nv - 1 }
	cost = make([]float64, n+1)
	row := 0
	add := func(col int, x float64) { ar, ac, av = append(ar, row), append(ac, col), append(av, x) }
	end := func(l, u float64) { lo, hi = append(lo, l), append(hi, u); row++ }
	rIdx := make([]int, S)
	for s, cl := range clients {
		om := buildOmega(cl, m)
		off := nv
		for range om.nv {
			newVar(0)
		}
		for k := range om.ar {
			ar, ac, av = append(ar, row+om.ar[k]), append(ac, off+om.ac[k]), append(av, om.av[k])
		}
		lo, hi = append(lo, om.lo...), append(hi, om.hi...)
		row += om.rows
		for j := 0; j <= n; j++ { // v̂_s = v
			add(off+j, 1)
			add(j, -1)
			end(0, 0)
		}
		rIdx[s] = off + n + 2
		cost[rIdx[s]] = qhat[s]
	}
	inf := math.Inf(1)
	eta := make([]int, S)
	for s := range S {
		eta[s] = newVar(qhat[s])
		add(eta[s], 1)
		end(0, inf)
	}
	gamma := newVar(0)
	if theta == 0 {
		add(gamma, 1)
		end(0, 0)
	} else {
		shared := -1
		if p == 1 {
			shared = newVar(theta)
		}
		for s := range S {
			a := shared
			if a < 0 {
				a = newVar(theta)
			}
			for _, sg := range []float64{1, -1} { // a ≥ sg·(r_s + γ + η_s)
				add(a, 1)
				add(rIdx[s], -sg)
				add(gamma, -sg)
				add(eta[s], -sg)
				end(0, inf)
			}
		}
	}
	A, err := qp.NewCSC(row, nv, ar, ac, av)
	if err != nil {
		return nil, nil, fmt.Errorf("wdro: central LP: %w", err)
	}
	return &qp.Problem{Q: cost, A: A, L: lo, U: hi}, A, nil
}

// ordering returns the cached ordering if A's pattern is the cached one,
// else computes and caches prob's (A is prob.A, typed as CSC).
func (c *CentralLP) ordering(prob *qp.Problem, A *qp.CSC) ([]int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.order == nil || !slices.Equal(c.colP, A.P) || !slices.Equal(c.rowI, A.I) {
		order, err := qp.MinDegreeOrdering(prob)
		if err != nil {
			return nil, err
		}
		c.colP, c.rowI, c.order = slices.Clone(A.P), slices.Clone(A.I), order
	}
	return c.order, nil
}

// SampleShares returns q̂_s = N_s/N, the default centre of Q.
func SampleShares(clients []Client) []float64 {
	var N float64
	for _, c := range clients {
		N += float64(len(c.X))
	}
	q := make([]float64, len(clients))
	for s, c := range clients {
		q[s] = float64(len(c.X)) / N
	}
	return q
}
