package datasets

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseCSV(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		names []string
		lines []int
		cell  string // column 0 of the last row
	}{
		{"plain", "a,b,y\n1,x,0\n2,z,1\n", []string{"a", "b", "y"}, []int{2, 3}, "2"},
		{"spaces, CRLF, blank lines, BOM", "\xef\xbb\xbf a , b ,y\r\n\r\n 1 , x ,0\r\n\n2,z,1", []string{"a", "b", "y"}, []int{3, 5}, "2"},
		{"quoted", "\"a,1\",b\n\"3,5\",\"say \"\"hi\"\"\"\n", []string{"a,1", "b"}, []int{2}, "3,5"},
		{"tab", "a\tb\n1\t2\n", []string{"a", "b"}, []int{2}, "1"},
		{"semicolon", "a;b\n1;2\n", []string{"a", "b"}, []int{2}, "1"},
		{"one column", "y\n1\n0\n", []string{"y"}, []int{2, 3}, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb, err := parseCSV([]byte(tt.in), "f.csv")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tb.Names, tt.names) || !slices.Equal(tb.Lines, tt.lines) {
				t.Fatalf("names %q lines %v; want %q %v", tb.Names, tb.Lines, tt.names, tt.lines)
			}
			if got := tb.cols[0].str[tb.Rows()-1]; got != tt.cell {
				t.Errorf("last cell %q, want %q", got, tt.cell)
			}
		})
	}
}

func TestParseCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"empty", "", 1, "empty file"},
		{"header only", "a,b\n", 1, "no data rows"},
		{"ragged", "a,b,c\n1,2,3\n4,5\n", 3, "expected 3 fields as in the header, got 2"},
		{"too many", "a,b\n1,2\n\n3,4,5\n", 4, "got 3"},
		{"unnamed", "a,,c\n1,2,3\n", 1, "column 2 of the header has no name"},
		{"repeated", "a,b,a\n1,2,3\n", 1, `column name "a" repeats (columns 1 and 3)`},
		{"bare quote", "a,b\n1,x\"y\n", 2, "bare \""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCSV([]byte(tt.in), "f.csv")
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tt.line || pe.File != "f.csv" {
				t.Fatalf("error %v; want a *ParseError at f.csv:%d", err, tt.line)
			}
			if tt.msg == "no data rows" {
				tt.msg = "found none"
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%q lacks %q", err, tt.msg)
			}
		})
	}
}

func TestParseLIBSVM(t *testing.T) {
	in := "# a comment\n+1 1:0.5 3:2 # trailing\n\n-1 qid:3 2:-1\r\n+1\n"
	tb, err := parseLIBSVM([]byte(in), "f.svm")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"f1", "f2", "f3", "label"}; !slices.Equal(tb.Names, want) {
		t.Fatalf("names %q, want %q", tb.Names, want)
	}
	if want := []int{2, 4, 5}; !slices.Equal(tb.Lines, want) {
		t.Errorf("lines %v, want %v", tb.Lines, want)
	}
	if want := []string{"+1", "-1", "+1"}; !slices.Equal(tb.cols[3].str, want) {
		t.Errorf("labels %q, want %q", tb.cols[3].str, want)
	}
	want := [][]float64{{0.5, 0, 0}, {0, -1, 0}, {2, 0, 0}} // columns f1, f2, f3
	for j, w := range want {
		if !slices.Equal(tb.cols[j].num, w) {
			t.Errorf("f%d = %v, want %v", j+1, tb.cols[j].num, w)
		}
	}
	// Build's default label is the LIBSVM label; +1 is the larger class.
	d, err := Build(tb, OwnSpec{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Y, []float64{1, 0, 1}) || len(d.FeatureNames) != 4 {
		t.Errorf("Y %v, features %q; want [1 0 1] and f1, f2, f3, intercept", d.Y, d.FeatureNames)
	}

	bad := []struct{ in, msg string }{
		{"", "found none"},
		{"# only\n\n", "found none"},
		{"1 1:a\n", `pair 1: expected index:value`},
		{"1 2:1 1:1\n", "index 1 after 2"},
		{"1 0:1\n", "index 0 out of range"},
		{"1 3:1\n0 x\n", "pair 1"},
		{"1 1:inf\n", "pair 1"},
	}
	for _, b := range bad {
		_, err := parseLIBSVM([]byte(b.in), "f.svm")
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%q: error %v, want a *ParseError with %q", b.in, err, b.msg)
		}
	}
}

// build parses a CSV text and builds it with spec.
func build(t *testing.T, in string, spec OwnSpec, seed uint64) (*Dataset, error) {
	t.Helper()
	tb, err := parseCSV([]byte(in), "own.csv")
	if err != nil {
		t.Fatal(err)
	}
	return Build(tb, spec, seed)
}

