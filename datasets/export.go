package datasets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
)

// ExportFormats are the formats Export.Write accepts.
var ExportFormats = []string{"csv", "json"}

// ExportRow is one row of an Export.
type ExportRow struct {
	// Row is the index in its Dataset (the clients' one or the server's).
	Row int `json:"row"`
	// Client is 1..n, 0 for server rows; nil without a partition.
	Client *int `json:"client,omitempty"`
	// Server marks the server rows; nil for datasets without server rows.
	Server *bool `json:"server,omitempty"`
	// X is the preprocessed feature row; it aliases the Dataset's matrix.
	X []float64 `json:"x"`
	// Y is the label (or regression target).
	Y float64 `json:"y"`
	// Group is the sensitive group; nil for datasets without one.
	Group *int `json:"group,omitempty"`
}

// Export is a Dataset's rows laid out for other tools: the client rows
// (partitioned as the experiments do when Clients > 0), then the server
// rows.
type Export struct {
	// Dataset is the exported data set.
	Dataset *Dataset
	// Clients is the number of clients; 0 means no partition.
	Clients int
	// Seed is the partition seed (PartitionRand); meaningful when Clients > 0.
	Seed uint64
	// PartitionDropped counts the rows the partition left over, which are
	// not exported.
	PartitionDropped int
	// Rows are the exported rows: per client in client order, then the
	// server rows.
	Rows []ExportRow
}

// NewExport lays out the rows of d for export. With clients > 0 the rows
// are partitioned by d.Partition with PartitionRand(seed), and rows left
// over are omitted; with clients == 0 every row is exported in order. A
// negative clients, or a partition the data cannot satisfy, is a
// *RequestError.
func NewExport(d *Dataset, clients int, seed uint64) (*Export, error) {
	if clients < 0 {
		return nil, &RequestError{Field: "clients", Value: clients, Reason: "must be positive (or 0 for no partition)"}
	}
	e := &Export{Dataset: d, Clients: clients, Seed: seed}
	parts := [][]int{seq(d.Rows())}
	if clients > 0 {
		var err error
		parts, e.PartitionDropped, err = d.Partition(clients, PartitionRand(seed))
		if err != nil {
			return nil, err
		}
	}
	add := func(ds *Dataset, i, client int, server bool) {
		r := ExportRow{Row: i, X: ds.X.RawRowView(i), Y: ds.Y[i]}
		if clients > 0 {
			r.Client = &client
		}
		if d.Server != nil {
			r.Server = &server
		}
		if ds.Group != nil {
			r.Group = &ds.Group[i]
		}
		e.Rows = append(e.Rows, r)
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
	return e, nil
}

// Write writes e to w in format ("csv" or "json", else a *RequestError)
// through one buffer. version is the fedcon version recorded in a JSON
// export.
func (e *Export) Write(w io.Writer, format, version string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var err error
	switch format {
	case "csv":
		err = e.WriteCSV(bw)
	case "json":
		err = e.WriteJSON(bw, version)
	default:
		return &RequestError{Field: "format", Value: format, Reason: "want csv or json"}
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// formatExact formats v so that it parses back to the same float64.
func formatExact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// WriteCSV writes a header row (row, client when partitioned, server when
// the data set has server rows, the feature names, y, group when it has
// one), then one record per row, numbers in the shortest form that parses
// back to the same float64.
func (e *Export) WriteCSV(w io.Writer) error {
	d := e.Dataset
	cw := csv.NewWriter(w)
	head := []string{"row"}
	if e.Clients > 0 {
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
	for _, r := range e.Rows {
		rec = append(rec[:0], strconv.Itoa(r.Row))
		if r.Client != nil {
			rec = append(rec, strconv.Itoa(*r.Client))
		}
		if r.Server != nil {
			rec = append(rec, strconv.FormatBool(*r.Server))
		}
		for _, v := range r.X {
			rec = append(rec, formatExact(v))
		}
		rec = append(rec, formatExact(r.Y))
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

// WriteJSON writes one object: the data set's provenance (name, version,
// files, dropped records, standardisation, partition and seed), then
// "rows", one row per line so that large exports stay diffable.
func (e *Export) WriteJSON(w io.Writer, version string) error {
	d := e.Dataset
	h := exportHeader{Dataset: d.Name, Version: version, Label: d.Label, FeatureNames: d.FeatureNames,
		Files: d.Files, Dropped: d.Dropped, Clients: e.Clients, PartitionDropped: e.PartitionDropped}
	if d.Group != nil {
		h.GroupColumn = &d.GroupColumn
	}
	if d.Server != nil {
		h.ServerDropped = &d.Server.Dropped
	}
	for _, s := range d.Scalings {
		h.Scalings = append(h.Scalings, exportScaling{d.FeatureNames[s.Column], s.Mean, s.Std})
	}
	if e.Clients > 0 {
		seed := e.Seed
		h.Seed = &seed
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
	for i, r := range e.Rows {
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
