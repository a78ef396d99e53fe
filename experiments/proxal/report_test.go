package proxal

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// reportFixture writes a results directory: a real Table 4 run (tables,
// manifest, trial files), a figure with an SVG, a figure with a PNG only,
// and a directory of broken files. It returns the Table 4 result and the
// tables it wrote.
func reportFixture(t *testing.T, dir string) (*QPResult, []*experiments.Table) {
	t.Helper()
	cfg := smallQP()
	store := &experiments.Store{Dir: filepath.Join(dir, "table4", "trials"), Hash: cfg.TrialHash(), Version: "v1.2.3+abc123def456"}
	res, err := RunQP(context.Background(), cfg, experiments.RunOptions{Workers: 2, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	res.Info = experiments.NewRunInfo("table4", "v1.2.3+abc123def456", cfg, 2)
	res.Info.Finish()
	tables := res.Tables()
	if _, err := experiments.WriteOutputs(filepath.Join(dir, "table4"), "table4", res, tables...); err != nil {
		t.Fatal(err)
	}
	m, err := experiments.NewManifest(res.Info, cfg.Seed, store, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := experiments.WriteJSON(filepath.Join(dir, "table4", "manifest.json"), m); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"fig/fig.json": `{"figure": {"title": "Figure 9: <b>bold</b> & co", "panels": []}}`,
		"fig/fig.svg": `<?xml version="1.0"?>
<!-- drawn by a test -->
<svg xmlns="http://www.w3.org/2000/svg" width="40pt" height="20pt" viewBox="0 0 40 20">
<circle id="dot" cx="10" cy="10" r="5" style="fill:#1F77B4"/><text x="20" y="10">a &amp; b</text>
</svg>
`,
		"pngfig/p.png":       "\x89PNG\r\n\x1a\n",
		"bad/manifest.json":  `{"experiment": "x", "wall_seconds": `,
		"bad/broken.csv":     "a,b\n\"unterminated,1\n",
		"bad/evil.svg":       `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		"bad/skew.csv":       "a,b\n1,2\n\nc\n3\n",
		"bad/skew.md":        "**only one title**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
		"README.md":          "not a result\n",
		"bad/.hidden.json":   "{",
		"bad/trials/x.json":  "{",
		"bad/nested/t.notes": "ignored",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return res, tables
}

// xhtmlElement is one element of a parsed page.
type xhtmlElement struct {
	name, class, id, src string
	parents              []string // element names from the root down
	text                 string   // character data directly inside
}

// parseXHTML parses the page as XML (it must be well-formed) and lists its
// elements.
func parseXHTML(t *testing.T, page []byte) []*xhtmlElement {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	var out, stack []*xhtmlElement
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("index.html is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &xhtmlElement{name: tok.Name.Local}
			for _, p := range stack {
				e.parents = append(e.parents, p.name)
			}
			for _, a := range tok.Attr {
				switch a.Name.Local {
				case "class":
					e.class = a.Value
				case "id":
					e.id = a.Value
				case "data-src":
					e.src = a.Value
				}
			}
			out = append(out, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements: %d", len(stack))
	}
	return out
}

// TestReport builds the report of a fixture directory and checks that every
// table (title, header, rows, notes), figure, check rule and manifest fact
// is in the page and its Markdown twin, and every broken file is named.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	res, tables := reportFixture(t, dir)
	rep, err := experiments.BuildReport(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range rep.Runs {
		paths = append(paths, r.Path)
	}
	if want := []string{"bad", "fig", "pngfig", "table4"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("runs %v, want %v", paths, want)
	}
	run := rep.Runs[3]

	// Tables: read back exactly as written.
	if len(run.Tables) != len(tables) {
		t.Fatalf("%d tables, want %d", len(run.Tables), len(tables))
	}
	for i, want := range tables {
		got := run.Tables[i]
		if got.File != "table4/table4.csv" || got.Title != want.Title || !reflect.DeepEqual(got.Header, want.Header) ||
			!reflect.DeepEqual(got.Rows, want.Rows) || !reflect.DeepEqual(got.Notes, want.Notes) {
			t.Errorf("table %d read back as %+v, want %+v", i, got.Table, want)
		}
	}
	// Manifest and trials.
	if len(run.Manifests) != 1 || run.Manifests[0].Commit != "abc123def456" || run.Trials != len(res.Trials) {
		t.Fatalf("manifests %+v, trials %d (want %d)", run.Manifests, run.Trials, len(res.Trials))
	}
	// Check gate: the same rows as the check itself: table4's, bad's
	// failure (a manifest without its result) and fig's (a figure file
	// without a run record).
	js, err := os.ReadFile(filepath.Join(dir, "table4", "table4.json"))
	if err != nil {
		t.Fatal(err)
	}
	wantRows, err := experiments.CheckExperiment(filepath.Join(dir, "table4"), "table4", js, experiments.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gate, err := experiments.Gate(dir, experiments.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Gates) != 1 || rep.Gates[0].Dir != "." || !reflect.DeepEqual(rep.Gates[0].Rows, gate.Rows) ||
		rep.Gates[0].Failed() != 2 || gate.Rows[0].Experiment != "bad" || gate.Rows[1].Experiment != "fig" || !reflect.DeepEqual(gate.Rows[2:], wantRows) {
		t.Fatalf("gates %+v", rep.Gates)
	}
	// Warnings: every broken file, nothing else.
	wantWarn := []string{"bad/broken.csv", "bad/evil.svg", "bad/manifest.json", "bad/skew.csv"}
	if len(rep.Warnings) != len(wantWarn) {
		t.Errorf("warnings %q, want one each for %v", rep.Warnings, wantWarn)
	}
	for i, w := range wantWarn {
		if i < len(rep.Warnings) && !strings.HasPrefix(rep.Warnings[i], w+": ") {
			t.Errorf("warning %d = %q, want one about %s", i, rep.Warnings[i], w)
		}
	}

	page, err := rep.HTML()
	if err != nil {
		t.Fatal(err)
	}
	els := parseXHTML(t, page)
	html := string(page)
	md := rep.Markdown()
	// text is the page's character data, entities decoded; cellText the
	// table cells'.
	var text strings.Builder
	cellText := map[string]bool{}
	for _, e := range els {
		text.WriteString(e.text)
		if e.name == "td" || e.name == "th" {
			cellText[e.text] = true
		}
	}
	for _, tb := range tables {
		for _, s := range append([]string{tb.Title}, tb.Notes...) {
			if !strings.Contains(text.String(), s) {
				t.Errorf("page lacks %q", s)
			}
			if !strings.Contains(md, s) {
				t.Errorf("report.md lacks %q", s)
			}
		}
	}
	// One result-table block per table, each holding a table with every
	// header and row; the skewed CSV still shows its two tables untitled.
	var resultTables int
	for _, e := range els {
		if e.class == "scroll result-table" {
			resultTables++
		}
	}
	if want := len(tables) + 2; resultTables != want {
		t.Errorf("%d result tables in the page, want %d", resultTables, want)
	}
	for _, tb := range tables {
		for _, r := range append([][]string{tb.Header}, tb.Rows...) {
			for _, c := range r {
				if !cellText[c] {
					t.Errorf("page lacks the cell %q", c)
				}
			}
		}
	}
	// Figures: the SVG inline inside its <figure>, the PNG as an image, the
	// unsafe SVG nowhere.
	var figures, svgs, imgs int
	for _, e := range els {
		switch {
		case e.name == "figure":
			figures++
		case e.name == "svg" && contains(e.parents, "figure"):
			svgs++
		case e.name == "img" && contains(e.parents, "figure"):
			imgs++
		case e.name == "script":
			t.Error("the page holds a <script>")
		}
	}
	if figures != 2 || svgs != 1 || imgs != 1 {
		t.Errorf("%d figures, %d inline SVGs, %d images; want 2, 1, 1", figures, svgs, imgs)
	}
	for _, s := range []string{`<circle id="dot"`, `a &amp; b`, `src="pngfig/p.png"`} {
		if !strings.Contains(html, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if !strings.Contains(text.String(), "Figure 9: <b>bold</b> & co") {
		t.Error("page lacks the figure's title")
	}
	if strings.Contains(html, "<b>bold") || strings.Contains(html, "alert(1)") {
		t.Error("unescaped text or the unsafe SVG in the page")
	}
	// Check rules, manifest facts and links.
	m := run.Manifests[0]
	for _, s := range []string{"FAIL: ", "v1.2.3+abc123def456", "abc123def456", m.ConfigHash, m.TrialHash, m.CPU, m.GoVersion,
		m.Start.Format("2006-01-02 15:04:05 MST"), "wall time", "bad/broken.csv: invalid CSV", "bad/evil.svg: unsafe SVG"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("page lacks %q", s)
		}
	}
	for _, r := range wantRows {
		if !cellText[r.Rule] {
			t.Errorf("page lacks the rule %q", r.Rule)
		}
	}
	for _, s := range []string{`href="table4/table4.json"`, `href="table4/table4.csv"`, `href="table4/manifest.json"`, `href="table4/trials/"`} {
		if !strings.Contains(html, s) {
			t.Errorf("page lacks the link %s", s)
		}
	}
	for _, s := range []string{"FAIL: ", "| kkt stationarity", "abc123def456", "(table4/table4.csv)", "![Figure 9:", "(fig/fig.svg)", "(pngfig/p.png)", "bad/evil.svg: unsafe SVG"} {
		if !strings.Contains(md, s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	// Deterministic: a second build renders the same bytes.
	again, err := experiments.BuildReport(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if page2, _ := again.HTML(); !bytes.Equal(page, page2) || again.Markdown() != md {
		t.Error("two builds of the same directory differ")
	}
	// Write puts both files in the directory; a rebuild does not list them.
	written, err := rep.Write(dir)
	if err != nil || len(written) != 2 {
		t.Fatalf("write: %v %v", written, err)
	}
	if again, err = experiments.BuildReport(dir, nil); err != nil {
		t.Fatal(err)
	}
	if page2, _ := again.HTML(); !bytes.Equal(page, page2) {
		t.Error("the report lists its own files")
	}
}

// TestReportFailedCheck: a failing rule and an unreadable result file turn
// the gate's verdict to FAIL, and the failing rule is marked.
func TestReportFailedCheck(t *testing.T) {
	dir := t.TempDir()
	reportFixture(t, dir)
	p := filepath.Join(dir, "table4", "table4.json")
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte(`"status": "Converged"`), []byte(`"status": "OuterIterationLimit"`), 1)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "quick", "table1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "quick", "table1", "table1.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "quick", "table1", "table1.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := experiments.BuildReport(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Gates) != 2 || rep.Gates[0].Dir != "." || rep.Gates[1].Dir != "quick" {
		t.Fatalf("gates %+v", rep.Gates)
	}
	g := rep.Gates[0]
	if g.Pass() {
		t.Fatal("a capped run passes the gate")
	}
	var status experiments.RuleVerdict
	for _, v := range g.Rules() {
		if v.Rule == "status" {
			status = v
		}
	}
	if status.Failed != 1 {
		t.Errorf("status rule %+v, want one failure", status)
	}
	// An unreadable result file is a failed check, as in `fedcon check`.
	if q := rep.Gates[1]; q.Pass() || len(q.Rows) == 0 || q.Rows[0].Rule != "result file" || q.Rows[0].Pass {
		t.Errorf("unreadable result file: gate %+v", q)
	}
	page, err := rep.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"FAIL: ", `<td class="fail">FAIL</td>`, "quick: FAIL: 1 checks, 1 failed"} {
		if !strings.Contains(string(page), s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

// TestReportErrors: a missing directory and one without results are errors
// the command layer can tell apart.
func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := experiments.BuildReport(filepath.Join(dir, "none"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing dir: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := experiments.BuildReport(dir, nil); !errors.Is(err, experiments.ErrNoResults) {
		t.Errorf("empty dir: %v", err)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestReportGolden renders a hand-written results directory and compares
// the page and its Markdown twin with testdata/report/*.golden (go test
// -update rewrites them): nothing of the machine or the clock may enter.
func TestReportGolden(t *testing.T) {
	rep, err := experiments.BuildReport(filepath.Join("testdata", "report", "results"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("warnings: %q", rep.Warnings)
	}
	page, err := rep.HTML()
	if err != nil {
		t.Fatal(err)
	}
	parseXHTML(t, page)
	for _, g := range []struct {
		file string
		got  []byte
	}{{"index.html.golden", page}, {"report.md.golden", []byte(rep.Markdown())}} {
		p := filepath.Join("testdata", "report", g.file)
		if *update {
			if err := os.WriteFile(p, g.got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g.got, want) {
			t.Errorf("%s differs (go test ./experiments/ -run TestReportGolden -update rewrites it):\n%s", g.file, reportFirstDiff(string(g.got), string(want)))
		}
	}
}

// reportFirstDiff shows the first line where got and want differ.
func reportFirstDiff(got, want string) string { return experiments.FirstLineDiff(got, want) }