func TestBuild(t *testing.T) {
	// Hand-computed: x = 1, 2, 3 has mean 2 and population std sqrt(2/3).
	in := "id,x,colour,code,y\n7,1,red,3,no\n8,2,blue,1,yes\n9,?,red,1,yes\n10,3,red,1,no\n"
	d, err := build(t, in, OwnSpec{Drop: []string{"id"}, Categorical: []string{"code"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"x", "colour=blue", "colour=red", "code=1", "code=3", "intercept"}; !slices.Equal(d.FeatureNames, want) {
		t.Fatalf("features %q, want %q", d.FeatureNames, want)
	}
	s := math.Sqrt(2.0 / 3)
	want := [][]float64{{-1 / s, 0, 1, 0, 1, 1}, {0, 1, 0, 1, 0, 1}, {1 / s, 0, 1, 1, 0, 1}}
	for i, w := range want {
		for j, v := range w {
			if got := d.X.At(i, j); math.Abs(got-v) > 1e-15 {
				t.Errorf("X[%d][%d] = %v, want %v", i, j, got, v)
			}
		}
	}
	if !slices.Equal(d.Y, []float64{0, 1, 0}) || d.Dropped != 1 || d.Name != "own" {
		t.Errorf("Y %v dropped %d name %q; want [0 1 0], 1 (the '?' row), own", d.Y, d.Dropped, d.Name)
	}
	if len(d.Scalings) != 1 || d.Scalings[0].Mean != 2 || math.Abs(d.Scalings[0].Std-s) > 1e-15 {
		t.Errorf("scalings %+v", d.Scalings)
	}
	if want := "1 = y yes, 0 = any other value"; d.Label != want {
		t.Errorf("label %q, want %q: the larger of no/yes is positive", d.Label, want)
	}
}

func TestBuildFairness(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,sex,site,y\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d,%s,%s,%d\n", i, []string{"F", "M"}[i%2], []string{"north", "south", "east"}[i%3], i%5/3)
	}
	d, err := build(t, b.String(), OwnSpec{Sensitive: "sex", PartitionBy: "site", ServerFraction: 0.25}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"x", "sex=M", "intercept"}; !slices.Equal(d.FeatureNames, want) {
		t.Fatalf("features %q, want %q", d.FeatureNames, want)
	}
	if d.Rows() != 30 || d.Server == nil || d.Server.Rows() != 10 {
		t.Fatalf("%d client rows and server %v; want 30 and 10", d.Rows(), d.Server)
	}
	if d.GroupColumn != 1 || d.Server.GroupColumn != 1 {
		t.Errorf("group column %d/%d, want 1", d.GroupColumn, d.Server.GroupColumn)
	}
	for i, g := range d.Group {
		if float64(g) != d.X.At(i, 1) {
			t.Fatalf("row %d: group %d, column %v", i, g, d.X.At(i, 1))
		}
	}
	if !slices.Equal(d.Sites, []string{"east", "north", "south"}) || len(d.Site) != 30 {
		t.Errorf("sites %q (%d rows)", d.Sites, len(d.Site))
	}
	// The server is standardised with the clients' statistics: its x column
	// is (x - mean)/std with the clients' mean and std.
	sc := d.Scalings[0]
	var xs []float64
	for i := range d.Server.Rows() {
		xs = append(xs, d.Server.X.At(i, 0)*sc.Std+sc.Mean)
	}
	for _, x := range xs {
		if math.Abs(x-math.Round(x)) > 1e-9 {
			t.Fatalf("server x %v does not map back to an integer", xs)
		}
	}
	// A pure function of the seed; another seed holds out other rows.
	again, _ := build(t, b.String(), OwnSpec{Sensitive: "sex", PartitionBy: "site", ServerFraction: 0.25}, 3)
	other, _ := build(t, b.String(), OwnSpec{Sensitive: "sex", PartitionBy: "site", ServerFraction: 0.25}, 4)
	if !slices.Equal(again.Server.X.RawMatrix().Data, d.Server.X.RawMatrix().Data) {
		t.Error("same seed, different server rows")
	}
	if slices.Equal(other.Server.X.RawMatrix().Data, d.Server.X.RawMatrix().Data) {
		t.Error("seeds 3 and 4 hold out the same server rows")
	}
}

func TestBuildErrors(t *testing.T) {
	const in = "a,b,c,y\n1,x,5,0\n2,y,6,1\n3,z,7,2\n"
	tests := []struct {
		name string
		in   string
		spec OwnSpec
		line int // > 0: a *ParseError at this line; else a *RequestError
		msg  string
	}{
		{"unknown label", in, OwnSpec{Label: "target"}, 0, "label = target: no such column in own.csv (columns: a, b, c, y)"},
		{"three classes", in, OwnSpec{}, 0, "has 3 values (0, 1, 2): name the one coded 1 with --positive"},
		{"positive absent", in, OwnSpec{Positive: "9"}, 0, "positive = 9: does not occur in column y of own.csv (values: 0, 1, 2)"},
		{"one class", "a,y\n1,yes\n2,yes\n", OwnSpec{}, 0, "has one value (yes)"},
		{"all positive", "a,y\n1,1\n2,1.0\n", OwnSpec{Positive: "1"}, 0, "is 1 in every row"},
		{"not a number", "a,b,y\n1,2,0\n2,x,1\n", OwnSpec{}, 3, `column "b" (field 2): expected a number (line 2 has "2"), got "x"`},
		{"unknown partition column", in, OwnSpec{Positive: "1", PartitionBy: "region"}, 0, "partition-by = region: no such column"},
		{"sensitive is label", in, OwnSpec{Positive: "1", Sensitive: "y"}, 0, "is already used as the label"},
		{"sensitive one group", "s,y\nm,0\nm,1\n", OwnSpec{Sensitive: "s"}, 0, "sensitive = s: has one value"},
		{"server fraction", in, OwnSpec{Positive: "1", ServerFraction: 1.5}, 0, "must be in (0, 1)"},
		{"server fraction too small", in, OwnSpec{Positive: "1", ServerFraction: 0.1}, 0, "gives 0 of 3 rows"},
		{"all missing", "a,y\n?,1\n2,\n", OwnSpec{}, 0, "every row has a missing value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := build(t, tt.in, tt.spec, 1)
			if tt.line > 0 {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Line != tt.line {
					t.Fatalf("error %v; want a *ParseError at line %d", err, tt.line)
				}
			} else {
				var re *RequestError
				if !errors.As(err, &re) {
					t.Fatalf("error %v; want a *RequestError", err)
				}
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%q lacks %q", err, tt.msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%q is more than one line", err)
			}
		})
	}
}

