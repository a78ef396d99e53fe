package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments"
)

// ReportOptions are the arguments of `fedcon report`.
type ReportOptions struct {
	Dir      string
	Quick    bool
	JSON     bool
	DataDirs []string // data sets' search path: the gate recomputes the data split
}

func newCmdReport(f *Factory, runF func(*ReportOptions) error) *cobra.Command {
	o := &ReportOptions{}
	c := &cobra.Command{
		Use:   "report [results-dir]",
		Short: "Write results-dir/index.html and report.md: every table, figure, check verdict and manifest",
		Long: `report reads results-dir (default results/) and writes two files into it: index.html, a
static page (no scripts; SVG figures inline) and report.md, its Markdown twin. They show the
check gate's verdict per rule (as 'fedcon check' decides it), one section per run directory
with its manifest facts (version, commit, config hash, machine, wall time), every table
(from <name>.csv, titled by <name>.md) and figure (<name>.svg, else <name>.png), and links
to the raw files. A file that cannot be read or does not validate is named in the page and
in a warning on stderr; the rest of the report is still written.`,
		Example: `  fedcon report
  fedcon report --quick
  fedcon report /tmp/results`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Dir = "results"
			if o.Quick {
				o.Dir = filepath.Join("results", "quick")
			}
			if len(args) == 1 {
				o.Dir = args[0]
			}
			o.JSON, _ = c.Flags().GetBool("json")
			o.DataDirs = dataDirs(f, c)
			if runF != nil {
				return runF(o)
			}
			return reportRun(f, o)
		},
	}
	c.Flags().BoolVar(&o.Quick, "quick", false, "report on the smoke run of 'reproduce all --quick' (default dir results/quick)")
	return c
}

func reportRun(f *Factory, o *ReportOptions) error {
	r, err := experiments.BuildReport(o.Dir, o.DataDirs)
	switch {
	case errors.Is(err, experiments.ErrNoResults):
		return flagErrorf("report: no results in %s (run 'fedcon reproduce all' or 'fedcon reproduce all --quick' first)", o.Dir)
	case errors.Is(err, fs.ErrNotExist):
		return flagErrorf("report: %s: no such directory", o.Dir)
	case err != nil:
		return err
	}
	paths, err := r.Write(o.Dir)
	if err != nil {
		return err
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(f.IO.ErrOut, "fedcon report: warning: %s\n", w)
	}
	if o.JSON {
		type gate struct {
			Dir     string `json:"dir"`
			Pass    bool   `json:"pass"`
			Verdict string `json:"verdict"`
		}
		doc := struct {
			Written  []string `json:"written"`
			Runs     int      `json:"runs"`
			Gates    []gate   `json:"gates"`
			Warnings []string `json:"warnings"`
		}{Written: paths, Runs: len(r.Runs), Gates: []gate{}, Warnings: append([]string{}, r.Warnings...)}
		for i := range r.Gates {
			g := &r.Gates[i]
			doc.Gates = append(doc.Gates, gate{g.Dir, g.Pass(), g.Verdict()})
		}
		return printJSON(f.IO.Out, doc)
	}
	for _, p := range paths {
		fmt.Fprintln(f.IO.Out, p)
	}
	return nil
}
