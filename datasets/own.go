package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Table is a user's data file as read: named columns of raw values, one
// row per data line. ParseCSV and ParseLIBSVM return one; Build turns it
// into a Dataset.
type Table struct {
	// File is the name used in error messages.
	File string
	// Names are the column names: the CSV header, or for LIBSVM "f1".."fd"
	// then "label".
	Names []string
	// Lines are the 1-based file lines of the rows.
	Lines []int
	// cols hold the values, one per column and row.
	cols []tableColumn
}

// tableColumn holds one column: raw strings (CSV, LIBSVM labels) or
// numbers (LIBSVM features, absent entries 0).
type tableColumn struct {
	str []string
	num []float64
}

// Rows returns the number of data rows of t.
func (t *Table) Rows() int { return len(t.Lines) }

// Own-data limits: LIBSVM indices and dense matrix size, so that a
// malformed or hostile file fails with a message instead of exhausting memory.
const (
	maxLIBSVMIndex = 1 << 20
	maxOwnCells    = 1 << 27
)

// ParseCSV reads a CSV file with a header row. Fields are separated by
// commas, or by tabs or semicolons when the header holds no comma; quoted
// fields follow RFC 4180; spaces around a field, a UTF-8 byte order mark,
// CRLF line endings and blank lines are ignored. Column names must be
// non-empty and distinct, every row must have as many fields as the
// header, and there must be at least one data row; the first violation is
// a *ParseError naming file:line (and the column, where there is one).
func ParseCSV(r io.Reader, file string) (*Table, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("datasets: read %s: %w", file, err)
	}
	return parseCSV(data, file)
}

func parseCSV(data []byte, file string) (*Table, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comma = csvDelimiter(data)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{File: file, Line: 1, Msg: "expected a header row of column names, found an empty file"}
	}
	if err != nil {
		return nil, csvError(err, file)
	}
	t := &Table{File: file, Names: make([]string, len(head))}
	seen := make(map[string]int, len(head))
	for j, h := range head {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, &ParseError{File: file, Line: 1, Msg: fmt.Sprintf("column %d of the header has no name", j+1)}
		}
		if k, dup := seen[h]; dup {
			return nil, &ParseError{File: file, Line: 1, Msg: fmt.Sprintf("column name %s repeats (columns %d and %d)", quote(h), k+1, j+1)}
		}
		seen[h] = j
		t.Names[j] = h
	}
	t.cols = make([]tableColumn, len(head))
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(err, file)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(head) {
			return nil, &ParseError{File: file, Line: line,
				Msg: fmt.Sprintf("expected %d fields as in the header, got %d", len(head), len(rec))}
		}
		if (t.Rows()+1)*len(head) > maxOwnCells {
			return nil, &ParseError{File: file, Line: line, Msg: fmt.Sprintf("more than %d values: too large for fedcon's dense design matrix", maxOwnCells)}
		}
		for j, v := range rec {
			t.cols[j].str = append(t.cols[j].str, strings.TrimSpace(v))
		}
		t.Lines = append(t.Lines, line)
	}
	if t.Rows() == 0 {
		return nil, &ParseError{File: file, Line: 1, Msg: "expected data rows after the header, found none"}
	}
	return t, nil
}

// csvDelimiter is ',' unless the first line has no comma and a tab or a
// semicolon.
func csvDelimiter(data []byte) rune {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	switch {
	case bytes.IndexByte(first, ',') >= 0:
		return ','
	case bytes.IndexByte(first, '\t') >= 0:
		return '\t'
	case bytes.IndexByte(first, ';') >= 0:
		return ';'
	}
	return ','
}

// csvError turns an encoding/csv error into a *ParseError.
func csvError(err error, file string) error {
	var ce *csv.ParseError
	if errors.As(err, &ce) {
		return &ParseError{File: file, Line: max(ce.Line, 1), Msg: fmt.Sprintf("column %d: %v", ce.Column, ce.Err)}
	}
	return fmt.Errorf("datasets: read %s: %w", file, err)
}

