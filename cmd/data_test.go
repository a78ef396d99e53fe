package cmd

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/datasets/datasetstest"
	"github.com/fedcon/fedcon/internal/testutil"
)

// dataSampleDir holds the hand-written samples of the datasets package; their
// checksums are not the pinned ones (load them with NoVerify).
var dataSampleDir = filepath.Join("..", "datasets", "testdata")

// dataRealDir returns the folder with the real UCI files ($FEDCON_DATA_DIR,
// else ../../shared/datasets) or skips the test.
func dataRealDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FEDCON_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets")
	}
	if _, err := os.Stat(filepath.Join(dir, "adult", "adult.data")); err != nil {
		t.Skipf("real data files not found in %q: set FEDCON_DATA_DIR to the folder holding adult/adult.data (e.g. ../shared/datasets) to run this test", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// dataIsolateCache points the per-user cache dir at an empty temporary folder,
// so that files a developer fetched never leak into a test.
func dataIsolateCache(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("HOME", home)
	return datasets.CacheDir()
}

// testFactory returns a Factory over test streams with the given environment.
func dataFactory(env map[string]string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	io, out, errOut := testIO()
	return &Factory{IO: io, Version: "test-version", Getenv: func(k string) string { return env[k] }, NumCPU: 1}, out, errOut
}

// dataRoot mounts sub under a root with the persistent flags of cmd/root.go.
func dataRoot(sub *cobra.Command) *cobra.Command {
	root := &cobra.Command{Use: "fedcon", SilenceErrors: true, SilenceUsage: true}
	root.PersistentFlags().Bool("quiet", false, "")
	root.PersistentFlags().Bool("json", false, "")
	root.PersistentFlags().String("data-dir", "", "")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &FlagError{err: err, usage: c.CommandPath()}
	})
	data := &cobra.Command{Use: "data"}
	data.AddCommand(sub)
	root.AddCommand(data)
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	return root
}

