package cmd

import (
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
)

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
			if !slices.Contains(datasets.ExportFormats, o.Format) {
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

func dataExportRun(o *DataExportOptions) error {
	d, err := datasets.Load(o.Name, o.Dirs, loadOpts(o.NoVerify)...)
	if err != nil {
		return err
	}
	ex, err := datasets.NewExport(d, o.Clients, o.Seed)
	if err != nil {
		return err
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
	err = ex.Write(w, o.Format, o.Version)
	if err == nil && file != nil {
		err = file.Close()
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if !o.Quiet {
		fmt.Fprintf(o.IO.ErrOut, "exported %d rows x %d features of %s", len(ex.Rows), len(d.FeatureNames), d.Name)
		if o.Clients > 0 {
			fmt.Fprintf(o.IO.ErrOut, " for %d clients (seed %d; rows left over by the partition, omitted: %d)", o.Clients, o.Seed, ex.PartitionDropped)
		}
		fmt.Fprintln(o.IO.ErrOut)
	}
	return nil
}