// ParseLIBSVM reads a LIBSVM / SVMlight file: per line a label, then
// index:value pairs with 1-based, strictly increasing indices (absent
// entries are 0); an SVMlight "qid:N" pair is skipped, and '#' starts a
// comment. The columns are f1..fd, d the largest index, and "label" (the
// labels as written), last. A malformed line is a *ParseError naming file:line and the
// pair.
func ParseLIBSVM(r io.Reader, file string) (*Table, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("datasets: read %s: %w", file, err)
	}
	return parseLIBSVM(data, file)
}

func parseLIBSVM(data []byte, file string) (*Table, error) {
	type entry struct {
		row, col int
		v        float64
	}
	var (
		labels  []string
		lines   []int
		entries []entry
		d       int
	)
	text := string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	for line := 1; len(text) > 0; line++ {
		var l string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, ""
		}
		l, _, _ = strings.Cut(l, "#")
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		row := len(labels)
		prev := 0
		for k, p := range f[1:] {
			is, vs, ok := strings.Cut(p, ":")
			if is == "qid" {
				continue
			}
			idx, err := strconv.Atoi(is)
			v, vok := parseNumber(vs)
			switch {
			case !ok || err != nil || !vok:
				return nil, &ParseError{File: file, Line: line, Msg: fmt.Sprintf("pair %d: expected index:value with an integer index and a number, got %s", k+1, quote(p))}
			case idx < 1 || idx > maxLIBSVMIndex:
				return nil, &ParseError{File: file, Line: line, Msg: fmt.Sprintf("pair %d: index %d out of range 1..%d", k+1, idx, maxLIBSVMIndex)}
			case idx <= prev:
				return nil, &ParseError{File: file, Line: line, Msg: fmt.Sprintf("pair %d: index %d after %d: indices must increase", k+1, idx, prev)}
			}
			prev, d = idx, max(d, idx)
			if v != 0 {
				entries = append(entries, entry{row, idx, v})
			}
		}
		if (row+1)*(d+1) > maxOwnCells {
			return nil, &ParseError{File: file, Line: line, Msg: fmt.Sprintf("more than %d values: too large for fedcon's dense design matrix", maxOwnCells)}
		}
		labels = append(labels, f[0])
		lines = append(lines, line)
	}
	if len(labels) == 0 {
		return nil, &ParseError{File: file, Line: 1, Msg: "expected data lines (label index:value ...), found none"}
	}
	// Features f1..fd, then the label: the last column, Build's default.
	t := &Table{File: file, Lines: lines, cols: make([]tableColumn, d+1)}
	for j := range d {
		t.Names = append(t.Names, "f"+strconv.Itoa(j+1))
		t.cols[j].num = make([]float64, len(labels))
	}
	t.Names = append(t.Names, "label")
	t.cols[d].str = labels
	for _, e := range entries {
		t.cols[e.col-1].num[e.row] = e.v
	}
	return t, nil
}

// ReadOwn reads a user's data file in the given format ("csv", "libsvm",
// or "" to choose by extension: .libsvm, .svm, .svmlight are LIBSVM,
// anything else CSV). It returns the table and the file's SHA-256 (hex). A
// file that cannot be read is a *RequestError naming it; a malformed one a
// *ParseError.
func ReadOwn(path, format string) (*Table, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, "", &RequestError{Field: "data", Value: path, Reason: "cannot read it: " + err.Error()}
	}
	sum := sha256.Sum256(data)
	var t *Table
	switch OwnFormat(path, format) {
	case "libsvm":
		t, err = parseLIBSVM(data, path)
	default:
		t, err = parseCSV(data, path)
	}
	return t, hex.EncodeToString(sum[:]), err
}

// OwnFormat is the format ReadOwn uses for path: format when set, else
// "libsvm" for the extensions .libsvm, .svm and .svmlight, else "csv".
func OwnFormat(path, format string) string {
	if format != "" {
		return format
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".libsvm", ".svm", ".svmlight":
		return "libsvm"
	}
	return "csv"
}

