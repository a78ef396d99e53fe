package cmd

import "github.com/spf13/cobra"

// newCmdReproduce groups the commands that regenerate the papers' tables and figures.
func newCmdReproduce(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "reproduce",
		Short: "Reproduce a published table or figure",
		Args:  cobra.ArbitraryArgs,
		RunE:  requireSubcommand,
	}
	c.AddCommand(newCmdReproduceTable4(f, nil), newCmdReproduceTable1(f, nil), newCmdReproduceFigure1(f, nil),
		newCmdReproduceTable2(f, nil), newCmdReproduceFigure2(f, nil))
	c.AddCommand(newCmdReproduceTable3(f), newCmdReproduceAll(f, nil))
	for _, fig := range []string{"figure2", "figure3", "figure4", "all"} {
		c.AddCommand(newCmdReproduceSSCA(f, fig, nil))
	}
	c.AddCommand(newCmdReproduceConicTable1(f, nil), newCmdReproduceConicTable2(f, nil), newCmdReproduceConicTable3(f, nil),
		newCmdReproduceConicFigure1(f, nil), newCmdReproduceConicFigure2(f, nil))
	c.AddCommand(newCmdReproduceDRFLFigure1(f, nil), newCmdReproduceDRFLNoise(f, "drfl-figure2", nil),
		newCmdReproduceDRFLNoise(f, "drfl-figure3", nil),
		newCmdReproduceDRFLNoise(f, "drfl-figure4", nil), newCmdReproduceDRFLNoise(f, "drfl-figure5", nil))
	return c
}
