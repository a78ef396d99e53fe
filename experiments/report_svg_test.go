package experiments

import (
	"encoding/xml"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestCheckSVG: what the page may inline and what it refuses.
func TestCheckSVG(t *testing.T) {
	const ns = `xmlns="http://www.w3.org/2000/svg"`
	cases := []struct {
		name, in, want, err string
	}{
		{"prolog stripped", `<?xml version="1.0"?>` + "\n<!-- c -->\n<svg " + ns + `><path d="M0,0"/></svg>` + "\n", `<svg ` + ns + `><path d="M0,0"/></svg>`, ""},
		{"internal link", `<svg ` + ns + `><use href="#a"/></svg>`, `<svg ` + ns + `><use href="#a"/></svg>`, ""},
		{"script", `<svg ` + ns + `><script>x()</script></svg>`, "", "unsafe SVG: contains <script>"},
		{"handler", `<svg ` + ns + ` onload="x()"></svg>`, "", "unsafe SVG: attribute onload"},
		{"external link", `<svg ` + ns + `><a href="javascript:x()"/></svg>`, "", "unsafe SVG: attribute href"},
		{"animated link", `<svg ` + ns + `><a href="#x"><set attributeName="href" to="javascript:x()"/></a></svg>`, "", "unsafe SVG: contains <set>"},
		{"foreign object", `<svg ` + ns + `><foreignObject/></svg>`, "", "unsafe SVG: contains <foreignObject>"},
		{"not svg", `<html/>`, "", "root element <html>"},
		{"two roots", `<svg/><svg/>`, "", "more than one root"},
		{"truncated", `<svg ` + ns + `><path`, "", "invalid SVG"},
		{"empty", ``, "", "no <svg> element"},
		{"html entity", `<svg ` + ns + `><text>&nbsp;</text></svg>`, "", "invalid SVG"},
		{"text outside", `junk<svg/>`, "", "text outside"},
		{"doctype", `<!DOCTYPE svg><svg/>`, `<svg/>`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := checkSVG([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// FuzzCheckSVG: whatever checkSVG accepts is one well-formed <svg> element
// without scripts or event handlers.
func FuzzCheckSVG(f *testing.F) {
	f.Add([]byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><g><text>a</text></g></svg>`))
	f.Add([]byte(`<svg><script/></svg>`))
	f.Add([]byte(`<svg onload="x"/>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := checkSVG(b)
		if err != nil {
			return
		}
		if !strings.HasPrefix(s, "<svg") {
			t.Fatalf("accepted %q", s)
		}
		again, err := checkSVG([]byte(s))
		if err != nil || again != s {
			t.Fatalf("accepted %q, but not its own output: %v", s, err)
		}
		d := xml.NewDecoder(strings.NewReader(s))
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			if e, ok := tok.(xml.StartElement); ok {
				if strings.EqualFold(e.Name.Local, "script") {
					t.Fatalf("accepted a script: %q", s)
				}
				for _, a := range e.Attr {
					if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") {
						t.Fatalf("accepted a handler: %q", s)
					}
				}
			}
		}
	})
}

// FuzzReportTables: tables written as WriteOutputs writes them (CSV and
// Markdown) are read back with every cell, title and note.
func FuzzReportTables(f *testing.F) {
	f.Add("Table 1: x", "a,b", "1,\"2\"", "note one", "T2", "c", "x|y")
	f.Add("", "h", "", "", "", "h2", "v")
	f.Fuzz(func(t *testing.T, title1, head1, row1, note1, title2, head2, row2 string) {
		mk := func(title, head, row, note string) *Table {
			tb := &Table{Title: title, Header: strings.Split(head, ";"), Rows: [][]string{strings.Split(row, ";")}}
			if note != "" {
				tb.Notes = []string{note}
			}
			return tb
		}
		in := []*Table{mk(title1, head1, row1, note1), mk(title2, head2, row2, "")}
		dir := t.TempDir()
		if _, err := WriteOutputs(dir, "x", struct{}{}, in...); err != nil {
			t.Fatal(err)
		}
		got, err := readTables(filepath.Join(dir, "x.csv"), filepath.Join(dir, "x.md"))
		if len(got) > 0 {
			_, _ = (&Report{Runs: []ReportRun{{Path: "x", Tables: []ReportTable{{File: "x/x.csv", Table: got[0]}}}}}).HTML()
		}
		// The round trip is exact for plain cells: one line each, not all
		// blank (a blank CSV line reads as a table break), no Markdown
		// syntax in titles and notes.
		plain := func(ss ...string) bool {
			for _, s := range ss {
				if strings.ContainsAny(s, "\r\n|*`\\") || s != strings.TrimSpace(s) || !isPrintable(s) {
					return false
				}
			}
			return true
		}
		for _, tb := range in {
			if !plain(append(append([]string{tb.Title}, tb.Notes...), append(tb.Header, tb.Rows[0]...)...)...) ||
				strings.Join(tb.Header, "") == "" || strings.Join(tb.Rows[0], "") == "" {
				return
			}
		}
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		if len(got) != len(in) {
			t.Fatalf("%d tables, want %d", len(got), len(in))
		}
		for i := range in {
			if got[i].Title != in[i].Title || !reflect.DeepEqual(got[i].Header, in[i].Header) ||
				!reflect.DeepEqual(got[i].Rows, in[i].Rows) || !reflect.DeepEqual(got[i].Notes, in[i].Notes) {
				t.Fatalf("table %d: %+v, want %+v", i, got[i], in[i])
			}
		}
	})
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}

// TestWallCPU: the facts' wall time carries the CPU time when the
// manifest records it, and only the wall for an older one.
func TestWallCPU(t *testing.T) {
	for _, c := range []struct {
		wall, cpu float64
		want      string
	}{{12.34, 20.06, "12.3 s (CPU 20.1 s)"}, {3, 0, "3.0 s"}} {
		m := &ReportManifest{Manifest: &Manifest{RunInfo: &RunInfo{WallSec: c.wall, CPUSec: c.cpu}}}
		f := m.facts()
		if got := f[slices.Index(factKeys, "wall time")]; got != c.want {
			t.Errorf("wall %v, CPU %v: %q, want %q", c.wall, c.cpu, got, c.want)
		}
	}
}
