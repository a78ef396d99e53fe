package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments"
)

// loadConfig fills cfg from, in increasing precedence: the embedded preset,
// --config FILE, o.overrides (a sweep point), FEDCON_* environment variables (envName), and the
// configuration flags (keyFlags) that were set on the command line, each
// setting its key; then o.adjust, if any. Unknown keys are errors that list
// the valid ones.
func loadConfig(f *Factory, o *commonOptions, preset string, cfg any) error {
	file := o.Config
	v := viper.New()
	v.SetConfigType("yaml")
	b, err := configs.Preset(preset)
	if err != nil {
		return err
	}
	if err := v.ReadConfig(bytes.NewReader(b)); err != nil {
		return fmt.Errorf("preset %s: %w", preset, err)
	}
	valid := v.AllKeys()
	slices.Sort(valid) // AllKeys' order is random
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return &FlagError{err: fmt.Errorf("--config: %w", err)}
		}
		if err := checkConfigYAML(file, data, cfg); err != nil {
			return err
		}
		if err := refuseUnused(f, o, cfg, data); err != nil {
			return err
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return &FlagError{err: fmt.Errorf("--config %s: %w", file, err)}
		}
	}
	if file == "" {
		if err := refuseUnused(f, o, cfg, nil); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.overrides)) {
		if err := checkOverride(k, o.overrides[k], cfg); err != nil {
			return err
		}
		v.Set(k, o.overrides[k])
	}
	for _, k := range valid {
		val := f.Getenv(envName(k))
		if val == "" {
			continue
		}
		if err := checkEnv(envName(k), k, val, cfg); err != nil {
			return err
		}
		list, isList := v.Get(k).([]any)
		if !isList {
			v.Set(k, val)
			continue
		}
		if len(list) > 0 {
			switch list[0].(type) {
			case map[string]any, []any:
				return &experiments.ConfigError{Field: envName(k), Value: val, Reason: "key " + k + " is a list of maps or lists: set it in a --config file"}
			}
		}
		parts := strings.Split(val, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		v.Set(k, parts)
	}
	o.flags.Visit(func(fl *pflag.Flag) {
		key := configKey(fl)
		if key != "" && o.batch && o.section != "" {
			key = flagKey(o.section, fl.Name)
		}
		if key == "" || keyType(cfg, key) == nil {
			// Read by the command's own code, or a flag of reproduce all
			// that this experiment does not read (refuseUnused refuses it
			// everywhere else).
			return
		}
		if cv, ok := fl.Value.(interface{ configValue() any }); ok {
			v.Set(key, cv.configValue())
			return
		}
		switch fl.Value.Type() {
		case "intSlice", "stringSlice", "float64Slice":
			s := strings.Trim(fl.Value.String(), "[]")
			v.Set(key, strings.Split(s, ","))
		default:
			v.Set(key, fl.Value.String())
		}
	})
	if err := v.UnmarshalExact(cfg, viper.DecodeHook(experiments.DecodeHook())); err != nil {
		var de *mapstructure.DecodeError
		if errors.As(err, &de) {
			// A value no source checked (the prechecks name the file, the
			// variable or the flag): name its key.
			return &FlagError{err: fmt.Errorf("config key %s: %w", de.Name(), unwrapAll(de))}
		}
		return &experiments.ConfigError{Field: "config", Value: file, Reason: fmt.Sprintf("%v (valid keys: %s)", unwrapAll(err), strings.Join(valid, ", "))}
	}
	if o.adjust != nil {
		o.adjust(cfg)
	}
	return experiments.CheckFinite(cfg)
}

// envName is the environment variable of config key k: FEDCON_ and the
// key upper-cased, a nested key's dots and any hyphens as underscores
// (figure1.seed: FEDCON_FIGURE1_SEED); a list is comma-separated.
func envName(k string) string {
	return "FEDCON_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(k))
}

func unwrapAll(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// workersFlag resolves --workers (0 = number of CPUs).
func workersFlag(f *Factory, w int) (int, error) {
	if w < 0 {
		return 0, flagErrorf("--workers %d: must be >= 0", w)
	}
	if w == 0 {
		return f.NumCPU, nil
	}
	return w, nil
}

// requireSubcommand makes a group command answer an unknown subcommand with
// a usage error (exit 2) instead of cobra's generic one.
func requireSubcommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return c.Help()
	}
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	what := "experiment"
	if !c.HasParent() {
		what = "command"
	}
	return &FlagError{err: fmt.Errorf("unknown %s %q for %q%s (valid: %s)", what, args[0], c.CommandPath(),
		didYouMean(args[0], names), strings.Join(names, ", ")), usage: c.CommandPath()}
}

// didYouMean is "; did you mean X?" naming the valid names closest to name
// (Levenshtein distance at most suggestDistance, or a prefix either way),
// or "" when none is close.
func didYouMean(name string, valid []string) string {
	var close []string
	for _, v := range valid {
		if d := levenshtein(strings.ToLower(name), strings.ToLower(v)); d <= suggestDistance ||
			len(name) > 1 && (strings.HasPrefix(v, name) || strings.HasPrefix(name, v)) {
			close = append(close, v)
		}
	}
	if len(close) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(close, " or ") + "?"
}

// suggestDistance is the largest edit distance of a suggestion: cobra's
// SuggestionsMinimumDistance, which the root sets to it.
const suggestDistance = 2

// levenshtein is the edit distance of a and b (insertions, deletions,
// substitutions), in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// presetKeys lists the configuration keys of an embedded preset.
func presetKeys(preset string) ([]string, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	b, err := configs.Preset(preset)
	if err != nil {
		return nil, err
	}
	if err := v.ReadConfig(bytes.NewReader(b)); err != nil {
		return nil, fmt.Errorf("preset %s: %w", preset, err)
	}
	keys := v.AllKeys()
	slices.Sort(keys)
	return keys, nil
}

// cellsValue is --cells: Table 4 cells as n x d x m̃ triples, "5x100x1,10x500x5".
type cellsValue [][]int

func (c *cellsValue) String() string {
	parts := make([]string, len(*c))
	for i, cell := range *c {
		parts[i] = strings.Trim(strings.Join(strings.Fields(fmt.Sprint(cell)), "x"), "[]")
	}
	return strings.Join(parts, ", ") // a space, so that help can wrap the preset's nine
}

func (c *cellsValue) Set(s string) error {
	*c = nil
	for _, part := range strings.Split(s, ",") {
		var n, d, m int
		if _, err := fmt.Sscanf(strings.TrimSpace(part), "%dx%dx%d", &n, &d, &m); err != nil {
			return fmt.Errorf("cell %q: want n x d x m̃ as in 5x100x1", part)
		}
		*c = append(*c, []int{n, d, m})
	}
	return nil
}

func (c *cellsValue) Type() string     { return "cells" }
func (c *cellsValue) configValue() any { return [][]int(*c) }
