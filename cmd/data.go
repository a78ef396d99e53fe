package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	twc "github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
)

// newCmdData groups the commands that locate, check, download, describe and
// export the datasets.
func newCmdData(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "data",
		Short: "List, verify, fetch, describe and export the datasets",
		Long: `The raw UCI files are searched in --data-dir, then $FEDCON_DATA_DIR, then the
per-user cache dir (where 'fedcon data fetch' downloads them). Their SHA-256
sums and record counts are pinned and checked before use.`,
		Args: cobra.ArbitraryArgs,
		RunE: requireSubcommand,
	}
	c.AddCommand(
		NewCmdDataList(f, nil),
		NewCmdDataVerify(f, nil),
		NewCmdDataDescribe(f, nil),
		NewCmdDataFetch(f, nil),
		NewCmdDataExport(f, nil),
	)
	return c
}

// dataDirs returns the search path: the persistent --data-dir flag (absent
// when the command runs outside the root, as in tests), $FEDCON_DATA_DIR,
// the cache dir.
func dataDirs(f *Factory, c *cobra.Command) []string {
	flagDir, _ := c.Flags().GetString("data-dir")
	return datasets.SearchPath(flagDir, f.Getenv("FEDCON_DATA_DIR"))
}

// checkDatasetArgs turns unknown dataset names into usage errors.
func checkDatasetArgs(c *cobra.Command, names []string) error {
	for _, n := range names {
		if _, err := datasets.Files(n); err != nil {
			return &FlagError{err: err, usage: c.CommandPath()}
		}
	}
	return nil
}

// dataOneName requires exactly one dataset name, as a usage error.
func dataOneName(c *cobra.Command, args []string) error {
	if len(args) != 1 {
		return &FlagError{err: fmt.Errorf("want one dataset name (%s), got %d arguments", strings.Join(datasets.Names(), ", "), len(args)),
			usage: c.CommandPath()}
	}
	return nil
}

// dataTable returns a terminal table with headers kept as written.
func dataTable(w io.Writer, header ...any) *tablewriter.Table {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(twc.Off))
	t.Header(header...)
	return t
}

// dataFileStatus is one file's check outcome in JSON output.
type dataFileStatus struct {
	File       string `json:"file"`
	Path       string `json:"path,omitempty"`
	Present    bool   `json:"present"`
	OK         bool   `json:"ok"`
	Normalized bool   `json:"normalized,omitempty"`
	Records    int    `json:"records"`
	Error      string `json:"error,omitempty"`
}

func toDataFileStatus(st *datasets.FileStatus) dataFileStatus {
	s := dataFileStatus{File: st.File.Path, Path: st.Path, Present: st.Present(), OK: st.OK(),
		Normalized: st.Normalized, Records: st.Records}
	if st.Err != nil {
		s.Error = st.Err.Error()
	}
	return s
}

// loadOpts returns the datasets options for a --no-verify flag.
func loadOpts(noVerify bool) []datasets.Option {
	if noVerify {
		return []datasets.Option{datasets.NoVerify()}
	}
	return nil
}
