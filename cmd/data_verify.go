package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
)

// DataVerifyOptions are the inputs of 'fedcon data verify'.
type DataVerifyOptions struct {
	IO    *IOStreams
	Dirs  []string // search path (datasets.SearchPath)
	Names []string // datasets; empty means all
	JSON  bool     // --json
}

// NewCmdDataVerify returns 'fedcon data verify'; runF replaces the run function in tests.
func NewCmdDataVerify(f *Factory, runF func(*DataVerifyOptions) error) *cobra.Command {
	o := &DataVerifyOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "verify [NAME...]",
		Short: "Check the record counts and SHA-256 sums of the raw files",
		Long: `Check every raw file of the named datasets (all when none is named) against
its pinned record count and SHA-256. A copy that differs only in line endings
or spacing passes through its content checksum. Fails (exit 2) naming the
first missing or damaged file and the fix.`,
		Example:   "  fedcon data verify\n  fedcon data verify adult-b --data-dir ../shared/datasets",
		ValidArgs: datasets.Names(),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkDatasetArgs(c, args); err != nil {
				return err
			}
			o.Dirs, o.Names = dataDirs(f, c), args
			o.JSON, _ = c.Flags().GetBool("json")
			if runF != nil {
				return runF(o)
			}
			return dataVerifyRun(o)
		},
	}
	return c
}

func dataVerifyRun(o *DataVerifyOptions) error {
	sts, firstErr := datasets.CheckFiles(o.Names, o.Dirs)
	if o.JSON {
		var out []dataFileStatus
		for i := range sts {
			out = append(out, toDataFileStatus(&sts[i]))
		}
		if err := printJSON(o.IO.Out, map[string]any{"dirs": o.Dirs, "files": out}); err != nil {
			return err
		}
		return firstErr
	}
	t := dataTable(o.IO.Out, "file", "records", "status", "path")
	for i := range sts {
		st := &sts[i]
		status := "ok"
		switch {
		case !st.Present():
			status = "missing"
		case st.Err != nil:
			status = "FAILED: " + causeOf(st.Err)
		case st.Normalized:
			status = "ok (whitespace differs)"
		}
		recs := "-"
		if st.Present() {
			recs = fmt.Sprintf("%d / %d", st.Records, st.File.Records)
		}
		if err := t.Append(st.File.Path, recs, status, st.Path); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	return firstErr
}

// causeOf is the short cause of a *datasets.FileError, for a table cell.
func causeOf(err error) string {
	var fe *datasets.FileError
	if !errors.As(err, &fe) {
		return err.Error()
	}
	var pe *datasets.ParseError
	if errors.As(fe.Err, &pe) {
		return fmt.Sprintf("line %d: %s", pe.Line, pe.Msg)
	}
	return fe.Err.Error()
}
