package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
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
		Args:  cobra.NoArgs,
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

func dataListRun(o *DataListOptions) error {
	checked := map[string]datasets.FileStatus{}
	var entries []dataListEntry
	for _, name := range datasets.Names() {
		files, _ := datasets.Files(name)
		e := dataListEntry{Name: name, Summary: datasets.Summary(name)}
		for _, fl := range files {
			st, ok := checked[fl.Path]
			if !ok {
				st = datasets.CheckFile(fl, o.Dirs, name)
				checked[fl.Path] = st
			}
			e.Files = append(e.Files, toDataFileStatus(&st))
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

// filesOf returns the distinct files of the named datasets (all when none),
// each with the first dataset that uses it.
func filesOf(names []string) ([]datasets.File, []string) {
	if len(names) == 0 {
		names = datasets.Names()
	}
	var files []datasets.File
	var owners []string
	seen := map[string]bool{}
	for _, n := range names {
		fs, _ := datasets.Files(n)
		for _, fl := range fs {
			if !seen[fl.Path] {
				seen[fl.Path] = true
				files, owners = append(files, fl), append(owners, n)
			}
		}
	}
	return files, owners
}

func dataVerifyRun(o *DataVerifyOptions) error {
	files, owners := filesOf(o.Names)
	var sts []datasets.FileStatus
	var firstErr error
	for i, fl := range files {
		st := datasets.CheckFile(fl, o.Dirs, owners[i])
		if st.Err != nil && firstErr == nil {
			firstErr = st.Err
		}
		sts = append(sts, st)
	}
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

// DataDescribeOptions are the inputs of 'fedcon data describe'.
type DataDescribeOptions struct {
	IO       *IOStreams
	Dirs     []string // search path (datasets.SearchPath)
	Name     string   // the dataset
	NoVerify bool     // --no-verify
	JSON     bool     // --json
}

// NewCmdDataDescribe returns 'fedcon data describe'; runF replaces the run function in tests.
func NewCmdDataDescribe(f *Factory, runF func(*DataDescribeOptions) error) *cobra.Command {
	o := &DataDescribeOptions{IO: f.IO}
	c := &cobra.Command{
		Use:       "describe NAME",
		Short:     "Show a preprocessed dataset: rows, classes, features and per-feature statistics",
		Example:   "  fedcon data describe adult-b\n  fedcon data describe monks-1 --json",
		ValidArgs: datasets.Names(),
		Args:      dataOneName,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkDatasetArgs(c, args); err != nil {
				return err
			}
			o.Dirs, o.Name = dataDirs(f, c), args[0]
			o.JSON, _ = c.Flags().GetBool("json")
			if runF != nil {
				return runF(o)
			}
			return dataDescribeRun(o)
		},
	}
	c.Flags().BoolVar(&o.NoVerify, "no-verify", false, "use raw files whose checksum or record count differs from the pinned one")
	return c
}

// loadOpts returns the datasets options for a --no-verify flag.
func loadOpts(noVerify bool) []datasets.Option {
	if noVerify {
		return []datasets.Option{datasets.NoVerify()}
	}
	return nil
}

// jsonDescription is a Description whose NaN statistics (columns of an
// empty dataset) encode as null.
type jsonDescription struct {
	*datasets.Description
	Columns []jsonColumn     `json:"columns"`
	Server  *jsonDescription `json:"server,omitempty"`
}

type jsonColumn struct {
	Name string   `json:"name"`
	Min  *float64 `json:"min"`
	Max  *float64 `json:"max"`
	Mean *float64 `json:"mean"`
	Std  *float64 `json:"std"`
}

func toJSONDescription(d *datasets.Description) *jsonDescription {
	if d == nil {
		return nil
	}
	num := func(v float64) *float64 {
		if v != v {
			return nil
		}
		return &v
	}
	j := &jsonDescription{Description: d, Server: toJSONDescription(d.Server)}
	for _, c := range d.Columns {
		j.Columns = append(j.Columns, jsonColumn{c.Name, num(c.Min), num(c.Max), num(c.Mean), num(c.Std)})
	}
	return j
}

func dataDescribeRun(o *DataDescribeOptions) error {
	d, err := datasets.Load(o.Name, o.Dirs, loadOpts(o.NoVerify)...)
	if err != nil {
		return err
	}
	desc := datasets.Describe(d)
	if o.JSON {
		return printJSON(o.IO.Out, toJSONDescription(desc))
	}
	w := o.IO.Out
	fmt.Fprintf(w, "dataset   %s: %s\n", d.Name, datasets.Summary(d.Name))
	fmt.Fprintf(w, "files     %s\n", strings.Join(d.Files, ", "))
	fmt.Fprintf(w, "label     %s\n", d.Label)
	fmt.Fprintf(w, "rows      %s\n", describeRows(desc))
	if desc.Groups != nil {
		fmt.Fprintf(w, "groups    %s (sex: 0 = Female, 1 = Male; column %d, %s)\n",
			countsString(desc.Groups), d.GroupColumn, d.FeatureNames[d.GroupColumn])
	}
	fmt.Fprintf(w, "features  %d columns, the last the intercept; %d standardised with their own rows' mean and std\n",
		desc.Features, len(d.Scalings))
	if desc.Server != nil {
		fmt.Fprintf(w, "server    %s; standardised with the client rows' statistics\n", describeRows(desc.Server))
		if desc.Server.Groups != nil {
			fmt.Fprintf(w, "          groups %s\n", countsString(desc.Server.Groups))
		}
	}
	fmt.Fprintln(w)
	t := dataTable(w, "#", "feature", "min", "max", "mean", "std")
	for j, c := range desc.Columns {
		if err := t.Append(strconv.Itoa(j), c.Name, fmtNum(c.Min), fmtNum(c.Max), fmtNum(c.Mean), fmtNum(c.Std)); err != nil {
			return err
		}
	}
	return t.Render()
}

// describeRows is "N (K dropped), classes ...".
func describeRows(d *datasets.Description) string {
	s := fmt.Sprintf("%d (%d raw records dropped)", d.Rows, d.Dropped)
	if d.Classes != nil {
		s += ", classes " + countsString(d.Classes)
	}
	if d.Target != nil {
		s += fmt.Sprintf(", target min %s max %s mean %s std %s",
			fmtNum(d.Target.Min), fmtNum(d.Target.Max), fmtNum(d.Target.Mean), fmtNum(d.Target.Std))
	}
	return s
}

// countsString is "0: 444, 1: 239".
func countsString(cs []datasets.ClassCount) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%v: %d", c.Label, c.Count))
	}
	return strings.Join(parts, ", ")
}

// fmtNum formats a statistic with 4 significant digits.
func fmtNum(v float64) string {
	if v != v {
		return "-"
	}
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// DataFetchOptions are the inputs of 'fedcon data fetch'.
type DataFetchOptions struct {
	IO       *IOStreams
	Names    []string // datasets; empty means all
	Dir      string   // destination
	Mirror   string   // --mirror, the archive root
	Force    bool     // --force
	NoVerify bool     // --no-verify
	JSON     bool     // --json
	Quiet    bool     // --quiet
	// HTTPClient performs the downloads; nil means the default client.
	HTTPClient *http.Client
	cmd        *cobra.Command
}

// NewCmdDataFetch returns 'fedcon data fetch'; runF replaces the run function in tests.
func NewCmdDataFetch(f *Factory, runF func(*DataFetchOptions) error) *cobra.Command {
	o := &DataFetchOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "fetch [NAME...]",
		Short: "Download the raw data files over HTTPS into the cache dir and verify them",
		Long: `Download the raw files of the named datasets (all UCI ones when none is named)
from the UCI archive, and Fashion-MNIST from its original host, into --data-dir
if given, else the per-user cache dir, keeping files already present and
intact. A download whose record count or SHA-256 differs from the pinned one
(Fashion-MNIST: the SHA-256 of each decompressed file) is not installed unless
--no-verify is given. 'fedcon reproduce all' fetches what it needs by itself.`,
		Example: `  fedcon data fetch
  fedcon data fetch adult-b fashion-mnist --data-dir ~/data
  fedcon data fetch --mirror https://mirror.example.org/uci/`,
		ValidArgs: datasets.FetchNames(),
		RunE: func(c *cobra.Command, args []string) error {
			for _, a := range args {
				if !slices.Contains(datasets.FetchNames(), a) {
					return flagErrorf("dataset %s: unknown (valid: %s)", a, strings.Join(datasets.FetchNames(), ", "))
				}
			}
			o.cmd, o.Names = c, args
			o.Dir, _ = c.Flags().GetString("data-dir")
			if o.Dir == "" {
				o.Dir = datasets.CacheDir()
			}
			if o.Dir == "" {
				return &FlagError{err: errors.New("no per-user cache dir on this system: pass --data-dir"), usage: c.CommandPath()}
			}
			o.JSON, _ = c.Flags().GetBool("json")
			o.Quiet, _ = c.Flags().GetBool("quiet")
			if runF != nil {
				return runF(o)
			}
			return dataFetchRun(o)
		},
	}
	c.Flags().StringVar(&o.Mirror, "mirror", datasets.DefaultBaseURL, "https URL of the UCI archive or a mirror with its layout")
	c.Flags().BoolVar(&o.Force, "force", false, "download even the files already present and intact")
	c.Flags().BoolVar(&o.NoVerify, "no-verify", false, "install downloads whose checksum or record count differs from the pinned one")
	return c
}

// cmdContext is the command's context (canceled on Ctrl-C), or a background one.
func (o *DataFetchOptions) cmdContext() context.Context {
	if o.cmd != nil && o.cmd.Context() != nil {
		return o.cmd.Context()
	}
	return context.Background()
}

func dataFetchRun(o *DataFetchOptions) error {
	fe := &datasets.Fetcher{Client: o.HTTPClient, BaseURL: o.Mirror, Force: o.Force, NoVerify: o.NoVerify}
	ctx := o.cmdContext()
	if !o.Quiet {
		fmt.Fprintf(o.IO.ErrOut, "fetching into %s from %s\n", o.Dir, o.Mirror)
	}
	res, err := fe.Fetch(ctx, o.Dir, o.Names...)
	var re *datasets.RequestError
	if errors.As(err, &re) && re.Field == "mirror" {
		return &FlagError{err: fmt.Errorf("--mirror: %w", err)}
	}
	if o.JSON {
		type item struct {
			File       string `json:"file"`
			Path       string `json:"path"`
			URL        string `json:"url,omitempty"`
			Downloaded bool   `json:"downloaded"`
			Bytes      int    `json:"bytes"`
			Normalized bool   `json:"normalized,omitempty"`
		}
		var out []item
		for _, r := range res {
			out = append(out, item{r.File.Path, r.Path, r.URL, r.Downloaded, r.Bytes, r.Normalized})
		}
		if perr := printJSON(o.IO.Out, map[string]any{"dir": o.Dir, "files": out}); perr != nil {
			return perr
		}
		return err
	}
	if len(res) > 0 {
		t := dataTable(o.IO.Out, "file", "status", "bytes", "path")
		for _, r := range res {
			status := "already present"
			if r.Downloaded {
				status = "downloaded"
			}
			if r.Normalized {
				status += " (whitespace differs)"
			}
			if terr := t.Append(r.File.Path, status, strconv.Itoa(r.Bytes), r.Path); terr != nil {
				return terr
			}
		}
		if rerr := t.Render(); rerr != nil {
			return rerr
		}
	}
	return err
}

// DataExportOptions are the inputs of 'fedcon data export'.
type DataExportOptions struct {
	IO       *IOStreams
	Dirs     []string // search path (datasets.SearchPath)
	Name     string   // the dataset
	Clients  int      // 0: no partition
	Seed     uint64   // partition seed (datasets.PartitionRand)
	Format   string   // csv or json
	Output   string   // file; "" or "-" for stdout
	NoVerify bool     // --no-verify
	Quiet    bool     // --quiet
	Version  string   // fedcon version, recorded in JSON exports
}

// NewCmdDataExport returns 'fedcon data export'; runF replaces the run function in tests.
func NewCmdDataExport(f *Factory, runF func(*DataExportOptions) error) *cobra.Command {
	o := &DataExportOptions{IO: f.IO, Version: f.Version}
	c := &cobra.Command{
		Use:   "export NAME",
		Short: "Write the preprocessed design matrix and labels as CSV or JSON",
		Long: `Write the preprocessed design matrix of a dataset with its labels (and, for
adult-b, the sensitive group and the server rows), so that other tools can
solve exactly the same problem. With --clients n the rows are partitioned as
the experiments do (per class for classification, equal folds for adult-b and
abalone) with the generator of --seed, and each row carries its client
(1..n; 0 for server rows); rows left over by the partition are omitted.`,
		Example: `  fedcon data export breast-cancer-wisc --format csv > bcw.csv
  fedcon data export adult-b --clients 5 --seed 1 --format json -o adult-b-5.json`,
		ValidArgs: datasets.Names(),
		Args:      dataOneName,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkDatasetArgs(c, args); err != nil {
				return err
			}
			if o.Format != "csv" && o.Format != "json" {
				return &FlagError{err: fmt.Errorf("--format %q: want csv or json", o.Format), usage: c.CommandPath()}
			}
			if o.Clients < 0 {
				return &FlagError{err: fmt.Errorf("--clients %d: want a positive number (or 0 for no partition)", o.Clients), usage: c.CommandPath()}
			}
			o.Dirs, o.Name = dataDirs(f, c), args[0]
			o.Quiet, _ = c.Flags().GetBool("quiet")
			if runF != nil {
				return runF(o)
			}
			return dataExportRun(o)
		},
	}
	c.Flags().IntVar(&o.Clients, "clients", 0, "partition the rows among n clients (0 = no partition)")
	c.Flags().Uint64Var(&o.Seed, "seed", 1, "seed of the partition")
	c.Flags().StringVar(&o.Format, "format", "csv", "output format: csv or json")
	c.Flags().StringVarP(&o.Output, "output", "o", "", "output file (default: standard output)")
	c.Flags().BoolVar(&o.NoVerify, "no-verify", false, "use raw files whose checksum or record count differs from the pinned one")
	return c
}

