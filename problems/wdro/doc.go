// Package wdro holds the Wasserstein distributionally robust federated
// learning model of Bai, Wong, Qiao and Ho, "Distributionally Robust
// Federated Learning: An ADMM Algorithm" (../shared/papers): the clients'
// data, the set Ω_s of Proposition 4.2 for the hinge loss (Proposition 6.3
// with support X = [−1, 1]ⁿ, or X = ℝⁿ), the client subproblem C_s of
// Algorithm 1 as a quadratic program for solver/qp, and exact evaluations
// of the worst-case losses that certify a solution.
//
// # Model
//
// Client s holds N_s rows (x̂_si, ŷ_si), ŷ ∈ {−1, +1}, and a radius ρ_s.
// The classifier is ⟨w, x⟩ + b; the transport cost is
// ‖x − x̂‖₁ + κ·1{y ≠ ŷ}, so the dual norm in Ω_s is ℓ∞, and the intercept b
// is not transported (the paper's model has none). The consensus vector
// shared between the server and the clients is v = (w, b) ∈ ℝⁿ⁺¹.
//
// Client s's worst-case expected loss is (Proposition 4.2)
//
//	f_s(v) = min_{λ ≥ 0} ρ_s λ + (1/N_s) Σ_i sup_x [L(x, ŷ_i) − λ‖x − x̂_i‖₁, L(x, −ŷ_i) − λ‖x − x̂_i‖₁ − κλ]
//
// with L(x, y) = max(0, 1 − y(⟨w, x⟩ + b)); WorstCaseLoss evaluates it
// without any LP, from the closed form of the inner suprema, as an
// independent check of Ω_s. With Epigraph set the ball is dropped and
// f_s is the empirical hinge loss (AFL, DRFA and standard FL).
//
// # Invariants
//
// Nothing here modifies its arguments. A ClientQP keeps its qp.Solver for
// warm starts and is not safe for concurrent use; distinct clients are.
package wdro
