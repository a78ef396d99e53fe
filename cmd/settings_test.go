package cmd

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedcon/fedcon/experiments/drfl"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// TestFlagKeysByRule: each configuration flag sets the key of its name, -
// as _, with drfl-figure1's section prefix as the one exception.
func TestFlagKeysByRule(t *testing.T) {
	f, _, _ := testFactory()
	n := 0
	walkCommands(newCmdRoot(f), func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			key := configKey(fl)
			if key == "" {
				return
			}
			n++
			want := strings.ReplaceAll(fl.Name, "-", "_")
			if c.Name() == "drfl-figure1" {
				want = "figure1." + want
			}
			if key != want {
				t.Errorf("%s --%s sets %s, want %s", c.CommandPath(), fl.Name, key, want)
			}
		})
	})
	if n < 100 {
		t.Fatalf("%d configuration flags: the walk missed commands", n)
	}
}

// TestFlagDefaultsRun: the default that --help (and docs/cli.md) shows for
// each configuration flag of each command is what runs. Under each preset
// of the command, giving the flag its shown default explicitly loads the
// same configuration as not giving it, after validation (which normalises,
// e.g. participation 1 to unset); and a single-preset command's flag shows
// its key's preset value through pflag's own "(default X)". Commands with
// configuration flags and no preset (reproduce all, each experiment its
// own) show no default.
func TestFlagDefaultsRun(t *testing.T) {
	f, _, _ := testFactory()
	checked := 0
	walkCommands(newCmdRoot(f), func(c *cobra.Command) {
		sources := commandPresets(c)
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			key := configKey(fl)
			if key == "" {
				return
			}
			if len(sources) == 0 {
				if !fl.Changed && fl.DefValue != zeroDefValue(fl) {
					t.Errorf("%s --%s: a default %q with no preset to take it from", c.CommandPath(), fl.Name, fl.DefValue)
				}
				return
			}
			shown := map[string]string{} // label -> default shown
			for _, lv := range fl.Annotations[defaultsAnnotation] {
				label, v, _ := strings.Cut(lv, "=")
				shown[label] = v
			}
			for _, src := range sources {
				_, keys, err := decodedPreset(src.preset)
				if err != nil {
					t.Fatal(err)
				}
				v, ok := shown[src.label]
				switch {
				case slices.Contains(keys, key) && !ok:
					t.Errorf("%s --%s: preset %s sets %s, but no default is shown for it", c.CommandPath(), fl.Name, src.preset, key)
					continue
				case !slices.Contains(keys, key):
					if len(shown) > 0 || keyType(presetConfigs[src.preset](), key) == nil {
						continue // shown for the presets that set it; read by others only
					}
					v = unbracket(fl.DefValue) // the flag's own default: the key's absence
					if fl.DefValue == zeroDefValue(fl) && fl.Value.Type() != "bool" {
						v = unbracket(fl.Value.String())
					}
				}
				if len(sources) == 1 && ok && fl.DefValue != fl.Value.String() {
					t.Errorf("%s --%s: pflag shows %q, value %q", c.CommandPath(), fl.Name, fl.DefValue, fl.Value.String())
				}
				plain, given := loadWithFlag(t, c, src.preset, fl.Name, ""), loadWithFlag(t, c, src.preset, fl.Name, v)
				if !reflect.DeepEqual(plain, given) {
					t.Errorf("%s --%s %s (the default shown under %s): loads %+v, not %+v", c.CommandPath(), fl.Name, v, src.preset, given, plain)
				}
				checked++
			}
		})
	})
	if checked < 200 {
		t.Fatalf("%d flag defaults checked: the walk missed commands", checked)
	}
}

// loadWithFlag loads preset into its configuration type as command c would
// with flag name set to value (none when value is ""), and validates it
// when it validates: the configuration that runs.
func loadWithFlag(t *testing.T, c *cobra.Command, preset, name, value string) any {
	t.Helper()
	f, _, _ := testFactory()
	fresh := findCommand(newCmdRoot(f), c.CommandPath())
	if value != "" {
		if err := fresh.Flags().Set(name, value); err != nil {
			t.Fatalf("%s --%s %s: %v", c.CommandPath(), name, value, err)
		}
	}
	o := &commonOptions{flags: fresh.Flags()}
	cfg := presetConfigs[preset]()
	if err := loadConfig(f, o, preset, cfg); err != nil {
		t.Fatalf("%s --%s %q under %s: %v", c.CommandPath(), name, value, preset, err)
	}
	if v, ok := cfg.(interface{ Validate() error }); ok {
		_ = v.Validate() // normalises; a preset that does not validate alone (ssca: its rates) compares as loaded
	}
	return cfg
}

func walkCommands(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, s := range c.Commands() {
		walkCommands(s, fn)
	}
}

func findCommand(root *cobra.Command, path string) *cobra.Command {
	var found *cobra.Command
	walkCommands(root, func(c *cobra.Command) {
		if c.CommandPath() == path {
			found = c
		}
	})
	return found
}

// TestOwnMapDefault: ssca's --U, read by the command for the key u (one
// value per data set), shows each data set's value of the preset.
func TestOwnMapDefault(t *testing.T) {
	f, _, _ := testFactory()
	fl := findCommand(newCmdRoot(f), "fedcon run ssca").Flags().Lookup("U")
	cfg, _, err := decodedPreset("ssca/ssca")
	if err != nil {
		t.Fatal(err)
	}
	u := cfg.(*ssca.Config).U
	if len(u) < 2 {
		t.Fatalf("preset u %v: want a value per data set", u)
	}
	for name, v := range u {
		if want := name + " " + strconv.FormatFloat(v, 'g', -1, 64); !strings.Contains(fl.Usage, want) {
			t.Errorf("--U usage %q lacks %q", fl.Usage, want)
		}
	}
}

// TestReproduceAllSeedSections: reproduce all's --seed sets each
// experiment's seed key as the experiment's own --seed does: seed for the
// DRFL noise figures, figure1.seed for drfl-figure1.
func TestReproduceAllSeedSections(t *testing.T) {
	f, _, _ := testFactory()
	all := findCommand(newCmdRoot(f), "fedcon reproduce all")
	if err := all.Flags().Set("seed", "7"); err != nil {
		t.Fatal(err)
	}
	def := drfl.DefaultConfig()
	for _, tc := range []struct {
		section           string
		seed, figure1Seed uint64
	}{
		{"", 7, def.Figure1.Seed},
		{drflFigure1Section, def.Seed, 7},
	} {
		o := commonOptions{flags: all.Flags(), batch: true, section: tc.section}
		cfg, err := loadDRFLConfig(f, &o)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Seed != tc.seed || cfg.Figure1.Seed != tc.figure1Seed {
			t.Errorf("section %q: seed %d, figure1.seed %d; want %d, %d", tc.section, cfg.Seed, cfg.Figure1.Seed, tc.seed, tc.figure1Seed)
		}
	}
}
