// Package experiments is the core the papers' experiments share: the
// results store and its locks, manifests and run records (RunInfo), trial
// files and their validation, tables, statistics, figures, sweeps and
// shards, the pre-flight checks (CheckFinite, Cost, Interruptible), the
// check gate of `fedcon check` (CheckRow, RegisterCheck, CheckExperiment,
// VerifyResult), the report page and the published-values loader. It
// computes; cmd/ prints.
//
// Each paper's experiments live in a package below: proxal (the prox-AL
// paper: Tables 1-4, Figures 1-2, own data), conic (its conic version,
// which builds on proxal), ssca and drfl; fedjob is the job a served run
// carries. Those packages register their tables' checks from init; the
// core imports none of them, and of the solver it names only a run's
// Status, which every paper reports (layers_test.go).
package experiments
