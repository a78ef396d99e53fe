package datasets

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realDir returns the directory with the real UCI files: $FEDCON_DATA_DIR,
// else ../../shared/datasets beside the repository; the test is skipped
// when neither holds them.
func realDir(t testing.TB) string {
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

// counts returns the class-0 and class-1 counts of y.
func counts(y []float64) (c0, c1 int) {
	for _, v := range y {
		switch v {
		case 0:
			c0++
		case 1:
			c1++
		}
	}
	return c0, c1
}

// Known counts, from the UCI documentation (adult.names: 24720 / 7841;
// breast-cancer-wisconsin.names: 458 benign / 241 malignant of which 16 rows
// have '?', 14 benign and 2 malignant; monks.names; heart.doc: 150 absent /
// 120 present; abalone.names: 4177 instances) and our column layouts
// (doc.go).
func TestLoadReal(t *testing.T) {
	dirs := []string{realDir(t)}
	tests := []struct {
		name         string
		rows, c0, c1 int
		cols         int
		dropped      int
	}{
		{"breast-cancer-wisc", 683, 444, 239, 10, 16},
		{"adult-a", 32561, 24720, 7841, 109, 0},
		{"monks-1", 556, 278, 278, 18, 0},
		{"adult-b", 30162, 22654, 7508, 39, 2399},
		{"heart", 270, 150, 120, 14, 0},
		{"abalone", 4177, -1, -1, 11, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Load(tt.name, dirs)
			if err != nil {
				t.Fatal(err)
			}
			r, c := d.X.Dims()
			if r != tt.rows || len(d.Y) != tt.rows || c != tt.cols || len(d.FeatureNames) != c {
				t.Fatalf("X is %dx%d with %d labels and %d names, want %dx%d", r, c, len(d.Y), len(d.FeatureNames), tt.rows, tt.cols)
			}
			if d.Dropped != tt.dropped {
				t.Errorf("dropped %d rows, want %d", d.Dropped, tt.dropped)
			}
			if tt.c0 >= 0 {
				if c0, c1 := counts(d.Y); c0 != tt.c0 || c1 != tt.c1 {
					t.Errorf("classes %d/%d, want %d/%d", c0, c1, tt.c0, tt.c1)
				}
			}
			checkInvariants(t, d)
		})
	}
}

// checkInvariants checks what every Dataset promises: an intercept column,
// finite entries, standardised columns with mean 0 and std 1 over their own
// rows, and a consistent sensitive group.
func checkInvariants(t *testing.T, d *Dataset) {
	t.Helper()
	checkDataset(t, d, false)
}

// checkDataset is checkInvariants; server datasets use their parent's
// statistics, so their standardised columns are not checked.
func checkDataset(t *testing.T, d *Dataset, server bool) {
	t.Helper()
	r, c := d.X.Dims()
	if d.FeatureNames[c-1] != "intercept" {
		t.Errorf("last column is %q", d.FeatureNames[c-1])
	}
	for i := 0; i < r; i++ {
		if d.X.At(i, c-1) != 1 {
			t.Fatalf("intercept of row %d is %v", i, d.X.At(i, c-1))
		}
		for j := 0; j < c; j++ {
			if v := d.X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("X[%d,%d] = %v", i, j, v)
			}
		}
	}
	if !server {
		// Mean and std of a standardised column, summed over at most 3e4
		// values of magnitude O(1) in float64: rounding error ~1e-12.
		const tol = 1e-9
		for _, s := range d.Scalings {
			col := make([]float64, r)
			mat64Col(col, d, s.Column)
			sm := summarize("", col)
			if s.Std == 1 && sm.Min == sm.Max && sm.Mean == 0 {
				continue // a constant column, all zeros
			}
			if math.Abs(sm.Mean) > tol || math.Abs(sm.Std-1) > tol {
				t.Errorf("column %s: mean %g, std %g after standardisation", d.FeatureNames[s.Column], sm.Mean, sm.Std)
			}
		}
	}
	if d.Group != nil {
		if d.GroupColumn < 0 || len(d.Group) != r {
			t.Fatalf("group column %d, %d groups for %d rows", d.GroupColumn, len(d.Group), r)
		}
		for i, g := range d.Group {
			if float64(g) != d.X.At(i, d.GroupColumn) {
				t.Fatalf("row %d: group %d but column %v", i, g, d.X.At(i, d.GroupColumn))
			}
		}
	} else if d.GroupColumn != -1 {
		t.Errorf("GroupColumn = %d without groups", d.GroupColumn)
	}
}

