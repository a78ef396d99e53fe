package cmd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/testutil"
)

// TestAllJobData: every job of `reproduce all` declares its data sets, and
// the declarations agree with the presets the jobs run.
func TestAllJobData(t *testing.T) {
	for _, j := range allJobs {
		if _, ok := allJobData[j.name]; !ok {
			t.Errorf("job %s declares no data sets", j.name)
		}
	}
	if len(allJobData) != len(allJobs) {
		t.Errorf("%d declarations for %d jobs", len(allJobData), len(allJobs))
	}
	preset := func(name string) string {
		b, err := configs.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	list := regexp.MustCompile(`(?m)^datasets: \[(.*)\]`)
	one := regexp.MustCompile(`(?m)^dataset: (\S+)`)
	for job, p := range map[string]string{
		"table1": "table1", "figure1": "table1", "conic-table2": "conic-table2", "conic-figure1": "conic-table2",
		"table2": "table2", "figure2": "table2", "table2-authors": "table2-authors", "figure2-authors": "table2-authors",
		"conic-table3": "conic-table3", "conic-figure2": "conic-table3",
	} {
		var want []string
		if m := list.FindStringSubmatch(preset(p)); m != nil {
			want = strings.Split(strings.ReplaceAll(m[1], " ", ""), ",")
		} else if m := one.FindStringSubmatch(preset(p)); m != nil {
			want = []string{m[1]}
		}
		if !slices.Equal(allJobData[job], want) {
			t.Errorf("%s: declares %v, preset %s reads %v", job, allJobData[job], p, want)
		}
	}
	drfl, err := os.ReadFile(filepath.Join("..", "configs", "drfl", "drfl.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for k := 2; k <= 5; k++ {
		block := regexp.MustCompile(`(?m)^figure` + string(rune('0'+k)) + `:[^\n]*\n((?:  - [^\n]*\n)+)`).FindStringSubmatch(string(drfl))
		if block == nil {
			t.Fatalf("drfl.yaml: no figure%d block", k)
		}
		var want []string
		for _, m := range regexp.MustCompile(`dataset: ([\w-]+)`).FindAllStringSubmatch(block[1], -1) {
			want = append(want, m[1])
		}
		if job := "drfl-figure" + string(rune('0'+k)); !slices.Equal(allJobData[job], want) {
			t.Errorf("%s: declares %v, drfl.yaml reads %v", job, allJobData[job], want)
		}
	}
}

// uciMirror serves the shared data folder in the UCI archive's layout.
func uciMirror(t *testing.T) *httptest.Server {
	t.Helper()
	root := os.Getenv("FEDCON_DATA_DIR")
	if _, err := os.Stat(filepath.Join(root, "adult", "adult.data")); root == "" || err != nil {
		t.Skip("FEDCON_DATA_DIR does not hold the raw data files")
	}
	byURL := map[string]string{}
	for _, f := range datasets.AllFiles() {
		byURL["/uci/"+f.URL] = f.Path
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rel, ok := byURL[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(root, filepath.FromSlash(rel)))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestReproduceAllFetches: on a machine without the data, `reproduce all`
// fetches what its experiments read, says so in one line, and runs them;
// offline, it names what is missing, skips only what needs it, and exits 1.
func TestReproduceAllFetches(t *testing.T) {
	testutil.Slow(t)
	srv := uciMirror(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, tc := range []struct {
		name     string
		mirror   string
		args     []string
		want     int
		messages []string
	}{
		{"fetch", srv.URL + "/uci", nil, 0, []string{"data: fetched breast-cancer-wisc, adult-a, monks-1 into "}},
		{"offline", srv.URL + "/gone", nil, 1, []string{"data: breast-cancer-wisc is missing and could not be fetched",
			// The summary table wraps its cells to the terminal (the results
			// column holds a temporary path of varying length): the full list
			// is in the error line, the table keeps "skipped: no".
			"skipped: data set breast-cancer-wisc, adult-a, monks-1 not found", "skipped: no"}},
		{"no fetch", srv.URL + "/uci", []string{"--no-fetch"}, 1, []string{"data: missing breast-cancer-wisc, adult-a, monks-1 (--no-fetch)", "skipped: no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, out := t.TempDir(), t.TempDir()
			f, stdout, stderr := testFactory()
			c := newCmdReproduceAll(f, func(o *AllOptions) error {
				o.fetcher = &datasets.Fetcher{Client: srv.Client(), BaseURL: tc.mirror}
				return allRun(f, o)
			})
			c.PersistentFlags().String("data-dir", "", "")
			c.SetArgs(append([]string{"--quick", "--only", "table3,table4", "--data-dir", data, "--out", out}, tc.args...))
			c.SetOut(stdout)
			c.SetErr(stderr)
			err := c.ExecuteContext(context.Background())
			if got := exitCode(err); got != tc.want {
				t.Fatalf("exit %d, want %d: %v\n%s%s", got, tc.want, err, stderr, stdout)
			}
			all := stderr.String() + stdout.String()
			for _, m := range tc.messages {
				if !strings.Contains(all, m) {
					t.Errorf("no %q in:\n%s", m, all)
				}
			}
			// Table 4 needs no data: it runs in every case.
			if !regexp.MustCompile(`table4\s+│ ok`).MatchString(stdout.String()) {
				t.Errorf("table4 did not run:\n%s", stdout)
			}
			// The gate's record: both expected, table3's absence explained
			// when it was skipped.
			e, err := experiments.ReadExpected(filepath.Join(out, "quick"))
			if err != nil || !slices.Equal(e.Experiments, []string{"table3", "table4"}) || (tc.want == 1) != strings.HasPrefix(e.Skipped["table3"], "no breast-cancer-wisc") {
				t.Errorf("reproduce-all.json: %+v (%v)", e, err)
			}
		})
	}
}
