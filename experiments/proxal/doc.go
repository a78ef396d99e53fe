// Package proxal defines the prox-AL paper's experiments: Neyman-Pearson
// (Table 1), fairness (Table 2), the LCQP of Table 4, Figures 1-2, Table 3
// and runs on a user's own data, with their check rules and cost models;
// also the method's configuration shared by these and the conic version
// (MethodConfig, partial participation) and the tallies of its runs.
package proxal
