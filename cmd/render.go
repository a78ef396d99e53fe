package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	twc "github.com/olekukonko/tablewriter/tw"

	"github.com/fedcon/fedcon/experiments"
)

// defaultWidth is the table width when the terminal's is unknown (a pipe,
// CI, a file).
const defaultWidth = 100

// briefNote closes a terminal view that left columns or tables out.
const briefNote = "Compact view: --wide prints every column (result files always hold them all)."

// printTables renders tables for the terminal. By default (width > 0) a
// table with a Brief is shown as its Brief and a Detail table not at all;
// a table wider than width first has its widest text columns wrapped, then
// is split into parts that repeat its key columns; titles and notes wrap.
// width <= 0 prints every table whole (--wide). Files keep every column.
func printTables(w io.Writer, width int, tables ...*experiments.Table) error {
	shown, briefed := 0, false
	for _, t := range tables {
		if width > 0 && t.Detail {
			briefed = true
			continue
		}
		if width > 0 && t.Brief != nil {
			t, briefed = t.Brief, true
		}
		if shown > 0 {
			fmt.Fprintln(w)
		}
		shown++
		parts, err := fitTable(t, width)
		if err != nil {
			return err
		}
		for j, p := range parts {
			if j > 0 {
				fmt.Fprintln(w)
			}
			title := t.Title
			if len(parts) > 1 {
				title = strings.TrimSpace(fmt.Sprintf("%s (part %d of %d)", title, j+1, len(parts)))
			}
			if title != "" {
				fmt.Fprintln(w, wrapText(title, width))
			}
			if _, err := w.Write(p); err != nil {
				return err
			}
		}
		for _, n := range t.Notes {
			fmt.Fprintln(w, wrapText(n, width))
		}
	}
	if briefed {
		fmt.Fprintln(w, wrapText(briefNote, width))
	}
	return nil
}

// minWrap is the narrowest a column is wrapped to, in runes.
const minWrap = 8

// wrapColumns returns the header and rows with every column wider than a
// common cap wrapped to it (cells at spaces, a longer word cut; headers at
// spaces only; the keys leading columns never), the largest cap at which
// the table is at most width wide, and the rendering; nil when even
// minWrap is too wide.
func wrapColumns(header []string, rows [][]string, keys, width int) ([]string, [][]string, []byte, error) {
	// A header is wrapped at its spaces only: its longest word is the
	// column's floor.
	natural, floor := make([]int, len(header)), make([]int, len(header))
	for c := range header {
		natural[c] = utf8.RuneCountInString(header[c])
		for _, w := range strings.Fields(header[c]) {
			floor[c] = max(floor[c], utf8.RuneCountInString(w))
		}
		for _, r := range rows {
			if c < len(r) {
				for _, line := range strings.Split(r[c], "\n") {
					natural[c] = max(natural[c], utf8.RuneCountInString(line))
				}
			}
		}
	}
	whole, err := renderBox(header, rows)
	if err != nil {
		return nil, nil, nil, err
	}
	sum := 0
	for _, w := range natural {
		sum += w
	}
	overhead := textWidth(whole) - sum
	for c := 0; c < keys && c < len(floor); c++ {
		floor[c] = natural[c] // the key columns are never wrapped
	}
	capOf := func(c, limit int) int { return min(natural[c], max(limit, floor[c])) }
	capped := func(limit int) int {
		n := 0
		for c := range natural {
			n += capOf(c, limit)
		}
		return n
	}
	limit := slices.Max(natural)
	for limit > minWrap && capped(limit)+overhead > width {
		limit--
	}
	for ; limit >= minWrap; limit-- {
		hd := make([]string, len(header))
		for c, h := range header {
			hd[c] = h
			if natural[c] > capOf(c, limit) {
				hd[c] = wrapText(h, capOf(c, limit))
			}
		}
		rs := make([][]string, len(rows))
		for i, r := range rows {
			rs[i] = make([]string, len(r))
			for c, v := range r {
				rs[i][c] = v
				if c < len(natural) && natural[c] > capOf(c, limit) {
					rs[i][c] = wrapCell(v, capOf(c, limit))
				}
			}
		}
		out, err := renderBox(hd, rs)
		if err != nil {
			return nil, nil, nil, err
		}
		if textWidth(out) <= width {
			return hd, rs, out, nil
		}
	}
	return nil, nil, nil, nil
}

// fitTable renders t as one box table, its widest text columns wrapped if
// need be, or else as several whose columns are the key columns plus a
// greedy run of the others, each at most width wide when it can be (a
// single column wider than width still gets a part).
func fitTable(t *experiments.Table, width int) ([][]byte, error) {
	whole, err := renderBox(t.Header, t.Rows)
	if err != nil || width <= 0 || textWidth(whole) <= width || len(t.Header) < 2 {
		return [][]byte{whole}, err
	}
	keys := t.Keys
	if keys <= 0 {
		keys = 1
	}
	if keys >= len(t.Header) {
		return [][]byte{whole}, nil
	}
	if _, _, out, err := wrapColumns(t.Header, t.Rows, keys, width); err != nil || out != nil {
		return [][]byte{out}, err
	}
	var parts [][]byte
	var group []int
	var last []byte
	flush := func() {
		parts = append(parts, last)
		group, last = group[:0], nil
	}
	for c := keys; c < len(t.Header); c++ {
		try := append(append([]int{}, group...), c)
		out, err := renderBox(pick(t.Header, keys, try), pickRows(t.Rows, keys, try))
		if err != nil {
			return nil, err
		}
		if textWidth(out) > width && len(group) > 0 {
			flush()
			try = []int{c}
			if out, err = renderBox(pick(t.Header, keys, try), pickRows(t.Rows, keys, try)); err != nil {
				return nil, err
			}
		}
		group, last = try, out
	}
	flush()
	return parts, nil
}

// pick returns the first keys cells of row followed by the cells at cols.
func pick(row []string, keys int, cols []int) []string {
	out := append([]string{}, row[:min(keys, len(row))]...)
	for _, c := range cols {
		if c < len(row) {
			out = append(out, row[c])
		} else {
			out = append(out, "")
		}
	}
	return out
}

func pickRows(rows [][]string, keys int, cols []int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = pick(r, keys, cols)
	}
	return out
}

// renderBox draws one box table.
func renderBox(header []string, rows [][]string) ([]byte, error) {
	var b bytes.Buffer
	tw := tablewriter.NewTable(&b, tablewriter.WithHeaderAutoFormat(twc.Off))
	tw.Header(anySlice(header)...)
	for _, r := range rows {
		if err := tw.Append(anySlice(r)...); err != nil {
			return nil, err
		}
	}
	if err := tw.Render(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// textWidth is the widest line of b in runes (the tables' box drawing and
// symbols are one column each).
func textWidth(b []byte) int {
	w := 0
	for _, line := range strings.Split(string(b), "\n") {
		w = max(w, utf8.RuneCountInString(line))
	}
	return w
}

// wrapCell wraps a table cell to width runes: at spaces, and inside a word
// longer than width.
func wrapCell(s string, width int) string {
	var words []string
	for _, w := range strings.Fields(s) {
		r := []rune(w)
		for len(r) > width {
			words, r = append(words, string(r[:width])), r[width:]
		}
		words = append(words, string(r))
	}
	return wrapText(strings.Join(words, " "), width)
}

// wrapText breaks s at spaces so that no line exceeds width runes (a word
// longer than width keeps its own line). width <= 0 leaves s alone.
func wrapText(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(s) {
		wl := utf8.RuneCountInString(word)
		switch {
		case n == 0:
		case n+1+wl > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += wl
	}
	return b.String()
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}
