package proxal

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
)

// DataSource is a user's data file in place of a built-in dataset (`fedcon
// run np|fair --data FILE`, docs/own-data.md): how it is read
// (datasets.ReadOwn), preprocessed (datasets.Build) and split among the
// clients. It is part of the configuration, so the file's SHA-256 and
// every choice here enter the trial hash: results of different files, or
// of one file read differently, never share trial files. The path does
// not: a moved file keeps its results.
type DataSource struct {
	// File is the path as given.
	File string `mapstructure:"file" json:"file,omitempty"`
	// Format is csv or libsvm; empty: by the file's extension (datasets.OwnFormat).
	Format DataFormat `mapstructure:"format" json:"format,omitempty"`
	// SHA256 is the file's checksum (hex), filled in by Load; when set
	// beforehand, Load refuses a file with another.
	SHA256           string `mapstructure:"sha256" json:"sha256"`
	datasets.OwnSpec `mapstructure:",squash"`
	// Partition is iid (as the built-in datasets: equal rows per class for
	// Neyman-Pearson, equal folds for fairness), by-column (one client per
	// value of PartitionBy) or dirichlet (label skew, DirichletAlpha).
	Partition Partition `mapstructure:"partition" json:"partition"`
	// DirichletAlpha is the concentration of the dirichlet partition.
	DirichletAlpha float64 `mapstructure:"dirichlet_alpha" json:"dirichlet_alpha,omitempty"`

	ds   *datasets.Dataset // loaded for seed
	seed uint64
}

// validate checks the choices that need no file.
func (s *DataSource) validate() error {
	switch {
	case s.File == "":
		return &experiments.ConfigError{Field: "data.file", Value: s.File, Reason: "name the data file"}
	case s.Format != "" && s.Format != "csv" && s.Format != "libsvm":
		return &experiments.ConfigError{Field: "format", Value: s.Format, Reason: "must be csv or libsvm (or empty: by the file's extension)"}
	}
	switch s.Partition {
	case "iid":
		if s.PartitionBy != "" {
			return &experiments.ConfigError{Field: "partition", Value: s.Partition, Reason: "partition-by " + s.PartitionBy + " needs partition by-column"}
		}
	case "by-column":
		if s.PartitionBy == "" {
			return &experiments.ConfigError{Field: "partition", Value: s.Partition, Reason: "needs --partition-by COLUMN"}
		}
	case "dirichlet":
		if !(s.DirichletAlpha > 0) || math.IsInf(s.DirichletAlpha, 0) {
			return &experiments.ConfigError{Field: "dirichlet-alpha", Value: s.DirichletAlpha, Reason: "must be a finite number > 0"}
		}
		if s.PartitionBy != "" {
			return &experiments.ConfigError{Field: "partition", Value: s.Partition, Reason: "partition-by " + s.PartitionBy + " needs partition by-column"}
		}
	default:
		return &experiments.ConfigError{Field: "partition", Value: s.Partition, Reason: "must be iid, by-column or dirichlet"}
	}
	if s.Partition != "dirichlet" && s.DirichletAlpha != 0 {
		return &experiments.ConfigError{Field: "dirichlet-alpha", Value: s.DirichletAlpha, Reason: "needs partition dirichlet"}
	}
	return nil
}

// Name is the dataset's name in tables and trial files: the file's base
// name without its extension.
func (s *DataSource) Name() string {
	return strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
}

// forHash is s without its path, for the trial hash.
func (s *DataSource) forHash() *DataSource {
	if s == nil {
		return nil
	}
	c := *s
	c.File = ""
	return &c
}

