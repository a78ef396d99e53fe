// Package problems holds the papers' losses and constraints as solver
// parties: the linear-equality-constrained QP of eq. (84), and (in their own
// files) the Neyman-Pearson and fairness problems of eqs. (30) and (32).
// Each party owns its data and implements solver.Party.
package problems
