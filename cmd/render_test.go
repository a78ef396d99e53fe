package cmd

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fedcon/fedcon/experiments"
)

// wideTable is a diagnostics-like table: two key columns and many wide ones.
func wideTable(cols, rows int) *experiments.Table {
	t := &experiments.Table{Title: "T", Keys: 2, Header: []string{"dataset", "n"}, Notes: []string{strings.Repeat("word ", 60)}}
	for c := 0; c < cols; c++ {
		t.Header = append(t.Header, fmt.Sprintf("column %d mean / max", c))
	}
	for r := 0; r < rows; r++ {
		row := []string{"adult-a", fmt.Sprint(r + 1)}
		for c := 0; c < cols; c++ {
			row = append(row, fmt.Sprintf("%.4f / %.4f", float64(c)/7, float64(r)/3))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func TestPrintTablesFit(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cols      int
		width     int
		wantParts int // 0: more than one, count not fixed
	}{
		{"fits", 2, 120, 1},
		{"wide flag", 13, 0, 1},
		{"split at 120", 13, 120, 0},
		{"split at 80", 13, 80, 0},
		{"one column wider than the terminal", 3, 20, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := wideTable(tc.cols, 3)
			var b bytes.Buffer
			if err := printTables(&b, tc.width, tab); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			parts := max(1, strings.Count(out, "(part "))
			if tc.wantParts > 0 && parts != tc.wantParts || tc.wantParts == 0 && parts < 2 {
				t.Fatalf("%d parts, want %d:\n%s", parts, tc.wantParts, out)
			}
			// Every column header appears exactly once; the keys in every part.
			for _, h := range tab.Header[2:] {
				if n := strings.Count(out, "│ "+h+" ") + strings.Count(out, " "+h+" │"); n == 0 {
					t.Errorf("column %q missing", h)
				}
			}
			if got := strings.Count(out, " dataset "); got != parts {
				t.Errorf("key column printed %d times for %d parts", got, parts)
			}
			// Every cell of every row survives the split.
			for _, r := range tab.Rows {
				for _, cell := range r[2:] {
					if !strings.Contains(out, cell) {
						t.Errorf("cell %q missing", cell)
					}
				}
			}
			if tc.width > 0 && tc.name != "one column wider than the terminal" {
				for _, line := range strings.Split(out, "\n") {
					if n := utf8.RuneCountInString(line); n > tc.width {
						t.Errorf("line of %d > %d columns: %q", n, tc.width, line)
					}
				}
			}
		})
	}
}

func TestWrapText(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"a b c", 0, "a b c"},
		{"a b c", 5, "a b c"},
		{"aa bb cc", 5, "aa bb\ncc"},
		{"averyveryverylongword b", 5, "averyveryverylongword\nb"},
		{"x  y", 2, "x\ny"},
	} {
		if got := wrapText(tc.in, tc.width); got != tc.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

func TestTableWidth(t *testing.T) {
	io, _, _ := testIO()
	f := &Factory{IO: io}
	if got := f.tableWidth(); got != defaultWidth {
		t.Errorf("unknown width: %d, want %d", got, defaultWidth)
	}
	io.Width = 90
	if got := f.tableWidth(); got != 90 {
		t.Errorf("terminal width: %d, want 90", got)
	}
	f.Wide = true
	if got := f.tableWidth(); got != 0 {
		t.Errorf("--wide: %d, want 0", got)
	}
}
