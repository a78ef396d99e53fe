// Package cmd is fedcon's command-line layer: it parses flags and config,
// calls into experiments/, and prints tables, JSON and figures. Nothing
// below this package prints or exits; Main owns the exit-code table.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Main runs fedcon with the process arguments and returns the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, newFactory(systemIO()), os.Args[1:])
}

// run executes args against f and maps the outcome to an exit code.
func run(ctx context.Context, f *Factory, args []string) int {
	f.args = args
	root := newCmdRoot(f)
	root.SetArgs(args)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	err := root.ExecuteContext(ctx)
	if f.stopProfile != nil {
		if perr := f.stopProfile(); err == nil {
			err = perr
		}
	}
	code := exitCode(err)
	switch {
	case err == nil, errors.Is(err, SilentError):
	case errors.Is(err, errDryRun):
		fmt.Fprintf(f.IO.ErrOut, "fedcon: %v\n", err) // the estimate rides on it
	case code == exitInterrupted:
		fmt.Fprintln(f.IO.ErrOut, "fedcon: interrupted; finished trials are kept on disk")
	default:
		fmt.Fprintf(f.IO.ErrOut, "fedcon: %v\n", err)
		var fe *FlagError
		if errors.As(err, &fe) && fe.usage != "" {
			fmt.Fprintf(f.IO.ErrOut, "run '%s --help' for usage\n", fe.usage)
		}
	}
	return code
}

func newCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "fedcon",
		Short: "Constrained federated learning: solvers, experiments and reproductions",
		Long: `fedcon trains models whose data stay split across clients while the objective
and the constraints are honoured (proximal augmented Lagrangian FL), and
reproduces the published tables and figures of the papers it implements.
Every reported solution is checked against its KKT conditions.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE:          requireSubcommand,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			wide, err := c.Flags().GetBool("wide")
			f.Wide = wide
			if err != nil {
				return err
			}
			path, _ := c.Flags().GetString("cpuprofile")
			if path == "" {
				return nil
			}
			f.stopProfile, err = startCPUProfile(path)
			return err
		},
	}
	root.SuggestionsMinimumDistance = suggestDistance
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// A mistyped command ("fedcon rnu np --dataset adult-a") leaves its
		// group to parse the subcommand's flags: name the command instead.
		if args := c.Flags().Args(); c.HasAvailableSubCommands() && len(args) > 0 {
			return requireSubcommand(c, args)
		}
		return &FlagError{err: err, usage: c.CommandPath()}
	})
	root.PersistentFlags().Bool("quiet", false, "print no progress")
	root.PersistentFlags().Bool("json", false, "print results as JSON instead of tables")
	root.PersistentFlags().Bool("wide", false, "print every table whole, every column (default: a compact view that fits the terminal, 100 columns when unknown)")
	root.PersistentFlags().String("data-dir", "", "directory with the raw data files (else $FEDCON_DATA_DIR, else the cache dir)")
	root.PersistentFlags().String("cpuprofile", "", "write a CPU profile of the command to `FILE` (read it with go tool pprof)")
	root.AddCommand(
		newCmdVersion(f),
		newCmdRun(f),
		newCmdReproduce(f),
		newCmdSweep(f, nil),
		newCmdData(f),
		newCmdCheck(f, nil),
		newCmdReport(f, nil),
		newCmdTune(f),
		newCmdServe(f),
		newCmdClient(f),
		newCmdCerts(f),
		newCmdDocs(f),
		newCmdMerge(f),
		newCmdStatus(f),
	)
	guardCommands(root)
	if err := presetDefaults(root); err != nil {
		panic(err) // an embedded preset that its configuration cannot read: caught by every test
	}
	wrapHelp(root)
	return root
}

// addWrapShort registers the help template's wrapShort function once.
var addWrapShort sync.Once

// helpWidth is the width help texts wrap at.
const helpWidth = 100

// wrapHelp wraps, in c and every command under it, the lines of Long and
// Example longer than helpWidth (at spaces, keeping their indentation) and
// the flag usages (pflag's FlagUsagesWrapped).
func wrapHelp(c *cobra.Command) {
	if !c.HasParent() {
		// cobra's template functions are one global map: registered once,
		// so that commands built concurrently (tests, servers) do not race.
		addWrapShort.Do(func() {
			cobra.AddTemplateFunc("wrapShort", func(short string, pad int) string {
				// "  name<pad> short": continuation lines under the short text.
				return strings.ReplaceAll(wrapText(short, helpWidth-pad-3), "\n", "\n"+strings.Repeat(" ", pad+3))
			})
		})
		c.SetUsageTemplate(strings.NewReplacer(
			"{{.LocalFlags.FlagUsages", fmt.Sprintf("{{(.LocalFlags.FlagUsagesWrapped %d)", helpWidth),
			"{{.InheritedFlags.FlagUsages", fmt.Sprintf("{{(.InheritedFlags.FlagUsagesWrapped %d)", helpWidth),
			"{{rpad .Name .NamePadding }} {{.Short}}", "{{rpad .Name .NamePadding }} {{wrapShort .Short .NamePadding}}",
		).Replace(c.UsageTemplate()))
	}
	if c.Long == "" && utf8.RuneCountInString(c.Short) > helpWidth {
		c.Long = c.Short // help prints Long, else Short
	}
	c.Long, c.Example = wrapLines(c.Long, helpWidth), wrapLines(c.Example, helpWidth)
	for _, s := range c.Commands() {
		wrapHelp(s)
	}
}

// wrapLines wraps each line of s longer than width at spaces, its
// continuation lines indented as it is.
func wrapLines(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if utf8.RuneCountInString(l) <= width {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		wrapped := strings.Split(wrapText(strings.TrimLeft(l, " "), width-len(indent)), "\n")
		for j := range wrapped {
			wrapped[j] = indent + wrapped[j]
		}
		lines[i] = strings.Join(wrapped, "\n")
	}
	return strings.Join(lines, "\n")
}