// Load reads and preprocesses the file (once per seed: the server rows
// depend on it) and fills SHA256 and Format. Errors are one line: a
// *datasets.RequestError (file, column or class), a *datasets.ParseError
// (file:line and column) or a *ConfigError.
func (s *DataSource) Load(seed uint64) (*datasets.Dataset, error) {
	if s.ds != nil && s.seed == seed {
		return s.ds, nil
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	format := datasets.OwnFormat(s.File, string(s.Format))
	t, sum, err := datasets.ReadOwn(s.File, format)
	if err != nil {
		return nil, err
	}
	if s.SHA256 != "" && s.SHA256 != sum {
		return nil, &experiments.ConfigError{Field: "data.sha256", Value: s.SHA256, Reason: fmt.Sprintf("%s has sha-256 %s: the file changed", s.File, sum)}
	}
	ds, err := datasets.Build(t, s.OwnSpec, seed)
	if err != nil {
		return nil, err
	}
	s.SHA256, s.Format, s.ds, s.seed = sum, DataFormat(format), ds, seed
	return ds, nil
}

// partition splits ds's rows among n clients (n = 0: one per value of the
// partition column) as s says, with datasets.PartitionRand(seed); fair
// selects equal folds for iid. It checks that every client has rows of
// both classes (Neyman-Pearson) or both groups (fairness). It returns the
// clients, the rows left over, and n.
func (s *DataSource) partition(ds *datasets.Dataset, n int, seed uint64, fair bool) ([][]int, int, int, error) {
	var (
		parts   [][]int
		dropped int
		err     error
	)
	switch s.Partition {
	case "by-column":
		if n != 0 && n != len(ds.Sites) {
			return nil, 0, n, &experiments.ConfigError{Field: "clients", Value: n, Reason: fmt.Sprintf("--partition-by %s gives one client per value: %d (%s); leave --clients out", s.PartitionBy, len(ds.Sites), datasets.ShowList(ds.Sites, 8))}
		}
		n = len(ds.Sites)
		parts, err = datasets.PartitionBySite(ds.Site, n)
	case "dirichlet":
		parts, err = datasets.PartitionDirichlet(ds.Y, n, s.DirichletAlpha, datasets.PartitionRand(seed))
	default:
		if fair {
			parts, dropped, err = datasets.PartitionFolds(ds.Rows(), n, datasets.PartitionRand(seed))
		} else {
			parts, dropped, err = datasets.PartitionByClass(ds.Y, n, datasets.PartitionRand(seed))
		}
	}
	if err != nil {
		return nil, 0, n, fmt.Errorf("%s with %d clients: %w", s.Name(), n, err)
	}
	for k, idx := range parts {
		var c [2]int
		for _, i := range idx {
			if fair {
				c[ds.Group[i]]++
			} else {
				c[int(ds.Y[i])]++
			}
		}
		if c[0] == 0 || c[1] == 0 {
			what, missing := "class", 0
			if c[1] == 0 {
				missing = 1
			}
			if fair {
				what = "group"
			}
			return nil, 0, n, &experiments.ConfigError{Field: "clients", Value: n, Reason: fmt.Sprintf("client %d%s has no rows of %s %d; every client needs both (fewer clients, or another partition)",
				k+1, s.siteName(ds, k), what, missing)}
		}
	}
	return parts, dropped, n, nil
}

// siteName is " (value)" of client k under the by-column partition.
func (s *DataSource) siteName(ds *datasets.Dataset, k int) string {
	if s.Partition != "by-column" || k >= len(ds.Sites) {
		return ""
	}
	return fmt.Sprintf(" (%s = %s)", datasets.Show(s.PartitionBy), datasets.Show(ds.Sites[k]))
}

// checkServerGroups checks that the fairness server has both groups.
func (s *DataSource) checkServerGroups(ds *datasets.Dataset) error {
	if ds.Server == nil {
		return &experiments.ConfigError{Field: "server-fraction", Value: s.ServerFraction, Reason: "the fairness problem needs server rows: a fraction in (0, 1)"}
	}
	var c [2]int
	for _, g := range ds.Server.Group {
		c[g]++
	}
	if c[0] == 0 || c[1] == 0 {
		return &experiments.ConfigError{Field: "server-fraction", Value: s.ServerFraction, Reason: "the server's rows hold one sensitive group only: raise it"}
	}
	return nil
}

// validateData checks a configuration's data choice: datasets (built-in)
// or data (a file), not both, and clients >= 1 except 0 for by-column.
func validateData(data *DataSource, builtin bool, clients []int) error {
	if data == nil {
		return nil
	}
	if builtin {
		return &experiments.ConfigError{Field: "data", Value: data.File, Reason: "choose a built-in dataset or a data file, not both"}
	}
	if err := data.validate(); err != nil {
		return err
	}
	if data.Partition != "by-column" && slices.Contains(clients, 0) {
		return &experiments.ConfigError{Field: "clients", Value: 0, Reason: "must be >= 1 (0, one client per value, needs partition by-column)"}
	}
	return nil
}

// Check loads the file for seed and splits it for each client count as
// the experiment will (fair: the fairness problem's split), so that a bad
// file or an impossible split fails before any output is written.
func (s *DataSource) Check(seed uint64, clients []int, fair bool) error {
	ds, err := s.Load(seed)
	if err != nil {
		return err
	}
	if fair {
		if err := s.checkServerGroups(ds); err != nil {
			return err
		}
	}
	for _, n := range clients {
		if _, _, _, err := s.partition(ds, n, seed, fair); err != nil {
			return err
		}
	}
	return nil
}
