package experiments

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	twc "github.com/olekukonko/tablewriter/tw"
)

// Table is a rendered result table: what the terminal, Markdown and CSV
// outputs show.
type Table struct {
	Title  string     `json:"title"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	// Notes are printed under the table (how statistics were computed, flags).
	Notes []string `json:"notes,omitempty"`
	// Keys is how many leading columns identify a row (dataset, n, ...): a
	// terminal too narrow for the whole table repeats them in every part.
	// Zero means one.
	Keys int `json:"-"`
	// Brief, when set, is what the terminal shows by default in place of
	// this table: the key columns and the few a reader compares (the
	// objective of each algorithm, the constraint's worst value, the
	// flags). --wide and the result files show every column.
	Brief *Table `json:"-"`
	// Detail marks a table the terminal shows only under --wide: the Brief
	// of a table before it carries what matters of it.
	Detail bool `json:"-"`
}

// Pick returns a table with t's title, notes and key columns followed by
// the columns named in cols (headers of t), for a Brief. It panics on a
// name that is not a header of t: the callers name their own columns.
func (t *Table) Pick(cols ...string) *Table {
	keys := max(t.Keys, 1)
	idx := make([]int, 0, keys+len(cols))
	for c := 0; c < keys && c < len(t.Header); c++ {
		idx = append(idx, c)
	}
	for _, name := range cols {
		c := slices.Index(t.Header, name)
		if c < 0 {
			panic(fmt.Sprintf("experiments: Pick: no column %q in %q", name, t.Header))
		}
		idx = append(idx, c)
	}
	out := &Table{Title: t.Title, Keys: t.Keys, Notes: slices.Clone(t.Notes)}
	for _, c := range idx {
		out.Header = append(out.Header, t.Header[c])
	}
	for _, r := range t.Rows {
		row := make([]string, len(idx))
		for i, c := range idx {
			if c < len(r) {
				row[i] = r[c]
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// Markdown renders t as a Markdown table with its title and notes.
func (t *Table) Markdown() string {
	var b bytes.Buffer
	if t.Title != "" {
		fmt.Fprintf(&b, "**%s**\n\n", t.Title)
	}
	tw := tablewriter.NewTable(&b, tablewriter.WithRenderer(renderer.NewMarkdown()), tablewriter.WithHeaderAutoFormat(twc.Off))
	tw.Header(toAny(t.Header)...)
	for _, r := range t.Rows {
		_ = tw.Append(toAny(r)...)
	}
	_ = tw.Render()
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "\n%s\n", n)
	}
	return b.String()
}

// CSV renders t as CSV (header, then rows).
func (t *Table) CSV() string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(t.Header)
	_ = w.WriteAll(t.Rows)
	return b.String()
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// WriteAtomic writes data to path through a temporary file and a rename, so
// that an interrupted run never leaves a half-written file.
func WriteAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("experiments: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("experiments: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("experiments: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("experiments: write %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; results are meant to be shared.
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("experiments: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("experiments: %w", err)
	}
	return nil
}

// WriteOutputs writes base.json (doc, indented), base.csv and base.md (the
// tables) into dir and returns the paths written.
func WriteOutputs(dir, base string, doc any, tables ...*Table) ([]string, error) {
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("experiments: encode %s.json: %w", base, err)
	}
	var md, csvs strings.Builder
	for i, t := range tables {
		if i > 0 {
			md.WriteString("\n")
			csvs.WriteString("\n")
		}
		md.WriteString(t.Markdown())
		csvs.WriteString(t.CSV())
	}
	var paths []string
	for _, f := range []struct {
		ext  string
		data []byte
	}{{"json", append(js, '\n')}, {"csv", []byte(csvs.String())}, {"md", []byte(md.String())}} {
		p := filepath.Join(dir, base+"."+f.ext)
		if err := WriteAtomic(p, f.data); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// Sci formats a small statistic the way the paper prints it (2 significant
// decimals in scientific notation).
func Sci(x float64) string { return fmt.Sprintf("%.2e", x) }

// Ms formats "mean (std)" with the mean to prec decimals.
func Ms(v MeanStd, prec int) string {
	return fmt.Sprintf("%.*f (%s)", prec, v.Mean, Sci(v.Std))
}

// MsSci formats "mean (std)" both in scientific notation.
func MsSci(v MeanStd) string { return fmt.Sprintf("%s (%s)", Sci(v.Mean), Sci(v.Std)) }

// WriteJSON writes doc as indented JSON to path, atomically.
func WriteJSON(path string, doc any) error {
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("experiments: encode %s: %w", path, err)
	}
	return WriteAtomic(path, append(js, '\n'))
}
