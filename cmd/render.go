package cmd

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	twc "github.com/olekukonko/tablewriter/tw"

	"github.com/fedcon/fedcon/experiments"
)

// printTables renders tables for the terminal.
func printTables(w io.Writer, tables ...*experiments.Table) error {
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if t.Title != "" {
			fmt.Fprintln(w, t.Title)
		}
		tw := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(twc.Off))
		tw.Header(anySlice(t.Header)...)
		for _, r := range t.Rows {
			if err := tw.Append(anySlice(r)...); err != nil {
				return err
			}
		}
		if err := tw.Render(); err != nil {
			return err
		}
		for _, n := range t.Notes {
			fmt.Fprintln(w, n)
		}
	}
	return nil
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