// argv -> options, through capturing run functions.
func TestNewCmdData(t *testing.T) {
	cache := dataIsolateCache(t)
	env := map[string]string{"FEDCON_DATA_DIR": "/env"}
	type got struct {
		list     *DataListOptions
		verify   *DataVerifyOptions
		describe *DataDescribeOptions
		fetch    *DataFetchOptions
		export   *DataExportOptions
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr bool // a usage error
		check   func(t *testing.T, g *got)
	}{
		{name: "list env", args: []string{"data", "list"}, env: env, check: func(t *testing.T, g *got) {
			if !slices.Equal(g.list.Dirs, []string{"/env", cache}) {
				t.Errorf("dirs %v", g.list.Dirs)
			}
		}},
		{name: "list flag first", args: []string{"--data-dir", "/flag", "data", "list", "--json"}, env: env, check: func(t *testing.T, g *got) {
			if !slices.Equal(g.list.Dirs, []string{"/flag", "/env", cache}) || !g.list.JSON {
				t.Errorf("%+v", g.list)
			}
		}},
		{name: "verify names", args: []string{"data", "verify", "adult-b", "heart"}, check: func(t *testing.T, g *got) {
			if !slices.Equal(g.verify.Names, []string{"adult-b", "heart"}) {
				t.Errorf("names %v", g.verify.Names)
			}
		}},
		{name: "verify unknown", args: []string{"data", "verify", "adult-c"}, wantErr: true},
		{name: "describe", args: []string{"data", "describe", "adult-b", "--no-verify", "--data-dir", "/d"}, check: func(t *testing.T, g *got) {
			if g.describe.Name != "adult-b" || !g.describe.NoVerify || g.describe.Dirs[0] != "/d" {
				t.Errorf("%+v", g.describe)
			}
		}},
		{name: "describe unknown", args: []string{"data", "describe", "iris"}, wantErr: true},
		{name: "describe no name", args: []string{"data", "describe"}, wantErr: true},
		{name: "fetch default dir", args: []string{"data", "fetch", "monks-1"}, env: env, check: func(t *testing.T, g *got) {
			if g.fetch.Dir != cache || !slices.Equal(g.fetch.Names, []string{"monks-1"}) || g.fetch.Mirror != datasets.DefaultBaseURL {
				t.Errorf("%+v", g.fetch)
			}
		}},
		{name: "fetch into data dir", args: []string{"data", "fetch", "--data-dir", "/x", "--force", "--no-verify", "--mirror", "https://m/"}, check: func(t *testing.T, g *got) {
			if g.fetch.Dir != "/x" || !g.fetch.Force || !g.fetch.NoVerify || g.fetch.Mirror != "https://m/" || len(g.fetch.Names) != 0 {
				t.Errorf("%+v", g.fetch)
			}
		}},
		{name: "export", args: []string{"data", "export", "monks-1", "--clients", "5", "--seed", "9", "--format", "json", "-o", "x.json"}, check: func(t *testing.T, g *got) {
			e := g.export
			if e.Name != "monks-1" || e.Clients != 5 || e.Seed != 9 || e.Format != "json" || e.Output != "x.json" {
				t.Errorf("%+v", e)
			}
		}},
		{name: "export defaults", args: []string{"data", "export", "heart"}, check: func(t *testing.T, g *got) {
			if e := g.export; e.Clients != 0 || e.Seed != 1 || e.Format != "csv" || e.Output != "" {
				t.Errorf("%+v", e)
			}
		}},
		{name: "export bad format", args: []string{"data", "export", "heart", "--format", "xml"}, wantErr: true},
		{name: "export negative clients", args: []string{"data", "export", "heart", "--clients", "-2"}, wantErr: true},
		{name: "export bad flag", args: []string{"data", "export", "heart", "--clinets", "2"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := dataFactory(tt.env)
			g := &got{}
			var sub *cobra.Command
			switch tt.args[slices.Index(tt.args, "data")+1] {
			case "list":
				sub = NewCmdDataList(f, func(o *DataListOptions) error { g.list = o; return nil })
			case "verify":
				sub = NewCmdDataVerify(f, func(o *DataVerifyOptions) error { g.verify = o; return nil })
			case "describe":
				sub = NewCmdDataDescribe(f, func(o *DataDescribeOptions) error { g.describe = o; return nil })
			case "fetch":
				sub = NewCmdDataFetch(f, func(o *DataFetchOptions) error { g.fetch = o; return nil })
			case "export":
				sub = NewCmdDataExport(f, func(o *DataExportOptions) error { g.export = o; return nil })
			}
			root := dataRoot(sub)
			root.SetArgs(tt.args)
			err := root.Execute()
			if tt.wantErr {
				if exitCode(err) != exitUsage {
					t.Fatalf("got %v (exit %d), want a usage error", err, exitCode(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, g)
		})
	}
}

func TestDataListRun(t *testing.T) {
	dataIsolateCache(t)
	dataWithoutDebian(t)
	f, out, errOut := dataFactory(nil)
	o := &DataListOptions{IO: f.IO, Dirs: []string{dataSampleDir}}
	if err := dataListRun(o); err != nil {
		t.Fatal(err)
	}
	// The samples are present but are not the pinned files.
	for _, want := range []string{"breast-cancer-wisc", "monks/monks-1.train monks/monks-1.test", "yes", "FAILED"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut.String(), "searched: "+dataSampleDir) {
		t.Errorf("stderr %q", errOut)
	}

	out.Reset()
	o = &DataListOptions{IO: f.IO, Dirs: []string{t.TempDir()}, JSON: true}
	if err := dataListRun(o); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Datasets []dataListEntry `json:"datasets"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Datasets) != len(datasets.FetchNames()) || doc.Datasets[0].Files[0].Present || doc.Datasets[0].Files[0].Error == "" {
		t.Errorf("%+v", doc.Datasets)
	}
}

func TestDataListVerifyReal(t *testing.T) {
	dir := dataRealDir(t)
	dataIsolateCache(t)
	dataWithoutDebian(t)
	f, out, _ := dataFactory(nil)
	if err := dataListRun(&DataListOptions{IO: f.IO, Dirs: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "FAILED") || strings.Count(out.String(), " ok ") != 6 {
		t.Errorf("list:\n%s", out)
	}
	out.Reset()
	if err := dataVerifyRun(&DataVerifyOptions{IO: f.IO, Dirs: []string{dir}, Names: datasets.Names()}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), " ok ") != 7 || !strings.Contains(out.String(), "│ 32561   │ ok") {
		t.Errorf("verify:\n%s", out)
	}
}

func TestDataVerifyRunFailure(t *testing.T) {
	dataIsolateCache(t)
	f, out, _ := dataFactory(nil)
	err := dataVerifyRun(&DataVerifyOptions{IO: f.IO, Dirs: []string{dataSampleDir}, Names: []string{"heart"}})
	var fe *datasets.FileError
	if !errors.As(err, &fe) || exitCode(err) != exitUsage {
		t.Fatalf("got %v, want a *datasets.FileError", err)
	}
	if !strings.Contains(out.String(), "FAILED: 3 records, want 270") {
		t.Errorf("table:\n%s", out)
	}
	out.Reset()
	err = dataVerifyRun(&DataVerifyOptions{IO: f.IO, Dirs: []string{t.TempDir()}, Names: []string{"monks-1"}})
	if !errors.Is(err, datasets.ErrNotFound) || strings.Count(out.String(), "missing") != 2 {
		t.Errorf("got %v\n%s", err, out)
	}
}

func TestDataDescribeRun(t *testing.T) {
	f, out, _ := dataFactory(nil)
	o := &DataDescribeOptions{IO: f.IO, Dirs: []string{dataSampleDir}, Name: "adult-b", NoVerify: true}
	if err := dataDescribeRun(o); err != nil {
		t.Fatal(err)
	}
	// testdata adult.data: 5 rows, 1 with '?'; 2 of each class; adult.test: 3 rows, 1 with '?'.
	for _, want := range []string{"rows      4 (1 raw records dropped), classes 0: 2, 1: 2",
		"groups    0: 2, 1: 2 (sex: 0 = Female, 1 = Male; column 37, sex=Male)",
		"server    2 (1 raw records dropped)", "features  39 columns", "intercept"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out.Reset()
	o.JSON = true
	if err := dataDescribeRun(o); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc["rows"] != 4.0 || doc["server"] == nil || doc["columns"] == nil {
		t.Errorf("%v", doc)
	}
	// Without --no-verify the samples fail their integrity check: exit 2.
	o.NoVerify = false
	if err := dataDescribeRun(o); exitCode(err) != exitUsage || strings.Contains(err.Error(), "\n") {
		t.Errorf("verified: %v", err)
	}
}

func TestDataDescribeReal(t *testing.T) {
	f, out, _ := dataFactory(nil)
	if err := dataDescribeRun(&DataDescribeOptions{IO: f.IO, Dirs: []string{dataRealDir(t)}, Name: "adult-b"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"30162 (2399 raw records dropped), classes 0: 22654, 1: 7508", "15060 (1221 raw records dropped)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDataExportRun(t *testing.T) {
	f, out, errOut := dataFactory(nil)
	o := &DataExportOptions{IO: f.IO, Dirs: []string{dataSampleDir}, Name: "breast-cancer-wisc", Format: "csv", NoVerify: true, Version: "v"}
	if err := dataExportRun(o); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// Header + 3 rows (the '?' row dropped): row, 9 features, intercept, y.
	if len(recs) != 4 || len(recs[0]) != 12 || recs[0][0] != "row" || recs[0][10] != "intercept" || recs[0][11] != "y" {
		t.Fatalf("csv %v", recs)
	}
	// Clump thickness 5, 5, 8: mean 6, std sqrt(2); row 3 is 2/sqrt(2), printed exactly.
	if recs[3][1] != "1.414213562373095" || recs[3][10] != "1" || recs[3][11] != "1" {
		t.Errorf("last row %v", recs[3])
	}
	if !strings.Contains(errOut.String(), "exported 3 rows x 10 features") {
		t.Errorf("stderr %q", errOut)
	}

	// adult-b, partitioned: client rows carry 1..n, server rows 0.
	out.Reset()
	o = &DataExportOptions{IO: f.IO, Dirs: []string{dataSampleDir}, Name: "adult-b", Format: "json", Clients: 2, Seed: 3, NoVerify: true, Quiet: true, Version: "v"}
	if err := dataExportRun(o); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Dataset      string   `json:"dataset"`
		Version      string   `json:"fedcon_version"`
		FeatureNames []string `json:"feature_names"`
		GroupColumn  int      `json:"group_column"`
		Seed         uint64   `json:"seed"`
		Rows         []struct {
			Row    int       `json:"row"`
			Client int       `json:"client"`
			Server bool      `json:"server"`
			X      []float64 `json:"x"`
			Y      float64   `json:"y"`
			Group  *int      `json:"group"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Dataset != "adult-b" || doc.Version != "v" || doc.Seed != 3 || len(doc.Rows) != 4+2 || doc.GroupColumn != 37 {
		t.Fatalf("%+v", doc)
	}
	perClient := map[int]int{}
	for _, r := range doc.Rows {
		perClient[r.Client]++
		if r.Server != (r.Client == 0) || r.Group == nil || float64(*r.Group) != r.X[doc.GroupColumn] || len(r.X) != len(doc.FeatureNames) {
			t.Errorf("row %+v", r)
		}
	}
	if perClient[0] != 2 || perClient[1] != 2 || perClient[2] != 2 {
		t.Errorf("rows per client %v", perClient)
	}
	// The same seed gives the same file.
	first := slices.Clone(out.Bytes())
	out.Reset()
	if err := dataExportRun(o); err != nil || !bytes.Equal(first, out.Bytes()) {
		t.Errorf("rerun differs (%v)", err)
	}

	// More clients than rows of a class: exit 2.
	o = &DataExportOptions{IO: f.IO, Dirs: []string{dataSampleDir}, Name: "monks-1", Format: "csv", Clients: 3, NoVerify: true}
	err = dataExportRun(o)
	var re *datasets.RequestError
	if !errors.As(err, &re) || exitCode(err) != exitUsage {
		t.Errorf("got %v, want a *datasets.RequestError", err)
	}

	// To a file.
	path := filepath.Join(t.TempDir(), "m.csv")
	o = &DataExportOptions{IO: f.IO, Dirs: []string{dataSampleDir}, Name: "monks-1", Format: "csv", Output: path, NoVerify: true, Quiet: true}
	if err := dataExportRun(o); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || bytes.Count(b, []byte("\n")) != 6 {
		t.Errorf("file: %v\n%s", err, b)
	}
}

func TestDataFetchRun(t *testing.T) {
	// A local HTTPS mirror serving the hand-written samples.
	srv, _ := datasetstest.UCIMirror(t, dataSampleDir, nil)
	f, out, _ := dataFactory(nil)
	dir := t.TempDir()
	o := &DataFetchOptions{IO: f.IO, Names: []string{"monks-1"}, Dir: dir, Mirror: srv.URL + "/uci/", HTTPClient: srv.Client(), Quiet: true}
	err := dataFetchRun(o)
	var fe *datasets.FileError
	if !errors.As(err, &fe) || exitCode(err) != exitUsage || !strings.Contains(err.Error(), "--no-verify") {
		t.Fatalf("verified fetch of the samples: %v", err)
	}
	o.NoVerify = true
	if err := dataFetchRun(o); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "downloaded") != 2 {
		t.Errorf("table:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "monks", "monks-1.test")); err != nil {
		t.Error(err)
	}
	o.Mirror = "http://insecure.example.org/"
	if err := dataFetchRun(o); exitCode(err) != exitUsage {
		t.Errorf("http mirror: %v", err)
	}
}

// End to end through Main's run: a missing data dir is one line and exit 2,
// and an experiment leaves nothing in --out (the data is looked for before
// the output directory is made).
func TestDataMissingDirExitCode(t *testing.T) {
	dataIsolateCache(t)
	sweep := filepath.Join(t.TempDir(), "np.yaml")
	if err := os.WriteFile(sweep, []byte("preset: table1\nbase: {datasets: [monks-1], clients: [2]}\nsweep:\n  r: [0.2, 0.3]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"data", "describe", "adult-a"},
		{"data", "export", "monks-1"},
		{"reproduce", "table3"},
		{"reproduce", "table1"},
		{"run", "np", "--dataset", "adult-a"},
		{"run", "fair"},
		{"reproduce", "figure1"},
		{"reproduce", "conic-table3"},
		{"sweep", sweep},
	} {
		outDir := t.TempDir()
		if args[0] != "data" {
			args = append(args, "--out", outDir)
		}
		f, out, errOut := dataFactory(map[string]string{"FEDCON_DATA_DIR": "/nonexistent"})
		code := run(context.Background(), f, args)
		msg := errOut.String()
		if code != exitUsage || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "/nonexistent") ||
			!strings.Contains(msg, "FEDCON_DATA_DIR") || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, msg)
		}
		if left, _ := os.ReadDir(outDir); len(left) != 0 {
			t.Errorf("%v: left %d entries in --out (first %s)", args, len(left), left[0].Name())
		}
	}
	f, _, errOut := dataFactory(nil)
	if code := run(context.Background(), f, []string{"data", "describe", "iris"}); code != exitUsage ||
		!strings.Contains(errOut.String(), "unknown") {
		t.Errorf("unknown dataset: exit %d, %q", code, errOut)
	}
}

// dataWithoutDebian stands for a machine without Debian's
// dataset-fashion-mnist for the test.
func dataWithoutDebian(t *testing.T) {
	t.Helper()
	old := datasets.DebianFashionDir
	datasets.DebianFashionDir = filepath.Join(t.TempDir(), "none")
	t.Cleanup(func() { datasets.DebianFashionDir = old })
}

// dataNeedsDebian skips a test without Debian's dataset-fashion-mnist.
func dataNeedsDebian(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(datasets.DebianFashionDir, "train-images-idx3-ubyte.gz")); err != nil {
		t.Skip("Debian's dataset-fashion-mnist is not installed (apt-get install dataset-fashion-mnist)")
	}
}

