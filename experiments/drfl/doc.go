// Package drfl defines the DRFL paper's experiments (AD-LPMM, solver/adlpmm):
// its figures under noise, its cross-validation and Figure 1.
package drfl
