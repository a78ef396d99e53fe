package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/drfl"
)

// resultsDir is the one rule from --out and --quick to the directory that
// holds a run's results, for every command that writes or reads them: the
// smoke run lives in <out>/quick/, unless <out> already names it.
func resultsDir(out string, quick bool) string {
	if quick && filepath.Base(filepath.Clean(out)) != "quick" {
		return filepath.Join(out, "quick")
	}
	return out
}

// guardCommands makes every command of root check, before its RunE does any
// work: positional arguments (a usage error, exit 2), every float flag set
// on the command line (finite), and --out (a directory, or creatable as one).
func guardCommands(root *cobra.Command) {
	for _, c := range root.Commands() {
		guardCommands(c)
	}
	if args := root.Args; args != nil {
		root.Args = func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				return &FlagError{err: err, usage: c.CommandPath()}
			}
			return nil
		}
	}
	if run := root.RunE; run != nil {
		root.RunE = func(c *cobra.Command, a []string) error {
			if err := checkFlags(c.Flags()); err != nil {
				return err
			}
			return run(c, a)
		}
	}
}

// checkFlags rejects non-finite float flags and an --out that is a file.
func checkFlags(fl *pflag.FlagSet) error {
	var err error
	fl.Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		switch f.Value.Type() {
		case "float64", "float32":
			v, perr := strconv.ParseFloat(f.Value.String(), 64)
			if perr == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				err = flagErrorf("--%s %s: must be a finite number", f.Name, f.Value)
			}
		case "float64Slice":
			for _, s := range strings.Split(strings.Trim(f.Value.String(), "[]"), ",") {
				v, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if perr == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
					err = flagErrorf("--%s %s: must be finite numbers", f.Name, f.Value)
				}
			}
		}
	})
	if err != nil {
		return err
	}
	// An --out that is off by default (run drfl) is checked when given.
	if out := fl.Lookup("out"); out != nil && (out.Changed || out.DefValue != "") {
		return checkOutDir(out.Value.String())
	}
	return nil
}

// checkOutDir accepts a directory, or a path whose first existing ancestor
// is one (the run creates the rest).
func checkOutDir(dir string) error {
	if dir == "" {
		return flagErrorf("--out: empty path")
	}
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			if p == filepath.Clean(dir) {
				return flagErrorf("--out %s: is a file, not a directory", dir)
			}
			return flagErrorf("--out %s: %s is a file, not a directory", dir, p)
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return flagErrorf("--out %s: %v", dir, err)
		}
		if parent := filepath.Dir(p); parent == p {
			return nil
		}
	}
}

// Resource limits of the pre-flight check: FEDCON_MAX_MEMORY (bytes, or
// with a K/M/G/T suffix; default: the machine's available memory) and
// FEDCON_MAX_TIME (a Go duration such as 90m; default 2h) above which a
// command asks for --yes.
const defaultMaxTime = 2 * time.Hour

