package experiments

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNoResults signifies a directory without any run: no manifest, table or
// figure below it.
var ErrNoResults = errors.New("no results")

// Report is what `fedcon report` shows of a results directory: the check
// gate's verdicts, then every run's manifest facts, tables, figures and raw
// files. BuildReport reads it; Write renders index.html and report.md.
// Everything in it comes from the files, so the same directory gives the
// same page.
type Report struct {
	// Title says what the page shows: "Reproduced tables and figures: 21
	// experiments, 14 tables, 16 figures".
	Title string
	// Dir names the directory the report describes.
	Dir   string
	Gates []ReportGate
	Runs  []ReportRun
	// Warnings name every file that could not be read or did not validate,
	// "path: problem", paths relative to the results directory.
	Warnings []string
}

// ReportRun is one directory with results: a manifest, a table or a figure.
type ReportRun struct {
	// Path is the directory relative to the results directory, slash-separated.
	Path      string
	Manifests []ReportManifest
	Tables    []ReportTable
	Figures   []ReportFigure
	// Files are the raw files in the directory, relative to the results directory.
	Files []string
	// Trials counts the trial files under trials/.
	Trials int
	// Warnings are the problems with this directory's files.
	Warnings []string
}

// ReportManifest is one manifest file and its facts.
type ReportManifest struct {
	File string
	*Manifest
}

// ReportTable is one table read from a result file pair X.csv (header and
// rows) and X.md (title and notes).
type ReportTable struct {
	File string // the .csv, relative to the results directory
	*Table
	// Data marks a CSV without a Markdown twin: the data behind a figure,
	// shown collapsed after the figures.
	Data bool
	// ID is the element id of the table's block in the page.
	ID string
}

// ReportFigure is one figure: its SVG, validated, to inline, else its PNG.
type ReportFigure struct {
	Title string
	// Caption says what the figure draws (what a shaded band is); "" when
	// its JSON has none.
	Caption string
	File    string // the .svg or .png, relative to the results directory
	// SVG is the file's <svg> element, checked to be well-formed XML without
	// scripts; empty when the figure is shown from its PNG.
	SVG string
	// ID is the element id of the <figure> in the page.
	ID string
}

// ReportGate is the check gate over one directory, as `fedcon check DIR`
// would run it.
type ReportGate struct {
	Dir  string // relative to the results directory ("." for itself)
	Rows []CheckRow
	// Errors are the result files the rules could not read.
	Errors []string
}

// RuleVerdict is the gate's verdict on one rule of one experiment.
type RuleVerdict struct {
	Experiment, Rule string
	Checks, Failed   int
}

// Rules groups the gate's rows by experiment and rule, in order of appearance.
func (g *ReportGate) Rules() []RuleVerdict {
	var out []RuleVerdict
	at := map[[2]string]int{}
	for _, r := range g.Rows {
		k := [2]string{r.Experiment, r.Rule}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, RuleVerdict{Experiment: r.Experiment, Rule: r.Rule})
		}
		out[i].Checks++
		if !r.Pass {
			out[i].Failed++
		}
	}
	return out
}

// Failed counts the failed checks.
func (g *ReportGate) Failed() int {
	n := 0
	for _, r := range g.Rows {
		if !r.Pass {
			n++
		}
	}
	return n
}

// FailedRows are the checks that failed.
func (g *ReportGate) FailedRows() []CheckRow {
	var out []CheckRow
	for _, r := range g.Rows {
		if !r.Pass {
			out = append(out, r)
		}
	}
	return out
}

// Pass reports whether the gate passes: every check passed and every
// result file was read.
func (g *ReportGate) Pass() bool { return g.Failed() == 0 && len(g.Errors) == 0 }

// maxReportFile bounds what the report reads of one file: a figure or table
// beyond it is linked, not inlined.
const maxReportFile = 32 << 20

// Report files written into the results directory.
const (
	ReportHTML     = "index.html"
	ReportMarkdown = "report.md"
)

// BuildReport reads the results directory dir: every directory below it
// (trials/ and hidden ones aside) with a manifest, a table (X.csv, titled
// by X.md) or a figure (X.svg, else X.png) becomes a run, and every
// experiment the check gate knows is checked where its result file is. A
// file that cannot be read or does not validate is named in Warnings and
// left out; only an unreadable dir, or one without results (ErrNoResults),
// is an error. dataDirs is the check gate's data search path (nil: the
// download cache).
func BuildReport(dir string, dataDirs []string) (*Report, error) {
	return BuildReportWith(dir, GateOptions{DataDirs: dataDirs})
}

