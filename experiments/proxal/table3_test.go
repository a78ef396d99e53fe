package proxal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/datasets"
)

// table3Dir returns the directory with the real UCI files ($FEDCON_DATA_DIR,
// else ../../shared/datasets) or skips the test.
func table3Dir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FEDCON_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets")
	}
	if _, err := os.Stat(filepath.Join(dir, "adult", "adult.data")); err != nil {
		t.Skipf("real data files not found in %q: set FEDCON_DATA_DIR to the folder holding adult/adult.data (e.g. ../shared/datasets) to run this test", dir)
	}
	return dir
}

func TestPaperLoader(t *testing.T) {
	tests := []struct {
		name string
		y    []float64
		n    int
		want [2]int
	}{
		{"empty", nil, 5, [2]int{}},
		{"first record lost", []float64{1, 0, 1}, 1, [2]int{1, 1}},
		{"floored per class", []float64{0, 0, 0, 0, 0, 0, 0, 1, 1, 1}, 3, [2]int{6, 3}},
		{"no clients", []float64{0, 1}, 0, [2]int{}},
	}
	for _, tt := range tests {
		if got := PaperLoader(tt.y, tt.n); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The published Table 3 is reproduced exactly by the paper's loader on the
// raw files; our own counts are the documented ones (datasets tests).
func TestTable3Real(t *testing.T) {
	res, err := Table3(&Table3Config{DataDirs: []string{table3Dir(t)}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Table3Counts{
		"breast-cancer-wisc": {"breast-cancer-wisc", 444, 239, 10},
		"adult-a":            {"adult-a", 24720, 7841, 109},
		"monks-1":            {"monks-1", 278, 278, 18},
	}
	if len(res.Rows) != 3 {
		t.Fatalf("%d rows", len(res.Rows))
	}
	for i, row := range res.Rows {
		if row.Paper != Table3Paper[i] || row.Ours != want[row.Ours.Dataset] {
			t.Errorf("row %d: ours %+v paper %+v", i, row.Ours, row.Paper)
		}
		if !row.LoaderMatches {
			t.Errorf("%s: paper's loader gives %v, paper %d/%d", row.Ours.Dataset, row.Loader, row.Paper.Class0, row.Paper.Class1)
		}
	}
	tab := res.Tables()[0]
	if len(tab.Rows) != 3 || tab.Rows[1][1] != "24720 / 7841" || tab.Rows[1][2] != "24715 / 7840" {
		t.Errorf("table rows %v", tab.Rows)
	}
	if md := tab.Markdown(); !strings.Contains(md, "| breast-cancer-wisc") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestTable3MissingData(t *testing.T) {
	_, err := Table3(&Table3Config{DataDirs: []string{t.TempDir()}})
	var fe *datasets.FileError
	if !errors.As(err, &fe) || !errors.Is(err, datasets.ErrNotFound) {
		t.Fatalf("got %v, want a not-found *datasets.FileError", err)
	}
}
