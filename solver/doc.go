// Package solver implements the proximal augmented Lagrangian methods for
// constrained federated learning of "Federated learning with convex global
// and local constraints" (the core paper in ../shared/papers):
//
//   - Algorithm 1 (ProxAL): the federated proximal AL outer loop, eqs. (9)-(14);
//   - Algorithm 2: its inexact ADMM inner solver, eqs. (18)-(23);
//   - Algorithm 3 (CProxAL): the centralized proximal AL baseline (Appendix D).
//
// The problem is eq. (5) with h = 0:
//
//	minimise   Σ_{i=1..n} f_i(w)
//	subject to c_0(w) ∈ -K_0 (server, global),  c_i(w) ∈ -K_i (client i, local),
//
// where each K_i is a closed convex cone (Cone): the nonnegative orthant gives
// c_i(w) ≤ 0, the zero cone c_i(w) = 0, the second-order cone SOC a norm
// ball, and Product any combination — the conic version of the method ("...
// global and local convex conic constraints", eqs. (1), (6)-(11), (56)).
// Parties expose values, gradients and constraint Jacobians (Party);
// quadratic parties with equality constraints may also expose their data
// (QuadraticParty) so subproblems are solved exactly by a cached Cholesky
// factorisation (QuadCache). Other cones make the AL subproblem nonlinear; it
// goes to the smooth solver (Newton uses the cone's DualJacobian: a
// semismooth Newton method).
//
// Federation boundary: the server side of Algorithm 1 talks to clients only
// through a Transport (broadcast, local step, replies in client order). The
// in-process transport runs clients as goroutines; reductions happen in client
// order, so results are bit-identical for any number of workers. Every float
// that crosses the boundary is counted in Stats. With ProxAL.Participation
// only a sample of the clients takes part in each ADMM round (through a
// SubsetTransport; a PartialTransport may end such a round at a deadline,
// leaving out clients that must then not have acted); test (23), the outer
// step and the audit remain rounds that every client answers.
// Participation.Replay reruns a recorded participation instead of sampling.
//
// Invariants: Solve never modifies the Problem or w0 and never prints; progress
// goes to Settings.Recorder. A cap is a Status, not an error; Solve returns an
// error only when it cannot proceed (bad input, a NaN from a party, a canceled
// context — in that last case together with the partial Result).
package solver
