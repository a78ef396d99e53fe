package proxal

import "github.com/fedcon/fedcon/experiments"

// Subsolver names the smooth subproblem solver: newton or lbfgs.
type Subsolver string

// The smooth subproblem solvers.
const (
	SubsolverNewton Subsolver = "newton"
	SubsolverLBFGS  Subsolver = "lbfgs"
)

// UnmarshalText accepts newton or lbfgs.
func (s *Subsolver) UnmarshalText(b []byte) error {
	return experiments.UnmarshalName(s, b, false, SubsolverNewton, SubsolverLBFGS)
}

// MarshalText writes the name.
func (s Subsolver) MarshalText() ([]byte, error) { return []byte(s), nil }

// ADMMStart is where Algorithm 2 starts in outer iteration k: wk (the
// paper, w̃0 = w^k) or w0 (the trial's w0, as the authors' NP code).
type ADMMStart string

// The starts of Algorithm 2.
const (
	ADMMStartWk ADMMStart = "wk"
	ADMMStartW0 ADMMStart = "w0"
)

// UnmarshalText accepts wk or w0.
func (a *ADMMStart) UnmarshalText(b []byte) error {
	return experiments.UnmarshalName(a, b, false, ADMMStartWk, ADMMStartW0)
}

// MarshalText writes the name.
func (a ADMMStart) MarshalText() ([]byte, error) { return []byte(a), nil }

// Sampling is how partial participation samples clients: uniform (also the
// empty default; without replacement) or weighted (by each client's rows).
type Sampling string

// The samplings.
const (
	SamplingUniform  Sampling = "uniform"
	SamplingWeighted Sampling = "weighted"
)

// UnmarshalText accepts uniform, weighted or the empty default (uniform).
func (s *Sampling) UnmarshalText(b []byte) error {
	return experiments.UnmarshalName(s, b, true, SamplingUniform, SamplingWeighted)
}

// MarshalText writes the name.
func (s Sampling) MarshalText() ([]byte, error) { return []byte(s), nil }

// DataFormat is the format of a user's data file: csv or libsvm; empty: by
// the file's extension (datasets.OwnFormat).
type DataFormat string

// The data file formats.
const (
	FormatCSV    DataFormat = "csv"
	FormatLIBSVM DataFormat = "libsvm"
)

// UnmarshalText accepts csv, libsvm or the empty default (by extension).
func (f *DataFormat) UnmarshalText(b []byte) error {
	return experiments.UnmarshalName(f, b, true, FormatCSV, FormatLIBSVM)
}

// MarshalText writes the name.
func (f DataFormat) MarshalText() ([]byte, error) { return []byte(f), nil }

// Partition is how a user's rows are split among the clients: iid,
// by-column (one client per value of a column) or dirichlet (label skew).
type Partition string

// The partitions.
const (
	PartitionIID       Partition = "iid"
	PartitionByColumn  Partition = "by-column"
	PartitionDirichlet Partition = "dirichlet"
)

// UnmarshalText accepts iid, by-column or dirichlet.
func (p *Partition) UnmarshalText(b []byte) error {
	return experiments.UnmarshalName(p, b, false, PartitionIID, PartitionByColumn, PartitionDirichlet)
}

// MarshalText writes the name.
func (p Partition) MarshalText() ([]byte, error) { return []byte(p), nil }