// offlineClient fails every request, as on a machine without a network,
// and counts them.
func offlineClient(hits *int) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		*hits++
		return nil, errors.New("dial tcp: lookup " + r.URL.Host + ": no such host")
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// 'data fetch' offline: what is present and intact anywhere on the search
// path is reported where it is and not fetched; only what is missing is
// asked of the network.
func TestDataFetchOffline(t *testing.T) {
	testutil.Slow(t)
	real := dataRealDir(t)
	cache := dataIsolateCache(t)
	tests := []struct {
		name    string
		names   []string
		search  []string
		debian  bool   // Debian's dataset-fashion-mnist installed (else hidden)
		wantErr bool   // some file must be downloaded, and cannot be
		present int    // files reported present
		in      string // where they are reported
	}{
		{name: "UCI in FEDCON_DATA_DIR", names: datasets.Names(), search: []string{real, cache}, present: 7, in: real},
		{name: "UCI in --data-dir", names: []string{"adult-b", "monks-1"}, search: []string{real, "/nonexistent", cache}, present: 4, in: real},
		{name: "everything, Fashion-MNIST from Debian", search: []string{real, cache}, debian: true, present: 11},
		{name: "Fashion-MNIST from Debian", names: []string{"fashion-mnist"}, search: []string{cache}, debian: true, present: 4, in: "/usr/share/datasets/fashion-mnist"},
		{name: "Fashion-MNIST missing", names: []string{"fashion-mnist"}, search: []string{real, cache}, wantErr: true},
		{name: "UCI missing", names: []string{"heart"}, search: []string{cache}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.debian {
				dataNeedsDebian(t)
			} else {
				dataWithoutDebian(t)
			}
			f, out, errOut := dataFactory(nil)
			hits := 0
			o := &DataFetchOptions{IO: f.IO, Names: tt.names, Search: tt.search, Dir: cache, Mirror: datasets.DefaultBaseURL,
				HTTPClient: offlineClient(&hits)}
			err := dataFetchRun(o)
			if tt.wantErr {
				if err == nil || hits != 1 || !strings.Contains(err.Error(), "no such host") {
					t.Fatalf("got %v after %d requests, want the first download's error", err, hits)
				}
				return
			}
			if err != nil || hits != 0 {
				t.Fatalf("got %v after %d requests, want none", err, hits)
			}
			if n := strings.Count(out.String(), " present "); n != tt.present || strings.Contains(out.String(), "downloaded") {
				t.Errorf("%d files present, want %d:\n%s", n, tt.present, out)
			}
			if tt.in != "" && strings.Count(out.String(), tt.in) != tt.present {
				t.Errorf("files not reported in %s:\n%s", tt.in, out)
			}
			if want := fmt.Sprintf("all %d files present and intact: nothing to download", tt.present); !strings.Contains(errOut.String(), want) {
				t.Errorf("stderr %q, want %q", errOut, want)
			}
		})
	}
}