func TestAdultBServerReal(t *testing.T) {
	d, err := Load("adult-b", []string{realDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Server
	if s == nil {
		t.Fatal("no server data")
	}
	// adult.test: 16281 records, 1221 with '?', 11360 <=50K / 3700 >50K among the rest.
	if c0, c1 := counts(s.Y); s.Rows() != 15060 || s.Dropped != 1221 || c0 != 11360 || c1 != 3700 {
		t.Errorf("server: %d rows (%d dropped), classes %d/%d", s.Rows(), s.Dropped, c0, c1)
	}
	if !slices.Equal(s.FeatureNames, d.FeatureNames) || !slices.Equal(s.Scalings, d.Scalings) {
		t.Error("server columns or standardisation differ from the clients'")
	}
	if d.FeatureNames[d.GroupColumn] != "sex=Male" || d.GroupColumn != len(d.FeatureNames)-2 {
		t.Errorf("sex column %d = %q", d.GroupColumn, d.FeatureNames[d.GroupColumn])
	}
	checkDataset(t, s, true)
	if g0, g1 := counts(floatGroups(d.Group)); g0 != 9782 || g1 != 20380 {
		t.Errorf("clients: %d female, %d male; want 9782, 20380", g0, g1)
	}
}

func floatGroups(g []int) []float64 {
	out := make([]float64, len(g))
	for i, v := range g {
		out[i] = float64(v)
	}
	return out
}

func TestCheckFilesReal(t *testing.T) {
	dirs := []string{realDir(t)}
	for _, f := range AllFiles() {
		st := CheckFile(f, dirs, "")
		if !st.OK() || st.Normalized || st.Records != f.Records {
			t.Errorf("%s: ok=%v normalized=%v records=%d err=%v", f.Path, st.OK(), st.Normalized, st.Records, st.Err)
		}
	}
}

// copyTree copies the real files into a temporary directory, passing each
// through edit (nil keeps it).
func copyTree(t *testing.T, src string, edit func(path string, data []byte) []byte) string {
	t.Helper()
	dst := t.TempDir()
	for _, f := range AllFiles() {
		data, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			data = edit(f.Path, data)
		}
		p := filepath.Join(dst, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestIntegrityReal(t *testing.T) {
	src := realDir(t)
	const target = "monks/monks-1.train"
	tests := []struct {
		name     string
		edit     func([]byte) []byte
		wantErr  any // nil, or a pointer to the expected error type
		wantNorm bool
	}{
		{"crlf and extra spaces", func(b []byte) []byte {
			return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\n"), []byte("  \r\n")), []byte(" 1 "), []byte("\t1  "))
		}, nil, true},
		{"one value changed", func(b []byte) []byte {
			return bytes.Replace(b, []byte(" 1 1 1 1 1 3 1 data_5"), []byte(" 0 1 1 1 1 3 1 data_5"), 1)
		}, new(*ChecksumError), false},
		{"truncated at a line end", func(b []byte) []byte {
			return b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1]
		}, new(*CountError), false},
		{"truncated mid-line", func(b []byte) []byte { return b[:len(b)-12] }, new(*ParseError), false},
		{"empty", func([]byte) []byte { return nil }, new(*ParseError), false},
		{"garbled", func(b []byte) []byte {
			g := slices.Clone(b)
			copy(g[100:], "\x00\xff\xfe garbage")
			return g
		}, new(*ParseError), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyTree(t, src, func(p string, b []byte) []byte {
				if p == target {
					return tt.edit(b)
				}
				return b
			})
			dirs := []string{dir}
			st := CheckFile(fileByPath(target), dirs, "monks-1")
			_, err := Load("monks-1", dirs)
			if tt.wantErr == nil {
				if err != nil || !st.OK() || st.Normalized != tt.wantNorm {
					t.Fatalf("load: %v; check: ok=%v normalized=%v err=%v", err, st.OK(), st.Normalized, st.Err)
				}
				return
			}
			var fe *FileError
			if !errors.As(err, &fe) || !errors.As(err, tt.wantErr) {
				t.Fatalf("got %v (%T), want a *FileError wrapping %T", err, err, tt.wantErr)
			}
			if !errors.As(st.Err, tt.wantErr) || st.OK() {
				t.Errorf("check: %v", st.Err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, dir) || !strings.Contains(msg, "fedcon data fetch monks-1") {
				t.Errorf("message %q is not one line naming the file, the directory and the fix", msg)
			}
		})
	}
}

func TestNoVerifyReal(t *testing.T) {
	dir := copyTree(t, realDir(t), func(p string, b []byte) []byte {
		if p == "statlog-heart/heart.dat" { // drop the first record
			return b[bytes.IndexByte(b, '\n')+1:]
		}
		return b
	})
	if _, err := Load("heart", []string{dir}); !errors.As(err, new(*CountError)) {
		t.Fatalf("verified load: %v, want a count error", err)
	}
	d, err := Load("heart", []string{dir}, NoVerify())
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 269 {
		t.Errorf("%d rows, want 269", d.Rows())
	}
}

func TestMissingFile(t *testing.T) {
	dirs := []string{filepath.Join(t.TempDir(), "none"), "testdata/monks"}
	_, err := Load("adult-a", dirs)
	var fe *FileError
	if !errors.As(err, &fe) || !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want a not-found *FileError", err)
	}
	want := "datasets: adult/adult.data not found (searched " + dirs[0] + ", testdata/monks): set --data-dir or FEDCON_DATA_DIR to the folder holding adult/adult.data, or run 'fedcon data fetch adult-a'"
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}
	if _, err := Load("adult-a", nil); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "searched no directory") {
		t.Errorf("no dirs: %v", err)
	}
}

