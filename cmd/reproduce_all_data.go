package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fedcon/fedcon/datasets"
)

// allJobData names the data sets each job reads (datasets.FetchNames);
// jobs on synthetic data have none. TestAllJobData checks them against
// the presets.
var allJobData = map[string][]string{
	"table3": npData, "table4": nil, "table2-authors": {"adult-b"}, "figure2-authors": {"adult-b"},
	"figure1": npData, "table1": npData,
	"ssca-figure2": {"fashion-mnist"}, "ssca-figure3": {"fashion-mnist"}, "ssca-figure4": {"fashion-mnist"},
	"table2": {"adult-b"}, "figure2": {"adult-b"}, "drfl-figure1": nil,
	"drfl-figure2": {"heart", "abalone"}, "drfl-figure3": {"breast-cancer-wisc"},
	"drfl-figure4": {"breast-cancer-wisc"}, "drfl-figure5": {"heart"},
	"conic-table1": nil, "conic-table2": npData, "conic-table3": {"adult-b"},
	"conic-figure1": npData, "conic-figure2": {"adult-b"},
}

// npData are the Neyman-Pearson data sets of Tables 1 and 3 and Figure 1.
var npData = []string{"breast-cancer-wisc", "adult-a", "monks-1"}

// allData makes sure the data sets of jobs are on the search path: the
// missing ones are fetched (unless --no-fetch) into o.FetchDir, with one
// line saying what came from where. It returns those still missing.
func allData(f *Factory, o *AllOptions, jobs []allJob) ([]string, error) {
	var need []string
	for _, j := range jobs {
		for _, n := range allJobData[j.name] {
			if !slices.Contains(need, n) {
				need = append(need, n)
			}
		}
	}
	missing, err := datasets.Missing(need, o.Dirs)
	if err != nil || len(missing) == 0 {
		return nil, err
	}
	if o.NoFetch {
		fmt.Fprintf(f.IO.ErrOut, "data: missing %s (--no-fetch): the experiments that need them are skipped\n", strings.Join(missing, ", "))
		return missing, nil
	}
	fe := o.fetcher
	if fe == nil {
		fe = &datasets.Fetcher{}
	}
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := fe.Ensure(ctx, o.FetchDir, o.Dirs, missing)
	if err != nil {
		return nil, err
	}
	if len(res.Fetched) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "data: fetched %s into %s (%.1f MB, checksums verified)\n",
			strings.Join(res.Fetched, ", "), res.Dir, float64(res.Bytes)/1e6)
	}
	var still []string
	for _, n := range missing {
		if err, ok := res.Failed[n]; ok {
			still = append(still, n)
			fmt.Fprintf(f.IO.ErrOut, "data: %s is missing and could not be fetched (%v): the experiments that need it are skipped\n", n, err)
		}
	}
	return still, nil
}

// missingOf returns the names of need that are in missing.
func missingOf(need, missing []string) []string {
	var out []string
	for _, n := range need {
		if slices.Contains(missing, n) {
			out = append(out, n)
		}
	}
	return out
}

// missingDataError is a job skipped for want of data.
type missingDataError struct{ names []string }

func (e *missingDataError) Error() string {
	return "skipped: data set " + strings.Join(e.names, ", ") + " not found and not fetched (see 'fedcon data fetch')"
}
