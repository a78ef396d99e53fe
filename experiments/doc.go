// Package experiments defines the papers' experiments: which problems are
// solved with which settings, over which trials, and which metrics form the
// published tables and figures. It computes; cmd/ prints.
package experiments