func TestUnknownDataset(t *testing.T) {
	for _, f := range []func() error{
		func() error { _, err := Load("adult-c", nil); return err },
		func() error { _, err := Files("adult-c"); return err },
		func() error { _, err := RawLabels("adult-c", nil); return err },
	} {
		var re *RequestError
		if err := f(); !errors.As(err, &re) || re.Field != "dataset" || !strings.Contains(err.Error(), "breast-cancer-wisc") {
			t.Errorf("got %v", err)
		}
	}
}

func TestSearchPath(t *testing.T) {
	cache := CacheDir()
	tests := []struct {
		flag, env string
		want      []string
	}{
		{"/a", "/b", []string{"/a", "/b", cache}},
		{"", "/b", []string{"/b", cache}},
		{"/a", "", []string{"/a", cache}},
		{"", "", []string{cache}},
		{"/a", "/a", []string{"/a", cache}},   // --data-dir and FEDCON_DATA_DIR agree
		{"/a/", "/a", []string{"/a/", cache}}, // up to cleaning
	}
	for _, tt := range tests {
		want := slices.DeleteFunc(slices.Clone(tt.want), func(s string) bool { return s == "" })
		if got := SearchPath(tt.flag, tt.env); !slices.Equal(got, want) {
			t.Errorf("SearchPath(%q, %q) = %v, want %v", tt.flag, tt.env, got, want)
		}
	}
	if cache != "" && !strings.HasSuffix(cache, filepath.Join("fedcon", "datasets")) {
		t.Errorf("CacheDir() = %q", cache)
	}
}

