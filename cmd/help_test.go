package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Every command's --help fits helpWidth columns: the long text, the
// examples, the list of subcommands and the flags.
func TestHelpFitsWidth(t *testing.T) {
	f, _, _ := testFactory()
	root := newCmdRoot(f)
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		var b bytes.Buffer
		c.SetOut(&b)
		if err := c.Help(); err != nil {
			t.Fatal(err)
		}
		n++
		for i, line := range strings.Split(b.String(), "\n") {
			if w := utf8.RuneCountInString(line); w > helpWidth {
				t.Errorf("%s --help line %d is %d columns: %q", c.CommandPath(), i+1, w, line)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	if n < 40 {
		t.Errorf("walked %d commands, want every one (more than 40)", n)
	}
}

func TestWrapLines(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short\nlines stay", 20, "short\nlines stay"},
		{"one two three four", 9, "one two\nthree\nfour"},
		{"  indented words wrap here", 14, "  indented\n  words wrap\n  here"},
		{"averyveryverylongword stays", 8, "averyveryverylongword\nstays"},
	}
	for _, tt := range tests {
		if got := wrapLines(tt.in, tt.width); got != tt.want {
			t.Errorf("wrapLines(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

// A mistyped command or experiment is one line naming the closest valid
// names, exit 2.
func TestSuggestions(t *testing.T) {
	tests := []struct {
		args []string
		want string // in the error line; "" means no suggestion
	}{
		{[]string{"rnu", "np", "--dataset", "adult-a"}, `unknown command "rnu" for "fedcon"; did you mean run?`},
		{[]string{"rnu"}, `did you mean run?`},
		{[]string{"dat", "list"}, `did you mean data?`},
		{[]string{"reproduce", "tabel4"}, `unknown experiment "tabel4" for "fedcon reproduce"; did you mean table4?`},
		{[]string{"reproduce", "figure"}, `did you mean figure1 or figure2?`},
		{[]string{"run", "nq"}, `did you mean np or qp?`},
		{[]string{"reproduce", "all", "--only", "tabel4"}, `--only tabel4: unknown; did you mean table4?`},
		{[]string{"xyzzy"}, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, out, errOut := testFactory()
			code := run(context.Background(), f, tt.args)
			msg := errOut.String()
			first, _, _ := strings.Cut(msg, "\n")
			if code != exitUsage || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, msg)
			}
			if tt.want == "" {
				if strings.Contains(msg, "did you mean") {
					t.Errorf("unexpected suggestion: %q", msg)
				}
				return
			}
			if !strings.Contains(first, tt.want) {
				t.Errorf("first line %q lacks %q", first, tt.want)
			}
		})
	}
}

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"run", "run", 0}, {"rnu", "run", 2}, {"tabel4", "table4", 2}, {"np", "qp", 1}, {"", "abc", 3}, {"ρ", "p", 1},
	}
	for _, tt := range tests {
		if got := levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
