package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
)

// DataDescribeOptions are the inputs of 'fedcon data describe'.
type DataDescribeOptions struct {
	IO       *IOStreams
	Dirs     []string // search path (datasets.SearchPath)
	Name     string   // the dataset
	NoVerify bool     // --no-verify
	JSON     bool     // --json
}

// NewCmdDataDescribe returns 'fedcon data describe'; runF replaces the run function in tests.
func NewCmdDataDescribe(f *Factory, runF func(*DataDescribeOptions) error) *cobra.Command {
	o := &DataDescribeOptions{IO: f.IO}
	c := &cobra.Command{
		Use:       "describe NAME",
		Short:     "Show a preprocessed dataset: rows, classes, features and per-feature statistics",
		Example:   "  fedcon data describe adult-b\n  fedcon data describe monks-1 --json\n  fedcon data describe fashion-mnist",
		ValidArgs: append(datasets.FetchNames(), "mnist"),
		Args:      dataOneName,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkDatasetArgs(c, args); err != nil {
				return err
			}
			o.Dirs, o.Name = dataDirs(f, c), args[0]
			o.JSON, _ = c.Flags().GetBool("json")
			if runF != nil {
				return runF(o)
			}
			return dataDescribeRun(o)
		},
	}
	c.Flags().BoolVar(&o.NoVerify, "no-verify", false, "use raw files whose checksum or record count differs from the pinned one")
	return c
}

func dataDescribeRun(o *DataDescribeOptions) error {
	if datasets.IsIDX(o.Name) {
		return dataDescribeIDX(o)
	}
	d, err := datasets.Load(o.Name, o.Dirs, loadOpts(o.NoVerify)...)
	if err != nil {
		return err
	}
	desc := datasets.Describe(d)
	if o.JSON {
		return printJSON(o.IO.Out, desc)
	}
	w := o.IO.Out
	fmt.Fprintf(w, "dataset   %s: %s\n", d.Name, datasets.Summary(d.Name))
	fmt.Fprintf(w, "files     %s\n", strings.Join(d.Files, ", "))
	fmt.Fprintf(w, "label     %s\n", d.Label)
	fmt.Fprintf(w, "rows      %s\n", describeRows(desc))
	if desc.Groups != nil {
		fmt.Fprintf(w, "groups    %s (sex: 0 = Female, 1 = Male; column %d, %s)\n",
			countsString(desc.Groups), d.GroupColumn, d.FeatureNames[d.GroupColumn])
	}
	fmt.Fprintf(w, "features  %d columns, the last the intercept; %d standardised with their own rows' mean and std\n",
		desc.Features, len(d.Scalings))
	if desc.Server != nil {
		fmt.Fprintf(w, "server    %s; standardised with the client rows' statistics\n", describeRows(desc.Server))
		if desc.Server.Groups != nil {
			fmt.Fprintf(w, "          groups %s\n", countsString(desc.Server.Groups))
		}
	}
	fmt.Fprintln(w)
	t := dataTable(w, "#", "feature", "min", "max", "mean", "std")
	for j, c := range desc.Columns {
		if err := t.Append(strconv.Itoa(j), c.Name, fmtNum(c.Min), fmtNum(c.Max), fmtNum(c.Mean), fmtNum(c.Std)); err != nil {
			return err
		}
	}
	return t.Render()
}

// describeRows is "N (K dropped), classes ...".
func describeRows(d *datasets.Description) string {
	s := fmt.Sprintf("%d (%d raw records dropped)", d.Rows, d.Dropped)
	if d.Classes != nil {
		s += ", classes " + countsString(d.Classes)
	}
	if d.Target != nil {
		s += fmt.Sprintf(", target min %s max %s mean %s std %s",
			fmtNum(d.Target.Min), fmtNum(d.Target.Max), fmtNum(d.Target.Mean), fmtNum(d.Target.Std))
	}
	return s
}

// countsString is "0: 444, 1: 239".
func countsString(cs []datasets.ClassCount) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%v: %d", c.Label, c.Count))
	}
	return strings.Join(parts, ", ")
}

// fmtNum formats a statistic with 4 significant digits.
func fmtNum(v float64) string {
	if v != v {
		return "-"
	}
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// dataDescribeIDX describes an idx data set: files, images per label, pixels.
func dataDescribeIDX(o *DataDescribeOptions) error {
	if !o.NoVerify {
		if _, err := datasets.CheckFiles([]string{o.Name}, o.Dirs); err != nil {
			return err
		}
	}
	set, err := datasets.LoadIDXSet(o.Name, datasets.IDXSearchPath(o.Name, o.Dirs), 10)
	if err != nil {
		return err
	}
	desc := datasets.DescribeIDX(set)
	if o.JSON {
		return printJSON(o.IO.Out, desc)
	}
	w := o.IO.Out
	total := func(cs []datasets.ClassCount) int {
		n := 0
		for _, c := range cs {
			n += c.Count
		}
		return n
	}
	fmt.Fprintf(w, "dataset   %s: %s\n", desc.Name, datasets.Summary(desc.Name))
	for i, p := range desc.Files {
		head := "files     "
		if i > 0 {
			head = "          "
		}
		fmt.Fprintf(w, "%s%s\n", head, p)
	}
	perLabel := func(cs []datasets.ClassCount) string {
		for _, c := range cs {
			if c.Count != cs[0].Count {
				return "per label " + countsString(cs)
			}
		}
		return fmt.Sprintf("%d per label (%d labels)", cs[0].Count, len(cs))
	}
	fmt.Fprintf(w, "train     %d images, %s\n", total(desc.Train), perLabel(desc.Train))
	fmt.Fprintf(w, "test      %d images, %s\n", total(desc.Test), perLabel(desc.Test))
	fmt.Fprintf(w, "pixels    %d per image (grey 0..255, read as value/255); %.1f%% of the training pixels are non-zero\n",
		desc.Pixels, 100*desc.Density)
	return nil
}