// OwnSpec says how Build turns a Table into a Dataset. The zero value
// takes the last column as the label, every other column as a feature.
type OwnSpec struct {
	// Label is the label column (default: the last column).
	Label string `mapstructure:"label" json:"label,omitempty"`
	// Positive is the label value coded 1, all others 0 (default: the label
	// must have two values and the larger is 1; see binaryCoding).
	Positive string `mapstructure:"positive" json:"positive,omitempty"`
	// Categorical lists columns one-hot encoded even though their values
	// are numbers (e.g. codes).
	Categorical []string `mapstructure:"categorical" json:"categorical,omitempty"`
	// Drop lists columns that are not features (e.g. identifiers).
	Drop []string `mapstructure:"drop" json:"drop,omitempty"`
	// Sensitive is the sensitive-attribute column (fairness); its group
	// indicator becomes Group and the column before the intercept.
	Sensitive string `mapstructure:"sensitive" json:"sensitive,omitempty"`
	// SensitiveValue is the Sensitive value coded group 1 (default as for
	// Positive).
	SensitiveValue string `mapstructure:"sensitive_value" json:"sensitive_value,omitempty"`
	// PartitionBy is a column whose values name the clients (one client per
	// distinct value, in increasing order); it is not a feature.
	PartitionBy string `mapstructure:"partition_by" json:"partition_by,omitempty"`
	// ServerFraction in [0, 1) of the rows, chosen with ServerRand(seed),
	// become the Server's rows (fairness); 0 means none.
	ServerFraction float64 `mapstructure:"server_fraction" json:"server_fraction,omitempty"`
}

// ServerStream is the PCG stream of ServerRand.
const ServerStream = 0x6665_6463_6f6e_7376 // "fedconsv"

// ServerRand returns the generator Build uses to choose the Server's rows
// for a seed: rand.New(rand.NewPCG(seed, ServerStream)).
func ServerRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, ServerStream))
}

// isMissing reports a missing-value marker: an empty field, "?", "NA" or "NaN".
func isMissing(s string) bool {
	return s == "" || s == "?" || s == "NA" || s == "NaN"
}

