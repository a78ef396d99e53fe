// Package conic defines the conic version's experiments: the conic QP of
// its Table 1 and the classification Tables 2-3 and figures, which rerun
// the prox-AL experiments (package proxal) with other parameters and cones.
package conic