// BuildReportWith is BuildReport with the gate's options; the page's trial
// provenance is against each manifest's own version (opt.Version empty), so
// that the page depends only on the files.
func BuildReportWith(dir string, opt GateOptions) (*Report, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("experiments: report: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("experiments: report: %s is not a directory", dir)
	}
	rep := &Report{Dir: filepath.Clean(dir)}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			rel, _ := filepath.Rel(dir, p)
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %v", filepath.ToSlash(rel), err))
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && (d.Name() == "trials" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if run, ok := readRun(p, filepath.ToSlash(rel), p == dir); ok {
			rep.Runs = append(rep.Runs, run)
			rep.Warnings = append(rep.Warnings, run.Warnings...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("experiments: report: %w", err)
	}
	if len(rep.Runs) == 0 {
		return nil, fmt.Errorf("experiments: report: %s: %w", dir, ErrNoResults)
	}
	rep.Title = reportTitle(rep.Runs)
	rep.Gates = checkGates(dir, rep, opt)
	return rep, nil
}

// checkGates runs the check gate (Gate) on each parent directory of the
// runs, as `fedcon check PARENT` would: every experiment found there, by its
// reference rules or the generic ones, and the expected ones not run.
func checkGates(dir string, rep *Report, opt GateOptions) []ReportGate {
	var gates []ReportGate
	seen := map[string]bool{}
	for _, run := range rep.Runs {
		parent := path.Dir(run.Path) // "." for the root itself
		if run.Path == "." || seen[parent] {
			continue
		}
		seen[parent] = true
		g, err := Gate(filepath.Join(dir, filepath.FromSlash(parent)), opt)
		switch {
		case errors.Is(err, ErrNoResults):
			continue
		case err != nil:
			msg := fmt.Sprintf("%s: %v", parent, err)
			gates = append(gates, ReportGate{Dir: parent, Errors: []string{msg}})
			rep.Warnings = append(rep.Warnings, msg)
			continue
		}
		gates = append(gates, ReportGate{Dir: parent, Rows: g.Rows})
	}
	slices.SortStableFunc(gates, func(a, b ReportGate) int { return strings.Compare(a.Dir, b.Dir) })
	return gates
}

// readRun reads one directory; ok is false when it holds no results.
func readRun(dir, rel string, root bool) (ReportRun, bool) {
	run := ReportRun{Path: rel}
	ents, err := os.ReadDir(dir)
	if err != nil {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%s: %v", rel, err))
		return run, true
	}
	have := map[string]bool{}
	for _, e := range ents {
		if !e.IsDir() {
			have[e.Name()] = true
		}
	}
	join := func(name string) string { return path.Join(rel, name) }
	warn := func(name string, err error) {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%s: %v", join(name), err))
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() {
			if name == "trials" {
				run.Trials = countTrials(filepath.Join(dir, name))
			}
			continue
		}
		if root && (name == ReportHTML || name == ReportMarkdown) {
			continue
		}
		run.Files = append(run.Files, join(name))
		full := filepath.Join(dir, name)
		base, ext := strings.TrimSuffix(name, filepath.Ext(name)), filepath.Ext(name)
		switch {
		case ext == ".json" && strings.HasPrefix(name, "manifest"):
			m, err := readManifest(full)
			if err != nil {
				warn(name, err)
				continue
			}
			run.Manifests = append(run.Manifests, ReportManifest{File: join(name), Manifest: m})
		case ext == ".csv":
			md := ""
			if have[base+".md"] {
				md = filepath.Join(dir, base+".md")
			}
			tables, err := readTables(full, md)
			if err != nil {
				warn(name, err)
			}
			for _, t := range tables {
				run.Tables = append(run.Tables, ReportTable{File: join(name), Table: t, Data: md == ""})
			}
		case ext == ".svg", ext == ".png" && !have[base+".svg"]:
			fig := ReportFigure{Title: base, File: join(name)}
			if have[base+".json"] {
				t, caption, err := figureTitle(filepath.Join(dir, base+".json"))
				if err != nil {
					warn(base+".json", err)
				} else if t != "" {
					fig.Title, fig.Caption = t, caption
				}
			}
			if ext == ".svg" {
				svg, err := readSVG(full)
				if err != nil {
					warn(name, err)
					if !have[base+".png"] {
						continue
					}
					fig.File = join(base + ".png") // shown from its PNG
				}
				fig.SVG = svg
			}
			run.Figures = append(run.Figures, fig)
		}
	}
	for i := range run.Tables {
		run.Tables[i].ID = anchor("table", run.Tables[i].File+"-"+strconv.Itoa(i))
	}
	for i := range run.Figures {
		run.Figures[i].ID = anchor("figure", run.Figures[i].File)
	}
	return run, len(run.Manifests)+len(run.Tables)+len(run.Figures)+len(run.Warnings) > 0
}

func countTrials(dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() && filepath.Ext(e.Name()) == ".json" && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// readFile reads a result file of at most maxReportFile bytes.
func readFile(p string) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxReportFile {
		return nil, fmt.Errorf("%d bytes, more than the report reads (%d)", st.Size(), maxReportFile)
	}
	return os.ReadFile(p)
}

// readManifest reads and validates a manifest file.
func readManifest(p string) (*Manifest, error) {
	b, err := readFile(p)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("invalid manifest: %w", err)
	}
	if m.RunInfo == nil || m.Experiment == "" {
		return nil, errors.New("invalid manifest: no experiment")
	}
	return &m, nil
}

// reportTitle says what the runs hold: "Reproduced tables and figures: 3
// experiments, 4 tables, 2 figures".
func reportTitle(runs []ReportRun) string {
	exps, tables, figs := 0, 0, 0
	for _, r := range runs {
		if len(r.Manifests) > 0 {
			exps += len(r.Manifests)
		} else if len(r.Tables)+len(r.Figures) > 0 {
			exps++
		}
		tables += len(r.Tables)
		figs += len(r.Figures)
	}
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	return fmt.Sprintf("Reproduced tables and figures: %s, %s, %s", plural(exps, "experiment"), plural(tables, "table"), plural(figs, "figure"))
}

// figureTitle is the title and caption a figure's JSON records under
// "figure", if any.
func figureTitle(p string) (title, caption string, err error) {
	b, err := readFile(p)
	if err != nil {
		return "", "", err
	}
	var doc struct {
		Figure *struct {
			Title   string `json:"title"`
			Caption string `json:"caption"`
		} `json:"figure"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return "", "", fmt.Errorf("invalid JSON: %w", err)
	}
	if doc.Figure == nil {
		return "", "", nil
	}
	return doc.Figure.Title, doc.Figure.Caption, nil
}

// readSVG returns the file's <svg> element (without the XML prolog), after
// checking that it is well-formed XML with one <svg> root and nothing that
// runs code: the page inlines it verbatim.
func readSVG(p string) (string, error) {
	b, err := readFile(p)
	if err != nil {
		return "", err
	}
	return checkSVG(b)
}

func checkSVG(b []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	depth, start, end := 0, int64(-1), int64(-1)
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("invalid SVG: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if start >= 0 {
					return "", errors.New("invalid SVG: more than one root element")
				}
				if t.Name.Local != "svg" {
					return "", fmt.Errorf("invalid SVG: root element <%s>", t.Name.Local)
				}
				start = off
			}
			switch strings.ToLower(t.Name.Local) {
			case "script", "foreignobject", "iframe", "object", "embed",
				"set", "animate", "animatemotion", "animatetransform", "handler", "listener": // animations can rewrite an href
				return "", fmt.Errorf("unsafe SVG: contains <%s>", t.Name.Local)
			}
			for _, a := range t.Attr {
				n := strings.ToLower(a.Name.Local)
				v := strings.ToLower(strings.TrimSpace(a.Value))
				if strings.HasPrefix(n, "on") || n == "href" && !strings.HasPrefix(v, "#") {
					return "", fmt.Errorf("unsafe SVG: attribute %s=%q", a.Name.Local, a.Value)
				}
			}
			depth++
		case xml.EndElement:
			depth--
			if depth == 0 {
				end = d.InputOffset()
			}
		case xml.Directive:
			if start >= 0 {
				return "", errors.New("invalid SVG: directive inside <svg>")
			}
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return "", errors.New("invalid SVG: text outside <svg>")
			}
		}
	}
	if start < 0 || end < 0 {
		return "", errors.New("invalid SVG: no <svg> element")
	}
	return string(b[start:end]), nil
}

// maxDataRows caps the rows shown of a CSV file without a Markdown twin.
const maxDataRows = 50

// readTables reads the tables of a result file pair: header and rows from
// the CSV (tables separated by a blank line, as WriteOutputs writes them),
// titles and notes from the Markdown twin, when it has as many tables. A
// CSV without a twin is titled by its name and shows maxDataRows rows.
func readTables(csvPath, mdPath string) ([]*Table, error) {
	b, err := readFile(csvPath)
	if err != nil {
		return nil, err
	}
	recs, err := splitCSV(b)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, errors.New("no table")
	}
	tables := make([]*Table, len(recs))
	for i, r := range recs {
		tables[i] = &Table{Header: r[0], Rows: r[1:]}
	}
	if mdPath == "" {
		// Data behind a figure (points, grids), not a printed table: the
		// page shows its head.
		for _, t := range tables {
			t.Title = filepath.Base(csvPath)
			if n := len(t.Rows); n > maxDataRows {
				t.Rows = t.Rows[:maxDataRows]
				t.Notes = []string{fmt.Sprintf("The first %d of %d rows; all are in %s.", maxDataRows, n, filepath.Base(csvPath))}
			}
		}
		return tables, nil
	}
	md, err := readFile(mdPath)
	if err != nil {
		return tables, fmt.Errorf("%s: %w", filepath.Base(mdPath), err)
	}
	titles, notes := markdownCaptions(string(md))
	if len(titles) != len(tables) {
		return tables, fmt.Errorf("%d tables, but %s has %d: titles and notes not shown", len(tables), filepath.Base(mdPath), len(titles))
	}
	for i, t := range tables {
		t.Title, t.Notes = titles[i], notes[i]
	}
	return tables, nil
}

// splitCSV parses CSV text holding one or more tables separated by blank
// lines (which encoding/csv skips: a gap in line numbers marks them).
func splitCSV(b []byte) ([][][]string, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	var out [][][]string
	lastLine, lastOff := 0, int64(0)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("invalid CSV: %w", err)
		}
		line, _ := r.FieldPos(0)
		if len(out) == 0 || line > lastLine+1 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], rec)
		off := r.InputOffset()
		lastLine += bytes.Count(b[lastOff:off], []byte("\n"))
		lastOff = off
	}
}

// markdownCaptions finds, for each table of a Markdown file written by
// Table.Markdown, the bold paragraph before it (its title) and the
// paragraphs after it (its notes).
func markdownCaptions(md string) (titles []string, notes [][]string) {
	var paras []string // paragraphs since the last table
	var para []string
	flush := func() {
		if len(para) > 0 {
			paras = append(paras, strings.Join(para, "\n"))
			para = nil
		}
	}
	inTable := false
	closeSection := func(final bool) {
		flush()
		title := ""
		if !final && len(paras) > 0 {
			last := paras[len(paras)-1]
			if t, ok := strings.CutPrefix(last, "**"); ok && strings.HasSuffix(t, "**") && !strings.Contains(last, "\n") {
				title = strings.TrimSuffix(t, "**")
				paras = paras[:len(paras)-1]
			}
		}
		if len(titles) > 0 {
			notes[len(notes)-1] = paras
		}
		if !final {
			titles = append(titles, title)
			notes = append(notes, nil)
		}
		paras = nil
	}
	for _, l := range strings.Split(md, "\n") {
		isRow := strings.HasPrefix(strings.TrimSpace(l), "|")
		switch {
		case isRow && !inTable:
			closeSection(false)
			inTable = true
		case isRow:
		case strings.TrimSpace(l) == "":
			inTable = false
			flush()
		default:
			inTable = false
			para = append(para, l)
		}
	}
	closeSection(true)
	return titles, notes
}

// Write renders the report into dir as index.html and report.md and
// returns the paths written.
func (r *Report) Write(dir string) ([]string, error) {
	h, err := r.HTML()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range []struct {
		name string
		data []byte
	}{{ReportHTML, h}, {ReportMarkdown, []byte(r.Markdown())}} {
		p := filepath.Join(dir, f.name)
		if err := WriteAtomic(p, f.data); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// RunsTable is the overview: one row per manifest (or per run without one).
func (r *Report) RunsTable() *Table {
	t := &Table{Header: []string{"directory", "experiment", "fedcon version", "commit", "config hash", "seed",
		"wall s", "trials computed / reused", "complete", "tables", "figures"}}
	for _, run := range r.Runs {
		counts := []string{strconv.Itoa(len(run.Tables)), strconv.Itoa(len(run.Figures))}
		if len(run.Manifests) == 0 {
			t.Rows = append(t.Rows, append([]string{run.Path, "-", "-", "-", "-", "-", "-", "-", "-"}, counts...))
		}
		for _, m := range run.Manifests {
			dir := run.Path
			if len(run.Manifests) > 1 {
				dir += " (" + path.Base(m.File) + ")"
			}
			t.Rows = append(t.Rows, append([]string{dir, m.Experiment, m.Version, dash(m.Commit), m.ConfigHash,
				strconv.FormatUint(m.Seed, 10), fmt.Sprintf("%.1f", m.WallSec),
				fmt.Sprintf("%d / %d", m.Computed, m.Reused), yesNo(m.Complete)}, counts...))
		}
	}
	return t
}

// GateTable is one gate's verdict per rule.
func (g *ReportGate) GateTable() *Table {
	t := &Table{Header: []string{"experiment", "rule", "checks", "failed", "verdict"}}
	for _, v := range g.Rules() {
		verdict := "pass"
		if v.Failed > 0 {
			verdict = "FAIL"
		}
		t.Rows = append(t.Rows, []string{v.Experiment, v.Rule, strconv.Itoa(v.Checks), strconv.Itoa(v.Failed), verdict})
	}
	for _, e := range g.Errors {
		t.Notes = append(t.Notes, "Not checked: "+e)
	}
	return t
}

// Verdict is the gate's one-line outcome.
func (g *ReportGate) Verdict() string {
	v := "PASS"
	if !g.Pass() {
		v = "FAIL"
	}
	s := fmt.Sprintf("%s: %d checks, %d failed", v, len(g.Rows), g.Failed())
	if g.Dir != "." {
		s = g.Dir + ": " + s
	}
	if len(g.Errors) > 0 {
		s += fmt.Sprintf(", %d result files not read", len(g.Errors))
	}
	return s
}

// factKeys are the rows of FactsTable.
var factKeys = []string{"experiment", "fedcon version", "commit", "Go", "machine", "config hash", "trial hash", "seed",
	"start", "end", "wall time", "trials", "trial files", "complete", "error"}

// facts are a manifest's values for factKeys: what produced the run and how.
func (m *ReportManifest) facts() []string {
	tr := fmt.Sprintf("%d computed, %d reused", m.Computed, m.Reused)
	if len(m.ReusedVersions) > 0 {
		var vs []string
		for _, v := range slices.Sorted(maps.Keys(m.ReusedVersions)) {
			vs = append(vs, fmt.Sprintf("%d by %s", m.ReusedVersions[v], v))
		}
		tr += " (" + strings.Join(vs, ", ") + ")"
	}
	return []string{m.Experiment, m.Version, dash(m.Commit), m.GoVersion,
		fmt.Sprintf("%s, %d CPUs, %d workers", m.CPU, m.NumCPU, m.Workers),
		m.ConfigHash, dash(m.TrialHash), strconv.FormatUint(m.Seed, 10),
		m.Start.Format("2006-01-02 15:04:05 MST"), m.End.Format("2006-01-02 15:04:05 MST"),
		wallCPU(m.WallSec, m.CPUSec), tr, strconv.Itoa(len(m.TrialFiles)), yesNo(m.Complete), dash(m.Error)}
}

// wallCPU is the wall time with the process's CPU time beside it (older
// manifests record none).
func wallCPU(wall, cpu float64) string {
	if cpu > 0 {
		return fmt.Sprintf("%.1f s (CPU %.1f s)", wall, cpu)
	}
	return fmt.Sprintf("%.1f s", wall)
}

// FactsTable lists the run's manifest facts, one column per manifest; nil
// without a manifest.
func (run *ReportRun) FactsTable() *Table {
	if len(run.Manifests) == 0 {
		return nil
	}
	t := &Table{Header: []string{"fact"}}
	cols := make([][]string, len(run.Manifests))
	hasErr := false
	for i := range run.Manifests {
		m := &run.Manifests[i]
		t.Header = append(t.Header, path.Base(m.File))
		cols[i] = m.facts()
		hasErr = hasErr || m.Error != ""
	}
	for k, key := range factKeys {
		if key == "error" && !hasErr {
			continue
		}
		row := []string{key}
		for _, c := range cols {
			row = append(row, c[k])
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// ConfigJSON is the manifest's configuration, indented.
func (m *ReportManifest) ConfigJSON() string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false) // the template escapes
	if err := e.Encode(m.Config); err != nil {
		return fmt.Sprint(m.Config)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Anchor is the run's id in the page.
func (run *ReportRun) Anchor() string { return anchor("run", run.Path) }

func anchor(prefix, s string) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteByte('-')
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// Markdown renders the report as Markdown, figures as links to their files.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nfedcon results in %s.\n\n", r.Title, r.Dir)
	if len(r.Warnings) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "- %s\n", w)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Check gate\n\n")
	if len(r.Gates) == 0 {
		b.WriteString("No result file here has check rules (configs/reference/).\n\n")
	}
	for i := range r.Gates {
		g := &r.Gates[i]
		fmt.Fprintf(&b, "%s\n\n%s\n", g.Verdict(), g.GateTable().Markdown())
		if failed := g.FailedRows(); len(failed) > 0 {
			fmt.Fprintf(&b, "%s\n", CheckTable(failed).Markdown())
		}
	}
	fmt.Fprintf(&b, "## Runs\n\n%s\n", r.RunsTable().Markdown())
	for _, run := range r.Runs {
		fmt.Fprintf(&b, "## %s\n\n", run.Path)
		for _, w := range run.Warnings {
			fmt.Fprintf(&b, "- warning: %s\n", w)
		}
		if len(run.Warnings) > 0 {
			b.WriteString("\n")
		}
		if ft := run.FactsTable(); ft != nil {
			fmt.Fprintf(&b, "%s\n", ft.Markdown())
		}
		for _, t := range run.Tables {
			fmt.Fprintf(&b, "%s\nFrom [%s](%s).\n\n", t.Markdown(), path.Base(t.File), mdPath(t.File))
		}
		for _, f := range run.Figures {
			fmt.Fprintf(&b, "![%s](%s)\n\n", mdEscape(f.Title), mdPath(f.File))
			if f.Caption != "" {
				fmt.Fprintf(&b, "%s\n\n", mdEscape(f.Caption))
			}
		}
		b.WriteString("Files:")
		for _, f := range run.Files {
			fmt.Fprintf(&b, " [%s](%s)", path.Base(f), mdPath(f))
		}
		if run.Trials > 0 {
			fmt.Fprintf(&b, " [trials/](%s) (%d)", mdPath(path.Join(run.Path, "trials")+"/"), run.Trials)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

func mdPath(p string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(p)
}

func mdEscape(s string) string { return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s) }

// HTML renders the report as a static XHTML-compatible page (no scripts):
// text through html/template's escaping, SVG figures inline after checkSVG.
func (r *Report) HTML() ([]byte, error) {
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, r); err != nil {
		return nil, fmt.Errorf("experiments: report: %w", err)
	}
	return b.Bytes(), nil
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"svg":       func(s string) template.HTML { return template.HTML(s) }, // checked by checkSVG
	"base":      path.Base,
	"trialsDir": func(p string) string { return path.Join(p, "trials") + "/" },
}).Parse(reportHTML))

const reportHTML = `<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1400px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.05em; }
.scroll { overflow-x: auto; margin: 0.6em 0; }
table { border-collapse: collapse; font-size: 0.85em; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: left; white-space: nowrap; }
th { background: #f0f0f0; }
td.pass, .verdict.pass { color: #176317; } td.fail, .verdict.fail { color: #b00020; font-weight: bold; }
.verdict { font-weight: bold; }
p.note { font-size: 0.85em; color: #444; max-width: 100em; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; } figure img { max-width: 100%; }
figcaption { font-size: 0.9em; }
.warn { color: #8a4b00; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; font-size: 0.8em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>fedcon results in {{.Dir}}.</p>
{{- if .Warnings}}
<section id="warnings">
<h2>Warnings</h2>
<ul>{{range .Warnings}}
<li class="warn">{{.}}</li>{{end}}
</ul>
</section>
{{- end}}
<nav><ul>
<li><a href="#check-gate">Check gate</a></li>
<li><a href="#runs">Runs</a></li>{{range .Runs}}
<li><a href="#{{.Anchor}}">{{.Path}}</a></li>{{end}}
</ul></nav>
<section id="check-gate">
<h2>Check gate</h2>
{{- if not .Gates}}
<p>No result file here has check rules (configs/reference/).</p>
{{- end}}
{{- range .Gates}}
<p class="verdict {{if .Pass}}pass{{else}}fail{{end}}">{{.Verdict}}</p>
{{template "table" .GateTable}}
{{- with .FailedRows}}
<div class="scroll">{{template "checks" .}}</div>
{{- end}}
{{- if .Rows}}
<details><summary>Every check ({{len .Rows}})</summary>
<div class="scroll">{{template "checks" .Rows}}</div>
</details>
{{- end}}
{{- end}}
</section>
<section id="runs">
<h2>Runs</h2>
{{template "table" .RunsTable}}
</section>
{{- range .Runs}}
<section id="{{.Anchor}}" class="run">
<h2>{{.Path}}</h2>
{{- range .Warnings}}
<p class="warn">warning: {{.}}</p>
{{- end}}
{{- with .FactsTable}}
<div class="scroll">
{{template "table" .}}
</div>
{{- end}}
{{- range .Manifests}}
<details><summary>Configuration of <a href="{{.File}}">{{base .File}}</a></summary><pre>{{.ConfigJSON}}</pre></details>
{{- end}}
{{- range $i, $t := .Tables}}{{if not $t.Data}}
<div class="scroll result-table" id="{{$t.ID}}" data-src="{{$t.File}}">
{{template "table" $t.Table}}
<p class="note">From <a href="{{$t.File}}">{{base $t.File}}</a>.</p>
</div>
{{- end}}{{end}}
{{- range $i, $f := .Figures}}
<figure class="result-figure" id="{{$f.ID}}" data-src="{{$f.File}}">
{{- if $f.SVG}}
{{svg $f.SVG}}
{{- else}}
<img src="{{$f.File}}" alt="{{$f.Title}}"/>
{{- end}}
<figcaption>{{$f.Title}}{{if $f.Caption}}. {{$f.Caption}}{{end}} (<a href="{{$f.File}}">{{base $f.File}}</a>)</figcaption>
</figure>
{{- end}}
{{- range $i, $t := .Tables}}{{if $t.Data}}
<details><summary>Data: {{base $t.File}} ({{len $t.Rows}} rows shown)</summary>
<div class="scroll result-table" id="{{$t.ID}}" data-src="{{$t.File}}">
{{template "table" $t.Table}}
</div>
</details>
{{- end}}{{end}}
<p>Files:{{range .Files}} <a href="{{.}}">{{base .}}</a>{{end}}{{if .Trials}} <a href="{{trialsDir .Path}}">trials/</a> ({{.Trials}} files){{end}}</p>
</section>
{{- end}}
</body>
</html>
{{define "checks"}}<table class="check-rows">
<thead><tr><th>experiment</th><th>cell</th><th>rule</th><th>value</th><th>bound</th><th>result</th><th>detail</th></tr></thead>
<tbody>{{range .}}
<tr><td>{{.Experiment}}</td><td>{{.Cell}}</td><td>{{.Rule}}</td><td>{{printf "%.3g" .Value}}</td><td>{{printf "%.3g" .Bound}}</td>{{if .Pass}}<td class="pass">pass</td>{{else}}<td class="fail">FAIL</td>{{end}}<td>{{.Detail}}</td></tr>{{end}}
</tbody></table>{{end}}
{{define "table"}}<table>
{{- if .Title}}
<caption>{{.Title}}</caption>
{{- end}}
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}
<tr>{{range .}}{{if eq . "pass"}}<td class="pass">{{.}}</td>{{else if eq . "FAIL"}}<td class="fail">{{.}}</td>{{else}}<td>{{.}}</td>{{end}}{{end}}</tr>{{end}}
</tbody>
</table>
{{- range .Notes}}
<p class="note">{{.}}</p>
{{- end}}
{{end}}`