// Build preprocesses t as the built-in pipelines do:
//   - rows with a missing value (isMissing) in a used column are dropped;
//   - the label becomes Y (1 for spec.Positive, else 0);
//   - a column whose first present value is a number is numeric (unless
//     listed in spec.Categorical) and is standardised to mean 0 and
//     population standard deviation 1; every other value in it must be a
//     number, else a *ParseError names file:line and the column;
//   - other columns are one-hot, one column per value in increasing order,
//     named "column=value";
//   - features keep the file's column order; the sensitive indicator (0/1)
//     follows, then the intercept.
//
// With spec.ServerFraction > 0 the Server holds that fraction of the rows,
// chosen with ServerRand(seed), standardised with the other rows'
// statistics. A request the table cannot satisfy (an unknown column, a label
// with one class, an absent --positive value) is a *RequestError. Build is a
// pure function of (t, spec, seed).
func Build(t *Table, spec OwnSpec, seed uint64) (*Dataset, error) {
	b := &builder{t: t, spec: spec, role: make([]colRole, len(t.Names))}
	if err := b.roles(); err != nil {
		return nil, err
	}
	if err := b.types(); err != nil {
		return nil, err
	}
	keep := b.complete()
	if len(keep) == 0 {
		return nil, &RequestError{Field: "data", Value: t.File, Reason: "every row has a missing value (empty, ?, NA or NaN)"}
	}
	y, positive, err := b.code(b.label, spec.Positive, "label", "positive", keep)
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("1 = %s %s, 0 = any other value", Show(t.Names[b.label]), Show(positive))
	var group []float64
	groupName := ""
	if b.sensitive >= 0 {
		group, groupName, err = b.code(b.sensitive, spec.SensitiveValue, "sensitive", "sensitive-value", keep)
		if err != nil {
			return nil, err
		}
	}
	names, enc := b.encoders(keep)
	if b.sensitive >= 0 {
		names = append(names, t.Names[b.sensitive]+"="+groupName)
	}
	names = append(names, "intercept")

	client, server := keep, []int(nil)
	if f := spec.ServerFraction; f != 0 {
		if !(f > 0 && f < 1) {
			return nil, &RequestError{Field: "server-fraction", Value: f, Reason: "must be in (0, 1)"}
		}
		k := int(math.Round(f * float64(len(keep))))
		if k < 1 || k >= len(keep) {
			return nil, &RequestError{Field: "server-fraction", Value: f,
				Reason: fmt.Sprintf("gives %d of %d rows to the server; both the server and the clients need rows", k, len(keep))}
		}
		perm := ServerRand(seed).Perm(len(keep))
		srv := perm[:k]
		slices.Sort(srv)
		server = make([]int, k)
		inServer := make([]bool, len(keep))
		for i, p := range srv {
			server[i] = keep[p]
			inServer[p] = true
		}
		client = client[:0:0]
		for p, r := range keep {
			if !inServer[p] {
				client = append(client, r)
			}
		}
	}
	pos := make(map[int]int, len(keep)) // table row -> position in keep
	for p, r := range keep {
		pos[r] = p
	}
	make1 := func(rows []int, stats []Scaling) *Dataset {
		m := newDesign(names, len(rows))
		yy := make([]float64, len(rows))
		var g []int
		if group != nil {
			g = make([]int, len(rows))
		}
		for i, r := range rows {
			row := m.row(i)
			for _, e := range enc {
				e.fill(row, r)
			}
			yy[i] = y[pos[r]]
			if g != nil {
				g[i] = int(group[pos[r]])
				row[len(names)-2] = group[pos[r]]
			}
		}
		var cols []int
		for _, e := range enc {
			if e.numeric {
				cols = append(cols, e.at)
			}
		}
		sc := m.standardize(cols, stats)
		d := m.dataset(yy, label, 0, sc)
		if g != nil {
			d.Group, d.GroupColumn = g, len(names)-2
		}
		return d
	}
	d := make1(client, nil)
	d.Dropped = t.Rows() - len(keep)
	if server != nil {
		d.Server = make1(server, d.Scalings)
		d.Server.Files = []string{t.File}
	}
	for _, ds := range []*Dataset{d, d.Server} {
		if err := finiteColumns(ds, t.File); err != nil {
			return nil, err
		}
	}
	if b.partBy >= 0 {
		d.Site, d.Sites = b.sites(client)
	}
	d.Name = strings.TrimSuffix(filepath.Base(t.File), filepath.Ext(t.File))
	d.Files = []string{t.File}
	if d.Server != nil {
		d.Server.Name = d.Name + "/server"
	}
	return d, nil
}

// colRole is what Build does with a column.
type colRole int

const (
	roleFeature colRole = iota
	roleLabel
	roleSensitive
	rolePartition
	roleDrop
)

type builder struct {
	t                        *Table
	spec                     OwnSpec
	role                     []colRole
	numeric                  []bool
	label, sensitive, partBy int
	categorical              map[int]bool
}

// column returns the index of the named column or a *RequestError.
func (b *builder) column(field, name string) (int, error) {
	if j := slices.Index(b.t.Names, name); j >= 0 {
		return j, nil
	}
	return -1, &RequestError{Field: field, Value: Show(name), Reason: fmt.Sprintf("no such column in %s (columns: %s)", b.t.File, ShowList(b.t.Names, 20))}
}