// exportRow is one row of an export.
type exportRow struct {
	Row    int       `json:"row"`              // index in its Dataset (clients' or server's)
	Client *int      `json:"client,omitempty"` // 1..n, 0 for server rows; absent without --clients
	Server *bool     `json:"server,omitempty"` // adult-b only
	X      []float64 `json:"x"`
	Y      float64   `json:"y"`
	Group  *int      `json:"group,omitempty"` // adult-b only
}

func dataExportRun(o *DataExportOptions) error {
	d, err := datasets.Load(o.Name, o.Dirs, loadOpts(o.NoVerify)...)
	if err != nil {
		return err
	}
	var parts [][]int
	partDropped := 0
	if o.Clients > 0 {
		parts, partDropped, err = d.Partition(o.Clients, datasets.PartitionRand(o.Seed))
		if err != nil {
			return err
		}
	} else {
		parts = [][]int{seqInts(d.Rows())}
	}
	var rows []exportRow
	add := func(ds *datasets.Dataset, i, client int, server bool) {
		r := exportRow{Row: i, X: ds.X.RawRowView(i), Y: ds.Y[i]}
		if o.Clients > 0 {
			r.Client = &client
		}
		if d.Server != nil {
			r.Server = &server
		}
		if ds.Group != nil {
			r.Group = &ds.Group[i]
		}
		rows = append(rows, r)
	}
	for c, idx := range parts {
		for _, i := range idx {
			add(d, i, c+1, false)
		}
	}
	if d.Server != nil {
		for i := 0; i < d.Server.Rows(); i++ {
			add(d.Server, i, 0, true)
		}
	}

	w := o.IO.Out
	var file *os.File
	if o.Output != "" && o.Output != "-" {
		file, err = os.Create(o.Output)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer file.Close()
		w = file
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if o.Format == "csv" {
		err = writeExportCSV(bw, d, rows, o.Clients > 0)
	} else {
		err = writeExportJSON(bw, d, rows, o, partDropped)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && file != nil {
		err = file.Close()
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if !o.Quiet {
		fmt.Fprintf(o.IO.ErrOut, "exported %d rows x %d features of %s", len(rows), len(d.FeatureNames), d.Name)
		if o.Clients > 0 {
			fmt.Fprintf(o.IO.ErrOut, " for %d clients (seed %d; rows left over by the partition, omitted: %d)", o.Clients, o.Seed, partDropped)
		}
		fmt.Fprintln(o.IO.ErrOut)
	}
	return nil
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// fmtExact formats v so that it parses back to the same float64.
func fmtExact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func writeExportCSV(w io.Writer, d *datasets.Dataset, rows []exportRow, clients bool) error {
	cw := csv.NewWriter(w)
	head := []string{"row"}
	if clients {
		head = append(head, "client")
	}
	if d.Server != nil {
		head = append(head, "server")
	}
	head = append(append(head, d.FeatureNames...), "y")
	if d.Group != nil {
		head = append(head, "group")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	rec := make([]string, 0, len(head))
	for _, r := range rows {
		rec = append(rec[:0], strconv.Itoa(r.Row))
		if r.Client != nil {
			rec = append(rec, strconv.Itoa(*r.Client))
		}
		if r.Server != nil {
			rec = append(rec, strconv.FormatBool(*r.Server))
		}
		for _, v := range r.X {
			rec = append(rec, fmtExact(v))
		}
		rec = append(rec, fmtExact(r.Y))
		if r.Group != nil {
			rec = append(rec, strconv.Itoa(*r.Group))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// exportHeader is everything in a JSON export but the rows.
type exportHeader struct {
	Dataset          string          `json:"dataset"`
	Version          string          `json:"fedcon_version"`
	Label            string          `json:"label"`
	FeatureNames     []string        `json:"feature_names"`
	GroupColumn      *int            `json:"group_column,omitempty"`
	Files            []string        `json:"files"`
	Dropped          int             `json:"dropped"`
	ServerDropped    *int            `json:"server_dropped,omitempty"`
	Scalings         []exportScaling `json:"standardization"`
	Clients          int             `json:"clients"`
	Seed             *uint64         `json:"seed,omitempty"`
	PartitionDropped int             `json:"partition_dropped"`
	Partition        string          `json:"partition,omitempty"`
}

type exportScaling struct {
	Feature string  `json:"feature"`
	Mean    float64 `json:"mean"`
	Std     float64 `json:"std"`
}

// writeExportJSON streams {header fields..., "rows": [...]}, one row per line.
func writeExportJSON(w io.Writer, d *datasets.Dataset, rows []exportRow, o *DataExportOptions, partDropped int) error {
	h := exportHeader{Dataset: d.Name, Version: o.Version, Label: d.Label, FeatureNames: d.FeatureNames,
		Files: d.Files, Dropped: d.Dropped, Clients: o.Clients, PartitionDropped: partDropped}
	if d.Group != nil {
		h.GroupColumn = &d.GroupColumn
	}
	if d.Server != nil {
		h.ServerDropped = &d.Server.Dropped
	}
	for _, s := range d.Scalings {
		h.Scalings = append(h.Scalings, exportScaling{d.FeatureNames[s.Column], s.Mean, s.Std})
	}
	if o.Clients > 0 {
		h.Seed = &o.Seed
		h.Partition = "per class (datasets.PartitionByClass)"
		if d.Group != nil || d.Regression {
			h.Partition = "equal folds (datasets.PartitionFolds)"
		}
	}
	var hb bytes.Buffer
	enc := json.NewEncoder(&hb)
	enc.SetEscapeHTML(false) // keep "<=50K" readable
	if err := enc.Encode(h); err != nil {
		return err
	}
	// Splice "rows" into the header object: drop its closing "}\n".
	head := bytes.TrimRight(hb.Bytes(), "\n")
	if _, err := w.Write(head[:len(head)-1]); err != nil {
		return err
	}
	if _, err := io.WriteString(w, `,"rows":[`+"\n"); err != nil {
		return err
	}
	for i, r := range rows {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, ",\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n]}\n")
	return err
}
