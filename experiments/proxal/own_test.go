package proxal

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/datasets"
)

// TestDataBlock: a configuration without a data file encodes (and so
// hashes) as before the data block existed; with one, the trial hash
// follows the contents and choices, not the path.
func TestDataBlock(t *testing.T) {
	for _, cfg := range []any{&NPConfig{}, &FairConfig{}} {
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"data"`) {
			t.Errorf("%T without a data file encodes a data key: %s", cfg, b)
		}
	}
	src := func(file, sum, label string) *DataSource {
		s := &DataSource{File: file, SHA256: sum, Partition: "iid"}
		s.Label = label
		return s
	}
	hash := func(s *DataSource) string {
		return (&NPConfig{Clients: []int{2}, R: 0.2, Data: s}).TrialHash()
	}
	base := hash(src("/a/x.csv", "aa", "y"))
	if got := hash(src("/b/x.csv", "aa", "y")); got != base {
		t.Error("the trial hash depends on the path")
	}
	for name, s := range map[string]*DataSource{"contents": src("/a/x.csv", "bb", "y"), "label": src("/a/x.csv", "aa", "z")} {
		if hash(s) == base {
			t.Errorf("another %s, same trial hash", name)
		}
	}
	fair := &FairConfig{Clients: []int{2}, R: 0.1, Data: src("/a/x.csv", "aa", "y")}
	moved := &FairConfig{Clients: []int{2}, R: 0.1, Data: src("/b/x.csv", "aa", "y")}
	if fair.TrialHash() != moved.TrialHash() {
		t.Error("fairness: the trial hash depends on the path")
	}
}

func TestDataSourceValidate(t *testing.T) {
	tests := []struct {
		name string
		s    DataSource
		msg  string // "" for valid
	}{
		{"iid", DataSource{File: "f", Partition: "iid"}, ""},
		{"by column", DataSource{File: "f", Partition: "by-column", OwnSpec: datasets.OwnSpec{PartitionBy: "site"}}, ""},
		{"dirichlet", DataSource{File: "f", Partition: "dirichlet", DirichletAlpha: 0.1}, ""},
		{"no file", DataSource{Partition: "iid"}, "data.file"},
		{"format", DataSource{File: "f", Format: "json", Partition: "iid"}, "format = json"},
		{"by column without column", DataSource{File: "f", Partition: "by-column"}, "needs --partition-by"},
		{"column without by column", DataSource{File: "f", Partition: "iid", OwnSpec: datasets.OwnSpec{PartitionBy: "site"}}, "needs partition by-column"},
		{"alpha 0", DataSource{File: "f", Partition: "dirichlet"}, "dirichlet-alpha = 0"},
		{"alpha NaN", DataSource{File: "f", Partition: "dirichlet", DirichletAlpha: math.NaN()}, "dirichlet-alpha = NaN"},
		{"alpha +Inf", DataSource{File: "f", Partition: "dirichlet", DirichletAlpha: math.Inf(1)}, "dirichlet-alpha = +Inf"},
		{"alpha without dirichlet", DataSource{File: "f", Partition: "iid", DirichletAlpha: 1}, "needs partition dirichlet"},
		{"unknown partition", DataSource{File: "f", Partition: "random"}, "partition = random"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.validate()
			switch {
			case tt.msg == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.msg != "" && (err == nil || !strings.Contains(err.Error(), tt.msg)):
				t.Fatalf("error %v, want one with %q", err, tt.msg)
			}
		})
	}
}
