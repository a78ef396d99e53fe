package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments"
)

// CheckOptions are the arguments of `fedcon check`.
type CheckOptions struct {
	Dir      string
	JSON     bool
	Quick    bool
	Baseline string   // print a baseline entry for configs/reference instead of checking
	DataDirs []string // data sets' search path: the gate recomputes the data split
	// Strict fails trial files computed by another fedcon version or commit
	// (or by a build from a modified work tree); without it they are reported.
	Strict bool
	// Version is this fedcon's, against which trial files are compared.
	Version string
}

func newCmdCheck(f *Factory, runF func(*CheckOptions) error) *cobra.Command {
	o := &CheckOptions{Version: f.Version}
	c := &cobra.Command{
		Use:   "check [results-dir]",
		Short: "Compare result files with the papers' values and the algorithms' guarantees; exit 1 on any failure",
		Long: `check reads the result files in results-dir (default results/) and lists every experiment it
finds there with what it checked. Experiments without a reference file (figures, SSCA, DRFL,
Table 3, run and sweep directories) get the generic rules: result file, manifest complete, every
trial file valid and equal to the result's trials, Converged runs within (ε1, ε2), provenance. An
experiment that 'reproduce all' was asked for and that is absent fails as "not run". For the
tables with a reference file, it first rebuilds each table from its trial files and fails on any
difference: manifest complete and of the same configuration,
the configuration's cells and trial counts, every trial file valid and equal to the result's trial,
rows and CSV/Markdown tables equal to their recomputation, each Converged run's KKT residuals within
(ε1, ε2), (Table 4, conic Table 1) f* equal to an independent solve, and (Table 1, conic Table 2,
run np) each objective within its KKT-derived band of the gate's own barrier solve of the cell
(none for fairness: its constraint is nonconvex). At every stored returned point (w, μ) of the
classification, QP and conic QP tables, and of run np|fair|qp, it recomputes the objective, the
constraints, Definition 1's residuals and the status with its own plain float64 code, on the data
or instance rebuilt from the configuration (with one norm ball, also the distance to its own w*);
at the stored weights of the DRFL noise figures and of run drfl --out, the worst-case objective
and every plotted or printed score; for DRFL Figure 1, its distances, radii, volumes and coverage
curve from the seed's draws; at the final weights stored for run 0 of each SSCA curve, the last
point's cost F(w^T) and test accuracy. Then it applies the rules of
configs/reference/*.yaml: statuses, KKT residuals and feasibility against (ε1, ε2), objectives
against the exact optimum with a KKT-derived band, and, for the paper's own instances, against
the published values. Trial files computed by another fedcon version or commit, or by a build
with uncommitted changes, are counted and named (the provenance rule); --strict fails them. It
prints a pass/fail table and exits 1 if any check fails.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Dir = "results"
			if len(args) == 1 {
				o.Dir = args[0]
			}
			o.Dir = resultsDir(o.Dir, o.Quick)
			o.JSON, _ = c.Flags().GetBool("json")
			o.DataDirs = dataDirs(f, c)
			if runF != nil {
				return runF(o)
			}
			return checkRun(f, o)
		},
	}
	c.Flags().BoolVar(&o.Quick, "quick", false, "check the smoke run of 'reproduce all --quick': results-dir/quick/ (default results/quick/)")
	c.Flags().BoolVar(&o.Strict, "strict", false, "fail on trial files computed by another fedcon version or commit, or by a build with uncommitted changes (-dirty); without it they are reported")
	c.Flags().StringVar(&o.Baseline, "print-baseline", "", "print the per-trial objectives of the table1, table2*, conic-table2 and conic-table3 results as a regression baseline entry for configs/reference/ (DESCRIPTION), then exit")
	return c
}

func checkRun(f *Factory, o *CheckOptions) error {
	if o.Baseline != "" {
		return printBaselines(f, o)
	}
	g, err := experiments.Gate(o.Dir, experiments.GateOptions{DataDirs: o.DataDirs, Version: o.Version, Strict: o.Strict})
	if errors.Is(err, experiments.ErrNoResults) || errors.Is(err, fs.ErrNotExist) {
		return flagErrorf("check: no result files in %s (run 'fedcon reproduce all' or 'fedcon reproduce all --quick' first)", o.Dir)
	}
	if err != nil {
		return err
	}
	if o.JSON {
		if err := printJSON(f.IO.Out, g.Rows); err != nil {
			return err
		}
	} else if err := printTables(f.IO.Out, f.tableWidth(), experiments.CoverageTable(g.Coverage), experiments.CheckTable(g.Rows, g.Coverage...)); err != nil {
		return err
	}
	for _, r := range g.Rows {
		if !r.Pass {
			fmt.Fprintln(f.IO.ErrOut, "fedcon check: failed")
			return SilentError
		}
	}
	return nil
}

// printBaselines prints the baseline entries of the experiments with
// reference baselines (--print-baseline).
func printBaselines(f *Factory, o *CheckOptions) error {
	found := 0
	for _, name := range experiments.CheckNames() {
		b, err := os.ReadFile(filepath.Join(o.Dir, name, name+".json"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		found++
		if name == "table4" {
			continue // Table 4 is checked against the exact optimum
		}
		y, err := experiments.BaselineYAML(name, b, o.Baseline)
		if err != nil {
			return err
		}
		fmt.Fprintf(f.IO.Out, "# %s\n%s", name, y)
	}
	if found == 0 {
		return flagErrorf("check: no result files in %s (run 'fedcon reproduce all' or 'fedcon reproduce all --quick' first)", o.Dir)
	}
	return nil
}
