package cmd

import (
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// keyFlagAnnotation marks a configuration flag, one whose value reaches a
// run only as a configuration key, and names that key.
const keyFlagAnnotation = "fedcon-config-key"

// keyFlags marks the flags add creates on c as configuration flags: each
// sets the key flagKey("", name) (--max-outer sets max_outer), and loadConfig
// refuses one set on the command line that the run does not read
// (refuseUnused). The command's other flags are read by its own code.
func keyFlags(c *cobra.Command, add func(fl *pflag.FlagSet)) {
	keyFlagsUnder(c, "", add)
}

// keyFlagsUnder is keyFlags for the keys of a nested section: each flag
// sets flagKey(prefix, name) (drfl-figure1's --runs sets figure1.runs).
func keyFlagsUnder(c *cobra.Command, prefix string, add func(fl *pflag.FlagSet)) {
	fl := c.Flags()
	before := map[string]bool{}
	fl.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	add(fl)
	fl.VisitAll(func(f *pflag.Flag) {
		if !before[f.Name] {
			_ = fl.SetAnnotation(f.Name, keyFlagAnnotation, []string{flagKey(prefix, f.Name)})
		}
	})
}

// flagKey is the rule from a configuration flag's name to its key: the
// name with each - as _, after prefix.
func flagKey(prefix, name string) string {
	return prefix + strings.ReplaceAll(name, "-", "_")
}

// configKey is the key that configuration flag fl sets, or "" when fl is
// read by the command's own code.
func configKey(fl *pflag.Flag) string {
	if a := fl.Annotations[keyFlagAnnotation]; len(a) > 0 {
		return a[0]
	}
	return ""
}

// ownKeyAnnotation names the key that a flag read by the command's own code
// stands for (--U sets u), so that refuseUnused refuses it as it would that
// key's configuration flag.
const ownKeyAnnotation = "fedcon-own-key"

// ownKeyFlag marks flag name of c as standing for key.
func ownKeyFlag(c *cobra.Command, name, key string) {
	_ = c.Flags().SetAnnotation(name, ownKeyAnnotation, []string{key})
}

// ignoreFlags records configuration keys that the run about to load does not
// read but that --config and FEDCON_* may still set: a figure's --config
// and environment may hold its paper's whole preset, shared by every command
// of the paper, so only a flag set on this command line is a mistake.
func (o *commonOptions) ignoreFlags(why map[string]string) {
	if o.ignoreFlag == nil {
		o.ignoreFlag = map[string]string{}
	}
	maps.Copy(o.ignoreFlag, why)
}

// ignoreKeys records configuration keys that the run about to load does not
// read, each with the reason: refuseUnused refuses them on the command
// line, in --config and in the environment.
func (o *commonOptions) ignoreKeys(why map[string]string) {
	if o.ignore == nil {
		o.ignore = map[string]string{}
	}
	maps.Copy(o.ignore, why)
}

// what names the command in a refusal: its path and what narrows it.
func (o *commonOptions) what() string {
	s := "this command"
	if o.cmd != nil {
		s = o.cmd.CommandPath()
	}
	if o.scope != "" {
		s += " " + o.scope
	}
	return s
}

// refuseUnused is the rule that a command accepts only the flags and keys
// its experiment uses: a configuration flag set on the command line must set
// a key of cfg that the run reads (not in o.ignore or
// o.ignoreFlag), a flag standing for a key (ownKeyFlag) may not stand for
// an ignored one, and a key in o.ignore may not be set in --config (data) or
// the environment either. Under reproduce all (o.batch) its flags (--trials,
// --seed) are shared by every experiment, each reading what it uses
// ("figures always run one"), so they are not refused there.
func refuseUnused(f *Factory, o *commonOptions, cfg any, data []byte) error {
	var err error
	if o.flags != nil && !o.batch {
		o.flags.Visit(func(fl *pflag.Flag) {
			if err != nil {
				return
			}
			key := configKey(fl)
			if own := fl.Annotations[ownKeyAnnotation]; own != nil {
				key = own[0]
			} else if key == "" {
				return
			}
			why, ignored := o.ignore[key]
			if !ignored {
				why, ignored = o.ignoreFlag[key]
			}
			switch {
			case keyType(cfg, key) == nil:
				err = flagErrorf("--%s: %s does not use it", fl.Name, o.what())
			case ignored:
				err = flagErrorf("--%s: %s does not use it (%s)", fl.Name, o.what(), why)
			}
		})
	}
	if err != nil || len(o.ignore) == 0 {
		return err
	}
	var file map[string]any
	_ = yaml.Unmarshal(data, &file) // checkConfigYAML has checked it
	for _, k := range slices.Sorted(maps.Keys(o.ignore)) {
		if _, ok := file[k]; ok {
			return flagErrorf("--config %s: key %s: %s does not use it (%s)", o.Config, k, o.what(), o.ignore[k])
		}
		if v := f.Getenv(envName(k)); v != "" {
			return flagErrorf("environment %s=%s (key %s): %s does not use it (%s)", envName(k), v, k, o.what(), o.ignore[k])
		}
	}
	return nil
}
