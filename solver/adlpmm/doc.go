// Package adlpmm implements Algorithm 1 of Bai, Wong, Qiao and Ho,
// "Distributionally Robust Federated Learning: An ADMM Algorithm": the
// alternating direction linearized proximal method of multipliers
// (AD-LPMM) for the DRFL reformulation (4), split as in (5) into the server
// block (w, t, z), updated in closed form by eqs. (6)-(8), the block
// (η, γ) of eqs. (9)-(10), and the clients' blocks (λ_s, α_s, ŵ_s), each
// solved on the client's own data behind the Client interface (implemented
// by problems/wdro as a QP).
//
// # Conventions
//
// The model is ⟨w, x⟩ + b: the consensus vector v = (w, b) ∈ ℝⁿ⁺¹ takes the
// place of w in (5)-(6) and lines 11 and 16 (the intercept is not
// transported). The proximal constants are c' = c” = 2Sc, valid since
// λ_max(A₁ᵀA₁) = 2 and λ_max(A₂ᵀA₂) = S + 1 (Appendix E). θ = 0 means
// Q = {q̂} and eq. (8) reduces to t = u. All primal and dual variables
// start at 0.
//
// Each round the server sends client s the n+2 numbers (w, b, z_s) and
// receives (ŵ_s, b_s, r_s) with r_s = ρ_sλ_s + eᵀα_s/N_s: 8(n+2) bytes each
// way: the Local interface, all the server calls. Both sides update ψ_s
// and ζ_s from these (the client side is Node, over the client's
// Subproblem), so the duals never cross; data and α_s stay on the client.
// At the end each client reports λ_s and f_s(V): 16 bytes.
//
// # Invariants
//
// Solve never modifies its Problem. Clients are solved concurrently
// (Settings.Workers) into their own slots, so results are bit-identical for
// any number of workers.
package adlpmm
