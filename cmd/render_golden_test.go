package cmd

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/conic"
	"github.com/fedcon/fedcon/experiments/drfl"
	"github.com/fedcon/fedcon/experiments/proxal"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/tables/")

// goldenWidths are the terminal widths every table kind is rendered at.
var goldenWidths = []int{80, 100, 120}

// ms is a MeanStd for a test row.
func ms(mean, std float64) experiments.MeanStd { return experiments.MeanStd{Mean: mean, Std: std} }

// goldenTables are one representative of each table kind the terminal
// shows, built by the code that builds the real ones (values made up).
func goldenTables() map[string][]*experiments.Table {
	div := func(trials int) experiments.Divergence {
		return experiments.Divergence{Trials: trials, RelDiffTrials: trials}
	}
	classRow := func(ds string, n int, obj, feas float64, flags string) proxal.ClassRow {
		r := proxal.ClassRow{Dataset: ds, N: n, Obj1: ms(obj, 0.0178), ObjC: ms(obj-0.0005, 0.0178), RelDiff: ms(7.25e-4, 5.07e-5),
			FeasMean1: ms(feas-0.002, 3.6e-5), FeasMax1: ms(feas, 7.2e-6), FeasMeanC: ms(feas-0.002, 1.8e-5), FeasMaxC: ms(feas, 7.9e-7),
			WorstMax1: feas, WorstMaxC: feas, Outer1: ms(4, 0), OuterC: ms(4, 0), Inner1: ms(240, 3), InnerC: ms(36, 1),
			Passes1: ms(6794, 10), PassesC: ms(607, 3), Rounds1: ms(246, 2), MBytes1: ms(25.88, 0.1), Wall1: ms(0.89, 0.01), WallC: ms(0.06, 0),
			KKT1: [2]float64{6.5e-4, 1.79e-4}, KKTC: [2]float64{5.62e-4, 1.75e-4}, Flags: flags, Divergence: div(10)}
		r.Published = experiments.PublishedRowIn("published", "table1", ds, "10")
		return r
	}
	rows := []proxal.ClassRow{
		classRow("breast-cancer-wisc", 10, 0.3712, 0.2000, "ok"),
		classRow("adult-a", 10, 0.6445, 0.2001, "Alg. 1 InnerIterationLimit x2; Alg. 1 local tol missed x1"),
		classRow("monks-1", 10, 1.5611, 0.2000, "ok"),
	}
	np := proxal.ClassTables("Table 1: Neyman-Pearson classification, eq. (30) — class-0 loss (objective), class-1 loss (feasibility)",
		"class-1 loss", rows, true, 0.2, func(r proxal.ClassRow) []float64 { return r.Published.Values })
	np[0].AddNotes(experiments.PaperNotes("published", "table1", proxal.Datasets(rows))...)

	qpStats := func(obj float64, flags string) proxal.QPStats {
		return proxal.QPStats{Obj1: ms(obj, 7e-5), ObjC: ms(obj-0.01, 1.5e-5), RelDiff: ms(1.1e-3, 8e-6), Viol1: ms(1.3e-4, 9e-6), ViolC: ms(8e-4, 1.6e-6),
			Outer1: ms(5, 0), OuterC: ms(5.2, 0.4), Inner1: ms(412, 20), Rounds1: ms(417, 20), MBytes1: ms(3.3, 0.1), Wall1: ms(0.12, 0.01), WallC: ms(0.02, 0),
			Dist1: ms(2e-5, 0), DistC: ms(3e-5, 0), KKT1: [2]float64{4e-4, 1.3e-4}, KKTC: [2]float64{2e-4, 8e-4}, Flags: flags, Divergence: div(10)}
	}
	qp := &proxal.QPResult{Info: &experiments.RunInfo{Config: &proxal.QPConfig{TrialConfig: experiments.TrialConfig{RNG: "fedcon"}}}}
	for i, c := range [][3]int{{1, 100, 1}, {5, 300, 3}, {10, 500, 5}} {
		row := proxal.QPRow{N: c[0], D: c[1], M: c[2], FStar: 9.81 * float64(i), QPStats: qpStats(9.81*float64(i), "ok")}
		row.Published = experiments.PublishedRowIn("published", "table4", fmt.Sprintf("%d,%d,%d", c[0], c[1], c[2]))
		qp.Rows = append(qp.Rows, row)
	}
	cq := &conic.QPResult{Info: &experiments.RunInfo{Config: &conic.QPConfig{}}}
	for _, c := range [][3]int{{100, 1, 1}, {300, 5, 3}, {500, 10, 5}} {
		row := conic.QPRow{D: c[0], N: c[1], M: c[2], Exact: true, FStar: ms(-6.2, 0.2), QPStats: qpStats(-6.2, "ok")}
		row.Published = experiments.PublishedRowIn("conic-published", "table1", fmt.Sprintf("%d,%d,%d", c[0], c[1], c[2]))
		cq.Rows = append(cq.Rows, row)
	}
	check := experiments.CheckTable([]experiments.CheckRow{
		{Experiment: "table1", Cell: "all", Rule: "trials = trial files", Pass: true},
		{Experiment: "table1", Cell: "adult-a n=10", Rule: "kkt stationarity Alg. 1", Value: 6.5e-4, Bound: 1e-3, Pass: true},
		{Experiment: "table1", Cell: "adult-a n=10", Rule: "objective vs baseline cProx-AL", Value: 2.1e-3, Bound: 1e-3,
			Detail: "trial 3: 0.6461 against the recorded baseline 0.6440 (configs/reference/table1.yaml, trial hash 1f2e3d4c5b6a)"},
		{Experiment: "conic-table1", Cell: "d=300 n=5 m=3", Rule: "outer iterations vs paper cProx-AL", Value: 1.03, Bound: 1.5, Pass: true},
	})
	verify := verifyTable([]datasets.FileStatus{
		{File: datasets.AllFiles()[0], Path: "/data/breast-cancer-wisconsin/breast-cancer-wisconsin.data", Records: 699},
		{File: datasets.AllFiles()[1]},
	})
	fig1 := drflFigure1Table(&drfl.Figure1{Levels: []float64{0.1, 0.5, 1}, RhoDRFL: []float64{0.0198, 0.0401, 0.1149},
		RhoWAFL: []float64{0.0161, 0.033, 0.074}, VolumeDRFL: []float64{0, 0, 0.0035}, VolumeWAFL: []float64{0, 0, 0.004}})
	return map[string][]*experiments.Table{
		"np": np, "qp": qp.Tables(), "conic-qp": cq.Tables(), "check": {check}, "data-verify": {verify}, "drfl-figure1": {fig1},
	}
}