// roles resolves the spec's column names.
func (b *builder) roles() error {
	var err error
	b.label, b.sensitive, b.partBy = len(b.t.Names)-1, -1, -1
	if b.spec.Label != "" {
		if b.label, err = b.column("label", b.spec.Label); err != nil {
			return err
		}
	}
	b.role[b.label] = roleLabel
	set := func(field, name string, r colRole) (int, error) {
		j, err := b.column(field, name)
		if err != nil {
			return -1, err
		}
		if b.role[j] != roleFeature {
			return -1, &RequestError{Field: field, Value: Show(name), Reason: "is already used as " + roleName(b.role[j])}
		}
		b.role[j] = r
		return j, nil
	}
	if b.spec.Sensitive != "" {
		if b.sensitive, err = set("sensitive", b.spec.Sensitive, roleSensitive); err != nil {
			return err
		}
	}
	if b.spec.PartitionBy != "" {
		if b.partBy, err = set("partition-by", b.spec.PartitionBy, rolePartition); err != nil {
			return err
		}
	}
	for _, c := range b.spec.Drop {
		if _, err := set("drop", c, roleDrop); err != nil {
			return err
		}
	}
	b.categorical = map[int]bool{}
	for _, c := range b.spec.Categorical {
		j, err := b.column("categorical", c)
		if err != nil {
			return err
		}
		b.categorical[j] = true
	}
	return nil
}

func roleName(r colRole) string {
	return [...]string{"a feature", "the label", "the sensitive attribute", "the partition column", "a dropped column"}[r]
}

// types decides which feature columns are numeric and checks their values.
func (b *builder) types() error {
	b.numeric = make([]bool, len(b.t.Names))
	for j, c := range b.t.cols {
		if b.role[j] != roleFeature {
			continue
		}
		if c.str == nil {
			b.numeric[j] = true
			continue
		}
		if b.categorical[j] {
			continue
		}
		first := -1
		for i, s := range c.str {
			if !isMissing(s) {
				first = i
				break
			}
		}
		if first < 0 {
			continue
		}
		if _, ok := parseNumber(c.str[first]); !ok {
			continue
		}
		b.numeric[j] = true
		for i, s := range c.str {
			if _, ok := parseNumber(s); !ok && !isMissing(s) {
				return &ParseError{File: b.t.File, Line: b.t.Lines[i], Msg: fmt.Sprintf(
					"column %s (field %d): expected a number (line %d has %s), got %s; list the column with --categorical to one-hot it",
					quote(b.t.Names[j]), j+1, b.t.Lines[first], quote(c.str[first]), quote(s))}
			}
		}
	}
	return nil
}

// complete returns the rows without a missing value in a used column.
func (b *builder) complete() []int {
	var keep []int
rows:
	for i := range b.t.Lines {
		for j, c := range b.t.cols {
			if b.role[j] != roleDrop && c.str != nil && isMissing(c.str[i]) {
				continue rows
			}
		}
		keep = append(keep, i)
	}
	return keep
}

// value returns column j's entry in row i as a string.
func (b *builder) value(j, i int) string {
	if c := b.t.cols[j]; c.str != nil {
		return c.str[i]
	}
	return strconv.FormatFloat(b.t.cols[j].num[i], 'g', -1, 64)
}

