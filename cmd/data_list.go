package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
)

// DataListOptions are the inputs of 'fedcon data list'.
type DataListOptions struct {
	IO   *IOStreams
	Dirs []string // search path (datasets.SearchPath)
	JSON bool     // --json
}

// NewCmdDataList returns 'fedcon data list'; runF replaces the run function in tests.
func NewCmdDataList(f *Factory, runF func(*DataListOptions) error) *cobra.Command {
	o := &DataListOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the datasets, their files, and whether the files are present and intact",
		Long: `List every dataset (the UCI ones, Fashion-MNIST, and MNIST when present),
its files, and whether they are present and intact on the search path
(--data-dir, $FEDCON_DATA_DIR, the per-user cache dir; for Fashion-MNIST also
Debian's dataset-fashion-mnist).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.Dirs = dataDirs(f, c)
			o.JSON, _ = c.Flags().GetBool("json")
			if runF != nil {
				return runF(o)
			}
			return dataListRun(o)
		},
	}
	return c
}

// dataListEntry is one dataset in 'data list --json'.
type dataListEntry struct {
	Name    string           `json:"name"`
	Summary string           `json:"summary"`
	Files   []dataFileStatus `json:"files"`
}

func dataListRun(o *DataListOptions) error {
	all := datasets.CheckAll(o.Dirs)
	var entries []dataListEntry
	for _, ds := range all {
		e := dataListEntry{Name: ds.Name, Summary: datasets.Summary(ds.Name)}
		for i := range ds.Files {
			e.Files = append(e.Files, toDataFileStatus(&ds.Files[i]))
		}
		entries = append(entries, e)
	}
	if o.JSON {
		return printJSON(o.IO.Out, map[string]any{"dirs": o.Dirs, "datasets": entries})
	}
	t := dataTable(o.IO.Out, "dataset", "files", "present", "checksum")
	for _, e := range entries {
		var names []string
		present, ok, norm := 0, 0, false
		for _, s := range e.Files {
			names = append(names, s.File)
			if datasets.IsIDX(e.Name) {
				names = []string{fmt.Sprintf("%s/: %d idx files", e.Name, len(e.Files))}
			}
			if s.Present {
				present++
			}
			if s.OK {
				ok++
			}
			norm = norm || s.Normalized
		}
		pres, sum := "yes", "ok"
		switch {
		case present == 0:
			pres, sum = "no", "-"
		case present < len(e.Files):
			pres = fmt.Sprintf("%d of %d", present, len(e.Files))
		}
		if present > 0 && ok < present {
			sum = "FAILED"
		} else if present > 0 && norm {
			sum = "ok (whitespace differs)"
		}
		if err := t.Append(e.Name, strings.Join(names, " "), pres, sum); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "searched: %s\n", strings.Join(o.Dirs, ", "))
	return nil
}
