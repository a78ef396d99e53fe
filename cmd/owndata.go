package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments/proxal"
)

// ownDataOptions are the flags of `run np` and `run fair` that solve a
// user's data file (docs/own-data.md).
type ownDataOptions struct {
	File, Label, Positive          string
	Format                         proxal.DataFormat
	Categorical, Drop              []string
	Sensitive, SensitiveValue      string
	Partition                      proxal.Partition
	PartitionBy                    string
	DirichletAlpha, ServerFraction float64
}

// ownDataFlags are the flags that need --data.
var ownDataFlags = []string{"format", "label", "positive", "categorical", "drop", "sensitive", "sensitive-value",
	"partition", "partition-by", "dirichlet-alpha", "server-fraction"}

func addOwnDataFlags(c *cobra.Command, o *ownDataOptions, fair bool) {
	fl := c.Flags()
	fl.StringVar(&o.File, "data", "", "solve your own data file instead (CSV with a header row, or LIBSVM): see docs/own-data.md")
	fl.Var(textValue{&o.Format}, "format", "format of --data: csv or libsvm (default: by extension; .libsvm, .svm, .svmlight are LIBSVM)")
	fl.StringVar(&o.Label, "label", "", "label column of --data (default: the last column; LIBSVM: label)")
	fl.StringVar(&o.Positive, "positive", "", "label value coded 1, the others 0 (default: the label must have two values; the larger is 1)")
	fl.StringSliceVar(&o.Categorical, "categorical", nil, "columns of --data to one-hot although their values are numbers")
	fl.StringSliceVar(&o.Drop, "drop", nil, "columns of --data that are not features (e.g. an id)")
	fl.Var(textValue{&o.Partition}, "partition", "how the rows of --data are split: iid (default), by-column or dirichlet")
	fl.StringVar(&o.PartitionBy, "partition-by", "", "one client per value of this column of --data (implies --partition by-column and sets n)")
	fl.Float64Var(&o.DirichletAlpha, "dirichlet-alpha", 0.5, "Dirichlet label skew of --partition dirichlet (small: each client mostly one class)")
	if fair {
		fl.StringVar(&o.Sensitive, "sensitive", "", "sensitive-attribute column of --data (needed with --data)")
		fl.StringVar(&o.SensitiveValue, "sensitive-value", "", "sensitive value coded group 1 (default: the column must have two values; the larger is 1)")
		fl.Float64Var(&o.ServerFraction, "server-fraction", 0.3, "fraction of the rows of --data held by the server, chosen with the seed")
	}
}

// source returns the data source the flags describe, nil without --data.
func (o *ownDataOptions) source(c *cobra.Command) (*proxal.DataSource, error) {
	fl := c.Flags()
	if o.File == "" {
		for _, name := range ownDataFlags {
			if f := fl.Lookup(name); f != nil && f.Changed {
				return nil, &FlagError{err: fmt.Errorf("--%s needs --data FILE", name), usage: c.CommandPath()}
			}
		}
		return nil, nil
	}
	if f := fl.Lookup("dataset"); f != nil && f.Changed {
		return nil, &FlagError{err: fmt.Errorf("--data %s and --dataset %s: choose one", o.File, f.Value), usage: c.CommandPath()}
	}
	s := &proxal.DataSource{File: o.File, Format: o.Format, Partition: o.Partition}
	s.Label, s.Positive, s.Categorical, s.Drop = o.Label, o.Positive, o.Categorical, o.Drop
	s.Sensitive, s.SensitiveValue, s.PartitionBy, s.ServerFraction = o.Sensitive, o.SensitiveValue, o.PartitionBy, o.ServerFraction
	if s.Partition == "" {
		switch {
		case o.PartitionBy != "":
			s.Partition = "by-column"
		case fl.Changed("dirichlet-alpha"):
			s.Partition = "dirichlet"
		default:
			s.Partition = "iid"
		}
	}
	if s.Partition == "dirichlet" || fl.Changed("dirichlet-alpha") {
		s.DirichletAlpha = o.DirichletAlpha
	}
	return s, nil
}

// clients is --clients under --data: 0 (one client per value) for
// by-column unless given.
func (o *ownDataOptions) clients(c *cobra.Command, s *proxal.DataSource, n int) int {
	if s.Partition == "by-column" && !c.Flags().Changed("clients") {
		return 0
	}
	return n
}

// runName names a --data run's results directory.
func (o *ownDataOptions) runName(kind string, s *proxal.DataSource, n int) string {
	if n == 0 {
		return fmt.Sprintf("%s-%s-by-%s", kind, s.Name(), s.PartitionBy)
	}
	return fmt.Sprintf("%s-%s-n%d", kind, s.Name(), n)
}

// checkData reads, checks and splits the --data file before anything is
// written (its checksum enters the trial hash) and says on stderr how many
// rows were dropped for a missing value.
func checkData(f *Factory, o *commonOptions, s *proxal.DataSource, seed uint64, clients []int, fair bool) error {
	if err := s.Check(seed, clients, fair); err != nil {
		return err
	}
	if ds, err := s.Load(seed); err == nil && ds.Dropped > 0 && !o.Quiet {
		all := ds.Rows() + ds.Dropped
		if ds.Server != nil {
			all += ds.Server.Rows()
		}
		fmt.Fprintf(f.IO.ErrOut, "%s: dropped %d of %d rows for a missing value (empty, ?, NA or NaN)\n", s.File, ds.Dropped, all)
	}
	return nil
}
