package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// exportCases are data sets to export: the samples (row counts by hand
// from testdata, as in load_test.go) and the real files (counts from the
// UCI documentation, see TestLoadReal), whose cases skip without them.
var exportCases = []struct {
	name     string
	dataset  string
	real     bool // the real files, else the samples with NoVerify
	clients  int
	seed     uint64
	wantHead []string // the CSV columns before the features
	wantTail []string // the CSV columns after them
	wantRows int      // exported rows, clients' and server's
}{
	// 4 records, 1 with '?' dropped.
	{"bcw sample", "breast-cancer-wisc", false, 0, 1, []string{"row"}, []string{"y"}, 3},
	// adult.data: 4 rows kept, 2 folds of 2; adult.test: 2 server rows.
	{"adult-b sample, 2 clients", "adult-b", false, 2, 3, []string{"row", "client", "server"}, []string{"y", "group"}, 4 + 2},
	{"monks-1 sample, 1 client", "monks-1", false, 1, 5, []string{"row", "client"}, []string{"y"}, 5},
	// 683 rows, 444 benign and 239 malignant: 5 clients keep 88 + 47 each.
	{"bcw real, 5 clients", "breast-cancer-wisc", true, 5, 1, []string{"row", "client"}, []string{"y"}, 5 * (88 + 47)},
	// 4177 rows in 3 equal folds of 1392.
	{"abalone real, 3 clients", "abalone", true, 3, 2, []string{"row", "client"}, []string{"y"}, 3 * 1392},
	// 30162 client rows, 15060 server rows.
	{"adult-b real", "adult-b", true, 0, 1, []string{"row", "server"}, []string{"y", "group"}, 30162 + 15060},
}

