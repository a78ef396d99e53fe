package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// docPages lists README.md and every Markdown page under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

var (
	// mdLink matches an inline link or image, [text](target) or
	// ![alt](target), with an optional "title" after the target.
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// codeSpan matches an inline code span, whose brackets are not links.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// mdLinkText matches a link in a heading, whose anchor keeps its text.
	mdLinkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// prose returns page's lines outside fenced code blocks, with each line's
// code spans blanked, and the page's headings.
func prose(page string) (lines []string, headings []string) {
	inCode := false
	for _, line := range strings.Split(page, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inCode = !inCode
			lines = append(lines, "")
			continue
		}
		if inCode {
			lines = append(lines, "")
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			h := strings.TrimLeft(trimmed, "#")
			if h == "" || h[0] == ' ' {
				headings = append(headings, strings.TrimSpace(h))
			}
		}
		lines = append(lines, codeSpan.ReplaceAllString(line, "``"))
	}
	return lines, headings
}

// slug is the anchor GitHub gives a heading: its text as rendered (link
// text kept, code spans' backticks and emphasis dropped), lower case,
// letters, digits, '-' and '_' kept, spaces turned into '-'.
func slug(heading string) string {
	text := mdLinkText.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a page's headings; a repeated heading's
// anchor gets -1, -2, ... as on GitHub.
func anchors(page string) map[string]bool {
	_, headings := prose(page)
	out := map[string]bool{}
	seen := map[string]int{}
	for _, h := range headings {
		s := slug(h)
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// Every relative link and image in README.md and docs/ names a file or
// folder of the repository, and every #anchor a heading of its page, as
// GitHub renders them.
func TestDocsLinksResolve(t *testing.T) {
	pageAnchors := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := pageAnchors[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		pageAnchors[path] = anchors(string(b))
		return pageAnchors[path], nil
	}
	links := 0
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines, _ := prose(string(b))
		for i, line := range lines {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, frag, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				}
				info, err := os.Stat(path)
				if err != nil {
					t.Errorf("%s:%d: %s: no such file %s", page, i+1, target, path)
					continue
				}
				if frag == "" {
					continue
				}
				if info.IsDir() || !strings.HasSuffix(path, ".md") {
					t.Errorf("%s:%d: %s: an anchor on %s, which is not a Markdown page", page, i+1, target, path)
					continue
				}
				a, err := anchorsOf(path)
				if err != nil {
					t.Fatal(err)
				}
				if !a[frag] {
					t.Errorf("%s:%d: %s: %s has no heading with anchor #%s", page, i+1, target, path, frag)
				}
			}
		}
	}
	if links == 0 {
		t.Fatal("no relative links found: the link pattern is broken")
	}
}

// The anchor rule on headings of the kinds the docs use.
func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"fedcon reproduce table4", "fedcon-reproduce-table4"},
		{"Defaults: the paper and the authors' code", "defaults-the-paper-and-the-authors-code"},
		{"Dense QP (`solver/qp`, BenchmarkDense200)", "dense-qp-solverqp-benchmarkdense200"},
		{"Algorithm 1 with the default ρ rule", "algorithm-1-with-the-default-ρ-rule"},
		{"The [shift](rho-rules.md)", "the-shift"},
		{"Cones in *fedcon*", "cones-in-fedcon"},
	}
	for _, tt := range tests {
		if got := slug(tt.heading); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
	a := anchors("# Notes\n\n## Notes\n\n```\n# not a heading\n```\n")
	for _, want := range []string{"notes", "notes-1"} {
		if !a[want] {
			t.Errorf("anchors: %q missing from %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Errorf("anchors: a comment in a code block taken for a heading")
	}
}
