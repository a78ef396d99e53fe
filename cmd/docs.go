package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliDocFile is the generated reference, relative to the --out directory.
const cliDocFile = "cli.md"

// newCmdDocs is the hidden `fedcon docs --out DIR`: it writes DIR/cli.md,
// the command reference generated from the cobra tree, so that docs/cli.md
// cannot drift from the code (TestDocsCLIUpToDate regenerates and compares).
func newCmdDocs(f *Factory) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:    "docs",
		Short:  "Write the command reference (cli.md) generated from the command tree",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			path, err := writeCLIDoc(out)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(f.IO.Out, "wrote %s\n", path)
			return err
		},
	}
	c.Flags().StringVar(&out, "out", "docs", "directory to write cli.md into")
	return c
}

// writeCLIDoc renders the reference from a fresh command tree (with a fixed
// factory, so that nothing of this machine enters it) into dir/cli.md.
func writeCLIDoc(dir string) (string, error) {
	f := newFactory(systemIO())
	f.Getenv = func(string) string { return "" }
	f.NumCPU = 1
	f.Version = "devel"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, cliDocFile)
	return path, os.WriteFile(path, renderCLIDoc(newCmdRoot(f)), 0o644)
}

// renderCLIDoc walks root depth first, commands in name order, and writes
// one section per visible command: use line, description, examples, flags.
func renderCLIDoc(root *cobra.Command) []byte {
	var b bytes.Buffer
	b.WriteString("# Command reference\n\n")
	b.WriteString("Generated from the command tree by `fedcon docs --out docs`; do not edit by hand.\n")
	b.WriteString("`go test ./cmd -run Docs` fails when this file differs from the code.\n\n")
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		all = append(all, c)
		kids := append([]*cobra.Command(nil), c.Commands()...)
		sort.Slice(kids, func(i, j int) bool { return kids[i].Name() < kids[j].Name() })
		for _, k := range kids {
			walk(k)
		}
	}
	walk(root)
	b.WriteString("## Exit codes\n\n| code | meaning | commands |\n|---|---|---|\n")
	for _, e := range exitTable {
		fmt.Fprintf(&b, "| %d | %s | %s |\n", e.code, mdCell(e.meaning), mdCell(e.commands))
	}
	b.WriteString("\n## Commands\n\n| command | what it does |\n|---|---|\n")
	for _, c := range all {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", c.CommandPath(), anchor(c.CommandPath()), mdCell(c.Short))
	}
	for _, c := range all {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n```\n%s\n```\n", c.CommandPath(), mdText(c.Short), c.UseLine())
		if long := strings.TrimSpace(c.Long); long != "" && long != c.Short {
			fmt.Fprintf(&b, "\n%s\n", mdText(long))
		}
		if ex := strings.TrimRight(c.Example, " \n"); ex != "" {
			fmt.Fprintf(&b, "\nExamples:\n\n```\n%s\n```\n", ex)
		}
		if subs := visible(c.Commands()); len(subs) > 0 {
			b.WriteString("\nSubcommands: ")
			for i, s := range subs {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "[`%s`](#%s)", s.Name(), anchor(s.CommandPath()))
			}
			b.WriteString(".\n")
		}
		writeFlags(&b, "Flags", c.NonInheritedFlags())
		if c != root {
			writeFlags(&b, "Global flags", c.InheritedFlags())
		}
	}
	return b.Bytes()
}

// writeFlags writes one table row per visible flag: name, default, usage.
func writeFlags(b *bytes.Buffer, title string, fs *pflag.FlagSet) {
	var rows []string
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Name == "help" {
			return
		}
		name := "`--" + fl.Name + "`"
		if fl.Shorthand != "" {
			name = "`-" + fl.Shorthand + "`, " + name
		}
		def, usage := fl.DefValue, fl.Usage
		if a := fl.Annotations[defaultTextAnnotation]; len(a) == 2 {
			// A default pflag cannot print (one per preset): the text, in
			// the default column only.
			def, usage = a[0], strings.TrimSuffix(usage, a[1])
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |", name, mdCell(def), mdCell(usage)))
			return
		}
		switch {
		case def == "" || def == "[]":
			def = ""
		case fl.Value.Type() == "string":
			def = "`\"" + def + "\"`"
		default:
			def = "`" + def + "`"
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s |", name, def, mdCell(usage)))
	})
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n\n| flag | default | meaning |\n|---|---|---|\n%s\n", title, strings.Join(rows, "\n"))
}

func visible(cs []*cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range cs {
		if !c.Hidden && c.Name() != "help" && c.Name() != "completion" {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// anchor is GitHub's heading anchor for "## fedcon run np".
func anchor(path string) string {
	return strings.ReplaceAll(strings.ToLower(path), " ", "-")
}

// mdCell makes text safe for one Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	return mdText(strings.ReplaceAll(s, "|", `\|`))
}

// mdText escapes < and > outside code spans: help texts write placeholders
// such as results/<name>/, which Markdown would take for HTML tags and drop.
func mdText(s string) string {
	var b strings.Builder
	code := false
	for _, r := range s {
		switch {
		case r == '`':
			code = !code
			b.WriteRune(r)
		case r == '<' && !code:
			b.WriteString("&lt;")
		case r == '>' && !code:
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