func TestReadOwn(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "d.svm")
	if err := os.WriteFile(p, []byte("1 1:2\n0 1:3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, sum, err := ReadOwn(p, "")
	if err != nil || tb.Names[len(tb.Names)-1] != "label" {
		t.Fatalf("%v %v: want the LIBSVM reader by extension", tb, err)
	}
	// sha256 of "1 1:2\n0 1:3\n", from sha256sum(1).
	if want := "b583f2d9fe67c7148a89288515beb82c55b0466cd04e7e35c55cbc10c40247e3"; sum != want {
		t.Errorf("sha256 %s, want %s", sum, want)
	}
	if _, _, err := ReadOwn(p, "csv"); err != nil {
		t.Errorf("--format csv: %v (a one-column CSV with header %q)", err, "1 1:2")
	}
	var re *RequestError
	if _, _, err := ReadOwn(filepath.Join(dir, "none.csv"), ""); !errors.As(err, &re) || !strings.Contains(err.Error(), "none.csv") {
		t.Errorf("missing file: %v", err)
	}
}

// csvOf writes a header and rows as CSV text.
func csvOf(head []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString(strings.Join(head, ",") + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	return b.String()
}

// TestBuildMatchesBuiltIn: the CSV pipeline on a raw file written as CSV
// gives the built-in pipeline's design matrix, labels and dropped rows
// exactly (both standardise numeric columns over the kept rows).
func TestBuildMatchesBuiltIn(t *testing.T) {
	dirs := []string{"testdata"}
	opts := []Option{NoVerify()}
	if _, err := os.Stat(filepath.Join(realDirOrEmpty(), "adult", "adult.data")); err == nil {
		dirs, opts = []string{realDirOrEmpty()}, nil
	}
	bcData, err := os.ReadFile(filepath.Join(dirs[0], "breast-cancer-wisconsin", "breast-cancer-wisconsin.data"))
	if err != nil {
		t.Fatal(err)
	}
	bc, err := parseBreastCancer(bcData, "bc")
	if err != nil {
		t.Fatal(err)
	}
	var bcRows [][]string
	for _, r := range bc {
		row := []string{r.ID}
		for _, a := range r.Attrs {
			row = append(row, strings.Replace(fmt.Sprint(a), "NaN", "?", 1))
		}
		bcRows = append(bcRows, append(row, map[bool]string{false: "2", true: "4"}[r.Malignant]))
	}
	hData, err := os.ReadFile(filepath.Join(dirs[0], "statlog-heart", "heart.dat"))
	if err != nil {
		t.Fatal(err)
	}
	var hRows [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(hData)), "\n") {
		hRows = append(hRows, strings.Fields(l))
	}
	tests := []struct {
		name string
		csv  string
		spec OwnSpec
	}{
		{"breast-cancer-wisc", csvOf(append(append([]string{"id"}, breastCancerAttrs[:]...), "class"), bcRows), OwnSpec{Drop: []string{"id"}}},
		{"heart", csvOf(append(heartAttrs[:], "class"), hRows), OwnSpec{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := Load(tt.name, dirs, opts...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := build(t, tt.csv, tt.spec, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.FeatureNames, want.FeatureNames) {
				t.Fatalf("features %q, want %q", got.FeatureNames, want.FeatureNames)
			}
			if !slices.Equal(got.X.RawMatrix().Data, want.X.RawMatrix().Data) || !slices.Equal(got.Y, want.Y) {
				t.Error("design matrix or labels differ from the built-in pipeline's")
			}
			if got.Dropped != want.Dropped || !slices.Equal(got.Scalings, want.Scalings) {
				t.Errorf("dropped %d scalings %v; want %d %v", got.Dropped, got.Scalings, want.Dropped, want.Scalings)
			}
		})
	}
}

// realDirOrEmpty is realDir without skipping.
func realDirOrEmpty() string {
	if dir := os.Getenv("FEDCON_DATA_DIR"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "shared", "datasets")
}

func TestPartitionBySite(t *testing.T) {
	got, err := PartitionBySite([]int{1, 0, 1, 2, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{1, 4}, {0, 2}, {3}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("%v, want %v", got, want)
	}
	if _, err := PartitionBySite([]int{0, 0}, 2); err == nil {
		t.Error("a client without rows: no error")
	}
}

func TestPartitionDirichlet(t *testing.T) {
	y := make([]float64, 1000)
	for i := range 300 {
		y[i] = 1
	}
	// The share of class 1 per client: near 0.3 everywhere for a large
	// alpha, spread out for a small one.
	spread := func(alpha float64) float64 {
		clients, err := PartitionDirichlet(y, 10, alpha, PartitionRand(5))
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, len(y), clients, 0)
		lo, hi := 1.0, 0.0
		for c, idx := range clients {
			c0, c1 := 0, 0
			for _, i := range idx {
				if y[i] == 1 {
					c1++
				} else {
					c0++
				}
			}
			if c0 == 0 || c1 == 0 {
				t.Fatalf("alpha %g: client %d lacks a class (%d/%d)", alpha, c, c0, c1)
			}
			share := float64(c1) / float64(c0+c1)
			lo, hi = min(lo, share), max(hi, share)
		}
		return hi - lo
	}
	if s := spread(1e4); s > 0.1 {
		t.Errorf("alpha 1e4: class-1 shares spread over %.3f, want near 0", s)
	}
	if s := spread(0.05); s < 0.5 {
		t.Errorf("alpha 0.05: class-1 shares spread over %.3f, want most of [0, 1]", s)
	}
	a, _ := PartitionDirichlet(y, 4, 0.5, PartitionRand(9))
	b, _ := PartitionDirichlet(y, 4, 0.5, PartitionRand(9))
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Error("same seed, different partition")
	}
	for _, bad := range []struct {
		n     int
		alpha float64
	}{{0, 1}, {2, 0}, {2, -1}, {2, math.NaN()}, {2, math.Inf(1)}, {301, 1}} {
		var re *RequestError
		if _, err := PartitionDirichlet(y, bad.n, bad.alpha, PartitionRand(1)); !errors.As(err, &re) {
			t.Errorf("n %d alpha %g: error %v, want a *RequestError", bad.n, bad.alpha, err)
		}
	}
}

// TestGammaMoments: Gamma(alpha, 1) has mean alpha and variance alpha; the
// sample of 20,000 draws is within 5 standard errors of both.
func TestGammaMoments(t *testing.T) {
	for _, alpha := range []float64{0.1, 0.5, 1, 3.5} {
		rng := PartitionRand(11)
		const m = 20000
		var s, ss float64
		for range m {
			g := math.Exp(logGamma(alpha, rng))
			s += g
			ss += g * g
		}
		mean := s / m
		v := ss/m - mean*mean
		// Standard errors: sqrt(var/m) for the mean; the fourth central
		// moment of Gamma(a) is 3a² + 6a, so var(s²) ≈ (3a²+6a-a²)/m.
		if se := math.Sqrt(alpha / m); math.Abs(mean-alpha) > 5*se {
			t.Errorf("alpha %g: mean %.4f, want %g ± %.4f", alpha, mean, alpha, 5*se)
		}
		if se := math.Sqrt((2*alpha*alpha + 6*alpha) / m); math.Abs(v-alpha) > 5*se {
			t.Errorf("alpha %g: variance %.4f, want %g ± %.4f", alpha, v, alpha, 5*se)
		}
	}
}