// Every table kind at 80, 100 and 120 columns against its golden file
// (go test ./cmd -run TestTablesGolden -update rewrites them; review the
// diff), and two invariants the files could hide: no line is wider than
// the terminal, and every box repeats the table's key column headers.
func TestTablesGolden(t *testing.T) {
	for kind, tables := range goldenTables() {
		for _, width := range goldenWidths {
			t.Run(fmt.Sprintf("%s-%d", kind, width), func(t *testing.T) {
				var b bytes.Buffer
				if err := printTables(&b, width, tables...); err != nil {
					t.Fatal(err)
				}
				got := b.String()
				for i, line := range strings.Split(got, "\n") {
					if n := utf8.RuneCountInString(line); n > width {
						t.Errorf("line %d is %d columns wide, more than %d: %q", i+1, n, width, line)
					}
				}
				var keys []string
				for _, tb := range tables {
					if view := tb.Brief; view != nil {
						tb = view
					} else if tb.Detail {
						continue
					}
					for _, h := range tb.Header[:max(tb.Keys, 1)] {
						keys = append(keys, strings.Fields(h)[0])
					}
				}
				// Every box's header rows (between ┌ and ├) name the key
				// columns of some table: its first key at least.
				for i, box := range strings.Split(got, "┌")[1:] {
					head, _, _ := strings.Cut(box, "├")
					cells := map[string]bool{}
					for _, line := range strings.Split(head, "\n") {
						for _, cell := range strings.Split(line, "│") {
							if f := strings.Fields(cell); len(f) > 0 {
								cells[f[0]] = true
							}
						}
					}
					found := false
					for _, k := range keys {
						found = found || cells[k]
					}
					if !found {
						t.Errorf("box %d lacks a key column (%v):\n%s", i+1, keys, head)
					}
				}
				path := filepath.Join("testdata", "tables", fmt.Sprintf("%s-%d.golden", kind, width))
				if *updateGolden {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./cmd -run TestTablesGolden -update writes it)", err)
				}
				if got != string(want) {
					t.Errorf("%s at %d columns changed:\n%s\nwant:\n%s", kind, width, got, want)
				}
			})
		}
	}
}

// --wide prints every table whole, the detail tables too, in every column.
func TestTablesWide(t *testing.T) {
	for kind, tables := range goldenTables() {
		var b bytes.Buffer
		if err := printTables(&b, 0, tables...); err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			for _, h := range tb.Header {
				if !strings.Contains(b.String(), h) {
					t.Errorf("%s: --wide lacks column %q", kind, h)
				}
			}
		}
		if strings.Contains(b.String(), briefNote) || strings.Contains(b.String(), "(part ") {
			t.Errorf("%s: --wide output is a compact or split view", kind)
		}
	}
}