// loadCase loads a case's data set, skipping a real one without the files.
func loadCase(t *testing.T, dataset string, real bool) *Dataset {
	t.Helper()
	dirs, opts := []string{"testdata"}, []Option{NoVerify()}
	if real {
		dirs, opts = []string{realDir(t)}, nil
	}
	d, err := Load(dataset, dirs, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The CSV export, read back by ParseCSV, holds exactly the Dataset's values.
func TestExportCSVReadBack(t *testing.T) {
	for _, tt := range exportCases {
		t.Run(tt.name, func(t *testing.T) {
			d := loadCase(t, tt.dataset, tt.real)
			ex, err := NewExport(d, tt.clients, tt.seed)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := ex.Write(&buf, "csv", "v"); err != nil {
				t.Fatal(err)
			}
			tab, err := ParseCSV(&buf, "export.csv")
			if err != nil {
				t.Fatal(err)
			}
			wantNames := slices.Concat(tt.wantHead, d.FeatureNames, tt.wantTail)
			if !slices.Equal(tab.Names, wantNames) {
				t.Fatalf("header %v, want %v", tab.Names, wantNames)
			}
			if tab.Rows() != tt.wantRows || len(ex.Rows) != tt.wantRows {
				t.Fatalf("%d rows read back, %d exported, want %d", tab.Rows(), len(ex.Rows), tt.wantRows)
			}
			col := func(name string, i int) string { return tab.cols[slices.Index(tab.Names, name)].str[i] }
			num := func(name string, i int) float64 {
				v, err := strconv.ParseFloat(col(name, i), 64)
				if err != nil {
					t.Fatalf("row %d, %s: %v", i, name, err)
				}
				return v
			}
			perClient := map[int][]int{}
			for i := range tab.Rows() {
				src, row := d, int(num("row", i))
				if tt.clients > 0 || d.Server != nil {
					client := 1
					if tt.clients > 0 {
						client = int(num("client", i))
					}
					if d.Server != nil && col("server", i) == "true" {
						src, client = d.Server, 0
					}
					perClient[client] = append(perClient[client], row)
				}
				for j, name := range d.FeatureNames {
					if got := num(name, i); got != src.X.At(row, j) {
						t.Fatalf("row %d, %s: read back %v, want %v", i, name, got, src.X.At(row, j))
					}
				}
				if got := num("y", i); got != src.Y[row] {
					t.Fatalf("row %d: y %v, want %v", i, got, src.Y[row])
				}
				if d.Group != nil && int(num("group", i)) != src.Group[row] {
					t.Fatalf("row %d: group %v, want %d", i, col("group", i), src.Group[row])
				}
			}
			if tt.clients > 0 {
				// The exported clients are the partition of the experiments' generator.
				parts, dropped, err := d.Partition(tt.clients, PartitionRand(tt.seed))
				if err != nil {
					t.Fatal(err)
				}
				for c, idx := range parts {
					if !slices.Equal(perClient[c+1], idx) {
						t.Errorf("client %d: rows %v, want %v", c+1, perClient[c+1], idx)
					}
				}
				if ex.PartitionDropped != dropped || len(perClient[1])*tt.clients+dropped != d.Rows() {
					t.Errorf("dropped %d, want %d", ex.PartitionDropped, dropped)
				}
			}
			if d.Server != nil && len(perClient[0]) != d.Server.Rows() {
				t.Errorf("%d server rows, want %d", len(perClient[0]), d.Server.Rows())
			}
		})
	}
}

// Standardised clump thickness of the sample's rows 5, 5, 8: mean 6, std
// sqrt(2), so the last row is 2/sqrt(2), written in full.
func TestExportCSVKnownValue(t *testing.T) {
	d := loadCase(t, "breast-cancer-wisc", false)
	ex, err := NewExport(d, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ex.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "2,1.414213562373095,") || !strings.HasSuffix(lines[3], ",1,1") {
		t.Errorf("csv:\n%s", buf.String())
	}
}

// The JSON export records its provenance and the same rows as the CSV one.
func TestExportJSON(t *testing.T) {
	for _, tt := range exportCases {
		t.Run(tt.name, func(t *testing.T) {
			d := loadCase(t, tt.dataset, tt.real)
			ex, err := NewExport(d, tt.clients, tt.seed)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := ex.Write(&buf, "json", "test-version"); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Dataset      string      `json:"dataset"`
				Version      string      `json:"fedcon_version"`
				FeatureNames []string    `json:"feature_names"`
				Files        []string    `json:"files"`
				Dropped      int         `json:"dropped"`
				Clients      int         `json:"clients"`
				Seed         *uint64     `json:"seed"`
				Partition    string      `json:"partition"`
				Scalings     []any       `json:"standardization"`
				Rows         []ExportRow `json:"rows"`
			}
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("%v\n%.500s", err, buf.String())
			}
			if doc.Dataset != d.Name || doc.Version != "test-version" || !slices.Equal(doc.FeatureNames, d.FeatureNames) ||
				!slices.Equal(doc.Files, d.Files) || doc.Dropped != d.Dropped || doc.Clients != tt.clients || len(doc.Scalings) != len(d.Scalings) {
				t.Errorf("header %+v", doc)
			}
			if (doc.Seed != nil) != (tt.clients > 0) || (doc.Seed != nil && *doc.Seed != tt.seed) || (doc.Partition != "") != (tt.clients > 0) {
				t.Errorf("seed %v, partition %q", doc.Seed, doc.Partition)
			}
			if len(doc.Rows) != tt.wantRows {
				t.Fatalf("%d rows, want %d", len(doc.Rows), tt.wantRows)
			}
			for i, r := range doc.Rows {
				w := ex.Rows[i]
				if r.Row != w.Row || !slices.Equal(r.X, w.X) || r.Y != w.Y || (r.Client == nil) != (tt.clients == 0) ||
					(r.Server == nil) != (d.Server == nil) || (r.Group == nil) != (d.Group == nil) {
					t.Fatalf("row %d: %+v, want %+v", i, r, w)
				}
			}
			// A pure function of (data, clients, seed).
			again, err := NewExport(d, tt.clients, tt.seed)
			if err != nil {
				t.Fatal(err)
			}
			var buf2 bytes.Buffer
			if err := again.Write(&buf2, "json", "test-version"); err != nil || !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
				t.Errorf("second export differs (%v)", err)
			}
		})
	}
}

func TestExportErrors(t *testing.T) {
	monks := loadCase(t, "monks-1", false)
	tests := []struct {
		name    string
		clients int
		format  string
	}{
		{"negative clients", -1, "csv"},
		// The sample has 2 rows of class 0 (testdata/monks).
		{"more clients than a class has rows", 3, "csv"},
		{"unknown format", 0, "xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, err := NewExport(monks, tt.clients, 1)
			if err == nil {
				var buf bytes.Buffer
				err = ex.Write(&buf, tt.format, "v")
				if buf.Len() != 0 {
					t.Errorf("wrote %q before failing", buf.String())
				}
			}
			if !errors.As(err, new(*RequestError)) {
				t.Errorf("got %v, want a *RequestError", err)
			}
		})
	}
}
