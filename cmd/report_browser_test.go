package cmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fedcon/fedcon/experiments"
)

// TestReportBrowser renders the report of a small results directory in
// headless Chromium and checks, in the DOM the browser built, that every
// table (caption, header and rows) and every figure (an <svg> inside its
// <figure>) is there. `make test-report` runs it (FEDCON_REPORT_BROWSER=1;
// FEDCON_CHROMIUM names the browser, default chromium;
// FEDCON_REPORT_SCREENSHOT=FILE.png also saves a screenshot).
func TestReportBrowser(t *testing.T) {
	if os.Getenv("FEDCON_REPORT_BROWSER") == "" {
		t.Skip("set FEDCON_REPORT_BROWSER=1 (make test-report) to render the report in headless Chromium")
	}
	browser := os.Getenv("FEDCON_CHROMIUM")
	if browser == "" {
		browser = "chromium"
	}
	if _, err := exec.LookPath(browser); err != nil {
		t.Fatalf("%s: %v (Debian: apt-get install chromium)", browser, err)
	}
	dir := t.TempDir()
	f, _, errOut := testFactory()
	for _, args := range [][]string{
		{"reproduce", "table4", "--cells", "2x10x1,3x12x2", "--trials", "2"},
		{"reproduce", "drfl-figure1", "--quick"},
		{"reproduce", "figure1", "--clients", "3", "--data-dir", "../../shared/datasets"},
	} {
		if strings.Contains(strings.Join(args, " "), "shared/datasets") {
			if _, err := os.Stat("../../shared/datasets"); err != nil {
				continue // a figure with a manifest needs the data
			}
		}
		if code := run(context.Background(), f, append(args, "--out", dir, "--quiet")); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if code := run(context.Background(), f, []string{"report", dir}); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	rep, err := experiments.BuildReport(dir, nil)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page := "file://" + filepath.Join(dir, experiments.ReportHTML)
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir()}
	start := time.Now()
	out, err := exec.CommandContext(ctx, browser, append(flags, "--dump-dom", page)...).Output()
	if err != nil {
		t.Fatalf("%s --dump-dom: %v", browser, err)
	}
	t.Logf("%s rendered %s (%d bytes of DOM) in %.1f s", browser, page, len(out), time.Since(start).Seconds())
	dom := string(out)
	if shot := os.Getenv("FEDCON_REPORT_SCREENSHOT"); shot != "" {
		abs, _ := filepath.Abs(shot)
		if err := exec.CommandContext(ctx, browser, append(flags, "--window-size=1400,3000", "--screenshot="+abs, page)...).Run(); err != nil {
			t.Errorf("screenshot: %v", err)
		}
	}

	// element returns the serialised element that carries id="id".
	element := func(tag, id string) string {
		t.Helper()
		i := strings.Index(dom, `id="`+id+`"`)
		if i < 0 {
			t.Errorf("no element %s in the DOM", id)
			return ""
		}
		i = strings.LastIndex(dom[:i], "<"+tag)
		j := strings.Index(dom[i:], "</"+tag+">")
		if j < 0 {
			t.Errorf("element %s not closed", id)
			return ""
		}
		return dom[i : i+j]
	}
	// escape is how Chromium serialises text.
	escape := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\u00a0", "&nbsp;").Replace
	var tables, figures, svgs int
	for _, r := range rep.Runs {
		for i, tb := range r.Tables {
			tables++
			el := element("div", tb.ID)
			if tb.Title != "" && !strings.Contains(el, "<caption>"+escape(tb.Title)+"</caption>") {
				t.Errorf("%s: table %d lacks its caption %q", tb.File, i, tb.Title)
			}
			if got, want := strings.Count(el, "<tr>"), 1+len(tb.Rows); got != want {
				t.Errorf("%s: table %d has %d rows in the DOM, want %d", tb.File, i, got, want)
			}
			for _, h := range tb.Header {
				if !strings.Contains(el, "<th>"+escape(h)+"</th>") {
					t.Errorf("%s: table %d lacks the column %q", tb.File, i, h)
				}
			}
		}
		for _, fg := range r.Figures {
			figures++
			el := element("figure", fg.ID)
			if fg.SVG != "" {
				svgs++
				if !strings.Contains(el, "<svg") || !strings.Contains(el, "</svg>") {
					t.Errorf("%s: the figure's SVG is not in the DOM", fg.File)
				}
			}
			if !strings.Contains(el, escape(fg.Title)) {
				t.Errorf("%s: the figure lacks its caption %q", fg.File, fg.Title)
			}
		}
	}
	if tables < 3 || svgs < 2 {
		t.Errorf("fixture too small: %d tables, %d inline SVGs", tables, svgs)
	}
	if got := strings.Count(dom, "<svg"); got != svgs {
		t.Errorf("%d <svg> elements in the DOM, want %d", got, svgs)
	}
	if got := strings.Count(dom, `<figure class="result-figure"`); got != figures {
		t.Errorf("%d figures in the DOM, want %d", got, figures)
	}
	for _, s := range []string{"PASS: ", "Check gate", "config hash"} {
		if !strings.Contains(dom, s) {
			t.Errorf("the DOM lacks %q", s)
		}
	}
	if strings.Contains(dom, "&lt;svg") {
		t.Error("an SVG was rendered as text")
	}
	t.Logf("%d runs, %d tables, %d figures (%d inline SVG) in the DOM", len(rep.Runs), tables, figures, svgs)
}