// levels returns the distinct values of column j over rows, in increasing
// order: numerically when all are numbers, else as strings.
func (b *builder) levels(j int, rows []int) []string {
	seen := map[string]bool{}
	var out []string
	for _, i := range rows {
		if v := b.value(j, i); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	numeric := true
	for _, v := range out {
		if _, ok := parseNumber(v); !ok {
			numeric = false
			break
		}
	}
	slices.SortFunc(out, func(a, c string) int {
		if numeric {
			x, _ := parseNumber(a)
			y, _ := parseNumber(c)
			if x != y {
				if x < y {
					return -1
				}
				return 1
			}
		}
		return strings.Compare(a, c)
	})
	return out
}

// sameValue reports whether a and c are equal as strings or as numbers.
func sameValue(a, c string) bool {
	if a == c {
		return true
	}
	x, ok1 := parseNumber(a)
	y, ok2 := parseNumber(c)
	return ok1 && ok2 && x == y
}

// code turns column j into 0/1 over rows: 1 where it equals want. Without
// want the column must have exactly two values and the larger is 1. It
// returns the codes, a description, and fails with a *RequestError when a
// class is empty.
func (b *builder) code(j int, want, field, flag string, rows []int) ([]float64, string, error) {
	name := Show(b.t.Names[j])
	lv := b.levels(j, rows)
	list := func() string { return ShowList(lv, 8) }
	if want == "" {
		switch {
		case len(lv) == 1:
			return nil, "", &RequestError{Field: field, Value: name, Reason: fmt.Sprintf("has one value (%s) in %s: need two classes", Show(lv[0]), b.t.File)}
		case len(lv) > 2:
			return nil, "", &RequestError{Field: field, Value: name, Reason: fmt.Sprintf("has %d values (%s): name the one coded 1 with --%s", len(lv), list(), flag)}
		}
		want = lv[1]
	}
	out := make([]float64, len(rows))
	ones := 0
	for k, i := range rows {
		if sameValue(b.value(j, i), want) {
			out[k] = 1
			ones++
		}
	}
	switch {
	case ones == 0:
		return nil, "", &RequestError{Field: flag, Value: Show(want), Reason: fmt.Sprintf("does not occur in column %s of %s (values: %s)", name, b.t.File, list())}
	case ones == len(rows):
		return nil, "", &RequestError{Field: field, Value: name, Reason: fmt.Sprintf("is %s in every row of %s: need two classes", Show(want), b.t.File)}
	}
	return out, want, nil
}

// encoder writes one table column into a design row.
type encoder struct {
	b       *builder
	j, at   int
	numeric bool
	index   map[string]int // one-hot: value -> offset
}

func (e encoder) fill(row []float64, i int) {
	if e.numeric {
		c := e.b.t.cols[e.j]
		if c.num != nil {
			row[e.at] = c.num[i]
		} else {
			row[e.at], _ = parseNumber(c.str[i])
		}
		return
	}
	row[e.at+e.index[e.b.value(e.j, i)]] = 1
}

// encoders lays out the feature columns over the kept rows.
func (b *builder) encoders(keep []int) ([]string, []encoder) {
	var names []string
	var enc []encoder
	for j := range b.t.Names {
		if b.role[j] != roleFeature {
			continue
		}
		e := encoder{b: b, j: j, at: len(names), numeric: b.numeric[j]}
		if e.numeric {
			names = append(names, b.t.Names[j])
		} else {
			e.index = map[string]int{}
			for k, v := range b.levels(j, keep) {
				e.index[v] = k
				names = append(names, b.t.Names[j]+"="+v)
			}
		}
		enc = append(enc, e)
	}
	return names, enc
}

// sites returns, for the given rows, the index of each row's partition
// value among the sorted distinct values, and those values.
func (b *builder) sites(rows []int) ([]int, []string) {
	lv := b.levels(b.partBy, rows)
	at := make(map[string]int, len(lv))
	for k, v := range lv {
		at[v] = k
	}
	site := make([]int, len(rows))
	for k, i := range rows {
		site[k] = at[b.value(b.partBy, i)]
	}
	return site, lv
}

// finiteColumns checks that standardisation left every entry of d finite:
// values near the float64 range overflow the mean or the variance.
func finiteColumns(d *Dataset, file string) error {
	if d == nil || d.Rows() == 0 {
		return nil
	}
	_, c := d.X.Dims()
	for k, v := range d.X.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &RequestError{Field: "column", Value: Show(d.FeatureNames[k%c]),
				Reason: fmt.Sprintf("values in %s too large to standardise (mean or variance overflows float64)", file)}
		}
	}
	return nil
}

// Show writes a column name or value for a one-line message: as it is
// when it is a plain word, quoted (Go syntax) when it is empty, long, or
// holds spaces, commas, quotes or control characters.
func Show(s string) string {
	if s != "" && len(s) <= 40 && !strings.ContainsAny(s, " ,\"'\\") && strconv.Quote(s) == `"`+s+`"` {
		return s
	}
	return quote(s)
}

// ShowList shows up to limit values, comma-separated.
func ShowList(v []string, limit int) string {
	out := make([]string, 0, min(len(v), limit)+1)
	for _, s := range v[:min(len(v), limit)] {
		out = append(out, Show(s))
	}
	if len(v) > limit {
		out = append(out, fmt.Sprintf("... (%d in all)", len(v)))
	}
	return strings.Join(out, ", ")
}