// End to end: offline with everything present, 'data fetch' exits 0.
func TestDataFetchOfflineExitCode(t *testing.T) {
	real := dataRealDir(t)
	dataIsolateCache(t)
	dataNeedsDebian(t)
	f, out, errOut := dataFactory(map[string]string{"FEDCON_DATA_DIR": real})
	if code := run(context.Background(), f, []string{"data", "fetch", "--mirror", "https://127.0.0.1:1/"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out.String(), "downloaded") {
		t.Errorf("%s", out)
	}
}

func TestDataDescribeFashion(t *testing.T) {
	dataNeedsDebian(t)
	dataIsolateCache(t)
	f, out, _ := dataFactory(nil)
	if err := dataDescribeRun(&DataDescribeOptions{IO: f.IO, Dirs: []string{t.TempDir()}, Name: "fashion-mnist"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"train     60000 images, 6000 per label (10 labels)", "test      10000 images, 1000 per label (10 labels)",
		"pixels    784 per image", datasets.DebianFashionDir} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// MNIST absent: one line naming the fix, exit 2.
	err := dataDescribeRun(&DataDescribeOptions{IO: f.IO, Dirs: []string{t.TempDir()}, Name: "mnist"})
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "MNIST's four idx files") {
		t.Errorf("mnist: %v", err)
	}
}