// The pipelines on the hand-written samples in testdata, checked against
// values computed by hand.
func TestPipelinesSample(t *testing.T) {
	dirs := []string{"testdata"}
	load := func(name string) *Dataset {
		t.Helper()
		d, err := Load(name, dirs, NoVerify())
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, d)
		return d
	}
	const tol = 1e-12 // a handful of float64 operations on small integers

	t.Run("breast-cancer-wisc", func(t *testing.T) {
		d := load("breast-cancer-wisc")
		// Row 3 has '?' and is dropped; clump thickness of rows 1, 2, 4 is
		// 5, 5, 8: mean 6, population std sqrt(2), so row 4 has 2/sqrt(2).
		if d.Rows() != 3 || d.Dropped != 1 || !slices.Equal(d.Y, []float64{0, 0, 1}) {
			t.Fatalf("rows %d dropped %d y %v", d.Rows(), d.Dropped, d.Y)
		}
		if got := d.X.At(2, 0); math.Abs(got-math.Sqrt2) > tol {
			t.Errorf("standardised clump thickness %v, want sqrt(2)", got)
		}
		if s := d.Scalings[0]; s.Mean != 6 || math.Abs(s.Std-math.Sqrt2) > tol {
			t.Errorf("scaling %+v", s)
		}
		// Mitoses is 1 everywhere: a constant column becomes 0 with std 1.
		if s := d.Scalings[8]; s.Std != 1 || d.X.At(0, 8) != 0 {
			t.Errorf("constant column: scaling %+v, value %v", s, d.X.At(0, 8))
		}
	})
	t.Run("monks-1", func(t *testing.T) {
		d := load("monks-1")
		// Train (3 rows) then test (2 rows); row 3 is a = 3 3 2 3 4 2.
		if d.Rows() != 5 || !slices.Equal(d.Y, []float64{1, 0, 1, 0, 1}) {
			t.Fatalf("rows %d y %v", d.Rows(), d.Y)
		}
		want := []float64{0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1}
		if got := d.X.RawRowView(2); !slices.Equal(got, want) {
			t.Errorf("row 3 = %v, want %v", got, want)
		}
	})
	t.Run("adult-a", func(t *testing.T) {
		d := load("adult-a")
		if d.Rows() != 5 || d.Dropped != 0 || !slices.Equal(d.Y, []float64{0, 0, 1, 1, 1}) {
			t.Fatalf("rows %d y %v", d.Rows(), d.Y)
		}
		// Row 4 has '?' for workclass and occupation.
		for _, name := range []string{"workclass=?", "occupation=?", "native-country=South", "sex=Male"} {
			j := slices.Index(d.FeatureNames, name)
			if j < 0 || d.X.At(3, j) != 1 {
				t.Errorf("row 4: %s missing or not set", name)
			}
		}
		// Ages 40 50 50 55 30: mean 45, population std sqrt(400/5).
		if got, want := d.X.At(0, 0), -5/math.Sqrt(80); math.Abs(got-want) > tol {
			t.Errorf("standardised age %v, want %v", got, want)
		}
	})
	t.Run("adult-b", func(t *testing.T) {
		d := load("adult-b")
		// Row 4 of adult.data and row 2 of adult.test have '?'.
		if d.Rows() != 4 || d.Dropped != 1 || d.Server.Rows() != 2 || d.Server.Dropped != 1 {
			t.Fatalf("rows %d+%d, dropped %d+%d", d.Rows(), d.Server.Rows(), d.Dropped, d.Server.Dropped)
		}
		checkDataset(t, d.Server, true)
		if !slices.Equal(d.Group, []int{1, 1, 0, 0}) || !slices.Equal(d.Server.Group, []int{1, 1}) {
			t.Errorf("groups %v / %v", d.Group, d.Server.Group)
		}
		col := func(name string) int {
			j := slices.Index(d.FeatureNames, name)
			if j < 0 {
				t.Fatalf("no column %s", name)
			}
			return j
		}
		// Row 2 (Self-emp-not-inc, Married-civ-spouse, US, no capital gain)
		// and row 4 (Private, Never-married, Mexico, capital loss 1000).
		checks := []struct {
			row  int
			name string
			want float64
		}{
			{1, "workclass=self-employed", 1}, {1, "marital-status=couple", 1},
			{1, "native-country=United-States", 1}, {1, "capital-gain>0", 0},
			{3, "workclass=private", 1}, {3, "marital-status=couple", 0},
			{3, "native-country=United-States", 0}, {3, "capital-loss>0", 1},
			{3, "relationship=Not-in-family", 1}, {3, "occupation=Prof-specialty", 1},
		}
		for _, c := range checks {
			if got := d.X.At(c.row, col(c.name)); got != c.want {
				t.Errorf("row %d %s = %v, want %v", c.row+1, c.name, got, c.want)
			}
		}
		// Server ages 25 and 45 use the client statistics (ages 40 50 50 30:
		// mean 42.5, population std sqrt(68.75)).
		if got, want := d.Server.X.At(0, 0), (25-42.5)/math.Sqrt(68.75); math.Abs(got-want) > tol {
			t.Errorf("server age %v, want %v", got, want)
		}
		if got := d.Server.X.At(1, col("workclass=government")); got != 1 {
			t.Errorf("Federal-gov not grouped as government")
		}
	})
	t.Run("heart", func(t *testing.T) {
		d := load("heart")
		if d.Rows() != 3 || !slices.Equal(d.Y, []float64{1, 0, 1}) || len(d.Scalings) != 13 {
			t.Fatalf("rows %d y %v", d.Rows(), d.Y)
		}
	})
	t.Run("abalone", func(t *testing.T) {
		d := load("abalone")
		if !d.Regression || !slices.Equal(d.Y, []float64{15, 9, 7}) {
			t.Fatalf("y %v", d.Y)
		}
		if got := d.X.RawRowView(2)[:3]; !slices.Equal(got, []float64{0, 0, 1}) {
			t.Errorf("infant one-hot %v", got)
		}
	})
}

func TestRawLabelsReal(t *testing.T) {
	y, err := RawLabels("breast-cancer-wisc", []string{realDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	// breast-cancer-wisconsin.names: 458 benign, 241 malignant, first row benign.
	if c0, c1 := counts(y); c0 != 458 || c1 != 241 || y[0] != 0 {
		t.Errorf("raw classes %d/%d, first %v", c0, c1, y[0])
	}
}
