package cmd

import "github.com/spf13/cobra"

// newCmdRun groups the single-experiment commands (one configuration, a few trials).
func newCmdRun(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "run",
		Short: "Solve one experiment configuration and print its result row",
		Args:  cobra.ArbitraryArgs,
		RunE:  requireSubcommand,
	}
	c.AddCommand(newCmdRunQP(f, nil), newCmdRunNP(f, nil), newCmdRunFair(f, nil), newCmdRunSSCA(f, nil), newCmdRunDRFL(f, nil))
	return c
}
