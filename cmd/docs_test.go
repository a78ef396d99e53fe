package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDocsCLIUpToDate regenerates the command reference into a temporary
// directory and fails if docs/cli.md differs: run `fedcon docs --out docs`
// after changing a command, flag or help text.
func TestDocsCLIUpToDate(t *testing.T) {
	path, err := writeCLIDoc(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "docs", cliDocFile))
	if err != nil {
		t.Fatalf("%v: run 'go build -o bin/fedcon . && bin/fedcon docs --out docs'", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/cli.md is stale: run 'go build -o bin/fedcon . && bin/fedcon docs --out docs' and commit it")
	}
}

// TestDocsCommand: the hidden command writes the file and stays out of help.
func TestDocsCommand(t *testing.T) {
	f, out, _ := testFactory()
	dir := t.TempDir()
	if code := run(t.Context(), f, []string{"docs", "--out", dir}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, cliDocFile)); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	run(t.Context(), f, []string{"--help"})
	if bytes.Contains(out.Bytes(), []byte("docs")) {
		t.Fatalf("docs shows in --help:\n%s", out)
	}
}

// TestMarkdownText: placeholders in help texts survive Markdown (outside
// code spans < and > are escaped, inside they are literal).
func TestMarkdownText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"results/<name>/", "results/&lt;name&gt;/"},
		{"`a <b>` and <c>", "`a <b>` and &lt;c&gt;"},
		{"x | y <= z", "x \\| y &lt;= z"},
	} {
		if got := mdCell(tc.in); got != tc.want {
			t.Errorf("mdCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