// memAvailable is the memory the machine can give a new process: Linux's
// MemAvailable; ok is false where it cannot be read (no limit is applied).
func memAvailable() (avail float64, ok bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

// parseBytes reads "512M", "8G", "1.5T" or a plain byte count.
func parseBytes(s string) (float64, error) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(s), "B"), "I"))
	mult := 1.0
	if n := len(s); n > 0 {
		if i := strings.IndexByte("KMGT", s[n-1]); i >= 0 {
			mult = math.Pow(1024, float64(i+1))
			s = s[:n-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a size > 0 such as 8G")
	}
	return v * mult, nil
}

// addYesFlag adds --yes to the commands that estimate their cost.
func addYesFlag(c *cobra.Command, o *commonOptions) {
	c.Flags().BoolVar(&o.Yes, "yes", false, "run even when the estimated wall time exceeds FEDCON_MAX_TIME (default 2h)")
}

// RefusedError is a command refused before any work because of what it
// would need (memory, time): exit 1, one line saying how much.
type RefusedError struct{ msg string }

func (e *RefusedError) Error() string { return e.msg }

// checkCost refuses a command whose estimated memory exceeds the limit,
// and one whose estimated wall time (cost over workers) exceeds the time
// limit unless --yes was given.
func checkCost(f *Factory, o *commonOptions, what string, c experiments.Cost, workers int) error {
	if err := checkMemory(f, what, c); err != nil {
		return err
	}
	maxTime := defaultMaxTime
	if s := f.Getenv("FEDCON_MAX_TIME"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return &FlagError{err: fmt.Errorf("environment FEDCON_MAX_TIME=%s: want a duration > 0 such as 90m", s)}
		}
		maxTime = d
	}
	wall := c.Seconds / float64(max(1, workers))
	if !o.Yes && wall > maxTime.Seconds() {
		return &RefusedError{fmt.Sprintf("%s would take about %s with %d workers, over the %s limit (FEDCON_MAX_TIME): rerun with --yes to run it anyway (model: %s)",
			what, formatSeconds(wall), workers, maxTime, c.Model)}
	}
	if o.DryRun {
		w := "workers"
		if workers == 1 {
			w = "worker"
		}
		return fmt.Errorf("%w; %s: about %s with %d %s (%s of CPU), %s of memory",
			errDryRun, what, formatSeconds(wall), workers, w, formatSeconds(c.Seconds), experiments.FormatBytes(c.Bytes))
	}
	return nil
}

// errDryRun stops a --dry-run once everything before the work is checked:
// exit 0, nothing computed or written.
var errDryRun = errors.New("dry run: configuration, shard and cost checked; nothing computed or written")

// checkMemory refuses a command whose estimated memory exceeds the limit.
func checkMemory(f *Factory, what string, c experiments.Cost) error {
	limit, ok := memAvailable()
	src := "available (MemAvailable)"
	if s := f.Getenv("FEDCON_MAX_MEMORY"); s != "" {
		v, err := parseBytes(s)
		if err != nil {
			return &FlagError{err: fmt.Errorf("environment FEDCON_MAX_MEMORY=%s: %v", s, err)}
		}
		limit, ok, src = v, true, "allowed by FEDCON_MAX_MEMORY"
	}
	if ok && c.Bytes > limit {
		return &RefusedError{fmt.Sprintf("%s needs about %s of memory, %s %s: refused (model: %s)",
			what, experiments.FormatBytes(c.Bytes), experiments.FormatBytes(limit), src, c.Model)}
	}
	return nil
}

// formatSeconds renders s as "3.2 h", "14 min" or "12 s".
func formatSeconds(s float64) string {
	switch {
	case s >= 2*86400:
		return fmt.Sprintf("%.1f days", s/86400)
	case s >= 3600:
		return fmt.Sprintf("%.1f h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.0f s", s)
}

// checkDRFLNoiseCost refuses a DRFL noise figure over the memory or time
// limits before its first fit. The paper's data sets have known shapes;
// another is loaded (a DRFL data set is small). A fit solves its S clients
// at once at most.
func checkDRFLNoiseCost(f *Factory, o *DRFLNoiseOptions) error {
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	var total experiments.Cost
	for _, fig := range o.Cfg.FigureRows(o.Name) {
		rows, cols, regression, ok := drfl.DatasetShape(fig.Dataset)
		if !ok {
			d, err := experiments.Interruptible(o.ctx, func() (*datasets.Dataset, error) { return datasets.Load(fig.Dataset, o.Dirs) })
			if err != nil {
				return err
			}
			rows, cols = d.X.Dims()
			regression = d.Regression
		}
		cfg, err := drflNoiseConfig(o, fig, regression)
		if err != nil {
			return err
		}
		cost := cfg.Cost(rows, cols, regression)
		total.Bytes = max(total.Bytes, cost.Bytes)
		total.Seconds += cost.Seconds
		total.Model = cost.Model
	}
	shard, err := parseShardFlag(f, o.Shard)
	if err != nil {
		return err
	}
	if shard != nil { // a shard computes about 1/N of the repetitions
		total.Seconds /= float64(shard.N)
	}
	return checkCost(f, &o.commonOptions, "reproduce "+o.Name, total, min(workers, max(1, o.Cfg.Clients)))
}
