package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docBlocks splits a Markdown page into its prose blocks: paragraphs and
// list items, without code blocks, tables, headings and images. A list item
// run into the line before it ("...at n = 10.- **What does not**") starts a
// block of its own too.
func docBlocks(page string) []string {
	var blocks []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, " "))
			cur = nil
		}
	}
	inCode := false
	runIn := regexp.MustCompile(`([.:;)])- `)
	for _, line := range strings.Split(page, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inCode = !inCode
			flush()
			continue
		case inCode:
			continue
		case trimmed == "", strings.HasPrefix(trimmed, "|"), strings.HasPrefix(trimmed, "#"), strings.HasPrefix(trimmed, "!["):
			flush()
			continue
		case strings.HasPrefix(trimmed, "- "), strings.HasPrefix(trimmed, "* "), regexp.MustCompile(`^\d+\. `).MatchString(trimmed):
			flush()
		}
		// A run-in item ends the block before it; it continues on the next lines.
		for i, part := range runIn.Split(trimmed, -1) {
			if i > 0 {
				flush()
			}
			cur = append(cur, part)
		}
	}
	flush()
	return blocks
}

// shingles are the block's runs of shingleWords consecutive words, lower
// case, without punctuation.
func shingles(block string) map[string]bool {
	words := strings.FieldsFunc(strings.ToLower(block), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	out := map[string]bool{}
	for i := 0; i+shingleWords <= len(words); i++ {
		out[strings.Join(words[i:i+shingleWords], " ")] = true
	}
	return out
}

const (
	shingleWords = 6
	// minShingles: blocks shorter than this are not compared (a repeated
	// short sentence such as a command line is not a repeated paragraph).
	minShingles = 10
	// maxOverlap: the share of the smaller block's shingles found in the
	// other above which two blocks are two versions of one paragraph.
	maxOverlap = 0.5
)

// repeats returns the pairs of blocks of page that are one paragraph twice,
// verbatim or reworded in part.
func repeats(page string) [][2]string {
	blocks := docBlocks(page)
	sh := make([]map[string]bool, len(blocks))
	for i, b := range blocks {
		sh[i] = shingles(b)
	}
	var out [][2]string
	for i := range blocks {
		for j := i + 1; j < len(blocks); j++ {
			a, b := sh[i], sh[j]
			if len(a) < minShingles || len(b) < minShingles {
				continue
			}
			if len(b) < len(a) {
				a, b = b, a
			}
			common := 0
			for s := range a {
				if b[s] {
					common++
				}
			}
			if float64(common) > maxOverlap*float64(len(a)) {
				out = append(out, [2]string{blocks[i], blocks[j]})
			}
		}
	}
	return out
}

// No docs page (README included; docs/cli.md, generated from the help
// texts, aside) holds a paragraph twice, verbatim or as two versions.
func TestDocsNoRepeatedParagraph(t *testing.T) {
	pages := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") && path != filepath.Join("docs", "cli.md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range repeats(string(b)) {
			t.Errorf("%s repeats a paragraph:\n  %.200s\n  %.200s", p, r[0], r[1])
		}
	}
}

// The detector itself: what counts as a repeat and what does not.
func TestRepeats(t *testing.T) {
	para := "our objectives differ from the published ones by 0.08 to 1.1 in absolute value because the paper's generator is unpublished, so only the distribution of the instances agrees with ours"
	other := "Algorithm 1 needs between 380 and 5,100 ADMM iterations per run, which the paper does not report, and that is 83 MB to 395 MB of traffic at n = 10 clients"
	tests := []struct {
		name string
		page string
		want int
	}{
		{"distinct paragraphs", para + "\n\n" + other, 0},
		{"verbatim", para + "\n\n" + other + "\n\n" + para, 1},
		{"reworded copy", "- " + para + "\n- " + strings.Replace(para, "because", "since", 1), 1},
		{"run into the item before", "- " + other + "\n- " + para + "\n- " + other + ".- " + para, 2},
		{"in a code block", para + "\n\n```\n" + para + "\n```", 0},
		{"in a table", para + "\n\n| " + para + " |", 0},
		{"short lines", "run make test\n\nrun make test", 0},
	}
	for _, tt := range tests {
		if got := repeats(tt.page); len(got) != tt.want {
			t.Errorf("%s: %d repeats, want %d: %q", tt.name, len(got), tt.want, got)
		}
	}
}
