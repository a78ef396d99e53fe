package experiments

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestPublished(t *testing.T) {
	cases := []struct {
		table string
		path  []string
		want0 float64
		n     int
	}{
		{"table4", []string{"5,100,1"}, 9.81, 10},
		{"table1", []string{"adult-a", "5"}, 0.74, 14},
		{"table2", []string{"20"}, 0.38, 14},
	}
	for _, c := range cases {
		got := Published(c.table, c.path...)
		if len(got) != c.n || got[0] != c.want0 {
			t.Errorf("%s %v = %v", c.table, c.path, got)
		}
	}
	if Published("table1", "nope", "1") != nil {
		t.Error("unknown key should give nil")
	}
}

// A published row's JSON is keyed by the reference file's columns, in
// order, and reads back; the unlabelled list of earlier files still reads.
func TestPublishedRowJSON(t *testing.T) {
	row := PublishedRowIn("published", "table1", "adult-a", "10")
	if len(row.Columns) != 14 || len(row.Values) != 14 || row.Columns[0] != "objective_alg1" || row.Values[0] != 0.77 {
		t.Fatalf("%+v", row)
	}
	b, err := json.Marshal(struct {
		P PublishedRow `json:"published,omitzero"`
		Q PublishedRow `json:"none,omitzero"`
	}{P: row})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"published":{"objective_alg1":0.77,"objective_alg1_std":0.0198,"objective_cprox":0.77,`) || strings.Contains(string(b), "none") {
		t.Errorf("JSON %s", b)
	}
	var back struct {
		P PublishedRow `json:"published"`
	}
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back.P.Columns, row.Columns) || !slices.Equal(back.P.Values, row.Values) {
		t.Errorf("round trip %+v, %v", back.P, err)
	}
	tests := []struct {
		name, in string
		want     []float64
		wantErr  bool
	}{
		{"list of earlier files", `[0.77, 0.0198]`, []float64{0.77, 0.0198}, false},
		{"object", `{"b": 2, "a": 1}`, []float64{2, 1}, false},
		{"not a number", `{"a": "x"}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p PublishedRow
			err := json.Unmarshal([]byte(tt.in), &p)
			if (err != nil) != tt.wantErr || !tt.wantErr && !slices.Equal(p.Values, tt.want) {
				t.Errorf("got %+v, %v", p, err)
			}
		})
	}
}

// Each data set of Table 1 carries its reason; Table 2, whose values we
// expect to match, none; a whole-table reason is one note.
func TestPaperNotes(t *testing.T) {
	tests := []struct {
		file, table string
		keys        []string
		want        []string // substrings, one per note
	}{
		{"published", "table1", []string{"adult-a", "adult-a", "monks-1"}, []string{"Paper column, adult-a: not expected to match: different feature encodings", "Paper column, monks-1: "}},
		{"published", "table2", []string{"adult-b"}, nil},
		{"conic-published", "table3", []string{"adult-b"}, []string{"Paper column: not expected to match: the paper's split and encoding of adult-b are unpublished"}},
		{"published", "nope", []string{"x"}, nil},
	}
	for _, tt := range tests {
		got := PaperNotes(tt.file, tt.table, tt.keys)
		if len(got) != len(tt.want) {
			t.Errorf("%s %s: %q", tt.file, tt.table, got)
			continue
		}
		for i, w := range tt.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s %s note %d: %q, want prefix %q", tt.file, tt.table, i, got[i], w)
			}
		}
	}
}
