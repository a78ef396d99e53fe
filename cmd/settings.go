package cmd

import (
	"bytes"
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/fedcon/fedcon/configs"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/conic"
	"github.com/fedcon/fedcon/experiments/drfl"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// A command's settings table is its configuration flags (keyFlags: each
// sets the key of its name) and the presets it loads (usePresets). From the
// two, presetDefaults writes each flag's default as the value that runs when
// the flag is not given: the preset's, decoded into the configuration.

// presetConfigs are the configuration types of the embedded presets that
// configuration flags default to.
var presetConfigs = map[string]func() any{
	"table1":         func() any { return &proxal.NPConfig{} },
	"conic-table2":   func() any { return &proxal.NPConfig{} },
	"table2":         func() any { return &proxal.FairConfig{} },
	"table2-authors": func() any { return &proxal.FairConfig{} },
	"conic-table3":   func() any { return &proxal.FairConfig{} },
	"table4":         func() any { return &proxal.QPConfig{} },
	"conic-table1":   func() any { return &conic.QPConfig{} },
	drfl.Preset:      func() any { return &drfl.Config{} },
	"ssca/ssca":      func() any { return &ssca.Config{} },
}

const (
	// presetsAnnotation lists a command's presets, label=preset, the
	// default first; presetChoiceAnnotation names the flag that chooses
	// among several.
	presetsAnnotation      = "fedcon-presets"
	presetChoiceAnnotation = "fedcon-preset-choice"
	// defaultsAnnotation lists, on a flag, its defaults under the
	// command's presets that set its key, label=value.
	defaultsAnnotation = "fedcon-defaults"
	// defaultTextAnnotation is, on a flag whose default pflag cannot
	// print, the default as text and the suffix of the usage that says it.
	defaultTextAnnotation = "fedcon-default-text"
)

// usePresets records that c's configuration flags default to preset (one
// argument), or, when flag chooses among several, to the presets given as
// label=preset pairs, the default first ("qp=table4").
func usePresets(c *cobra.Command, flag string, presets ...string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	if flag == "" {
		presets = []string{"=" + presets[0]}
	}
	c.Annotations[presetsAnnotation] = strings.Join(presets, ";")
	c.Annotations[presetChoiceAnnotation] = flag
}

// presetSource is one preset of a command, with the label that selects it.
type presetSource struct{ label, preset string }

// commandPresets are the presets of c (usePresets), the default first.
func commandPresets(c *cobra.Command) []presetSource {
	var out []presetSource
	for _, p := range strings.Split(c.Annotations[presetsAnnotation], ";") {
		if label, preset, ok := strings.Cut(p, "="); ok {
			out = append(out, presetSource{label, preset})
		}
	}
	return out
}

// presetCache holds each preset decoded into its configuration type, and
// its keys; both are only read once made.
var presetCache = struct {
	sync.Mutex
	cfg  map[string]any
	keys map[string][]string
}{cfg: map[string]any{}, keys: map[string][]string{}}

// decodedPreset is preset decoded into its configuration type, as
// loadConfig decodes it when nothing overrides it, and its keys.
func decodedPreset(preset string) (any, []string, error) {
	presetCache.Lock()
	defer presetCache.Unlock()
	if cfg, ok := presetCache.cfg[preset]; ok {
		return cfg, presetCache.keys[preset], nil
	}
	newCfg, ok := presetConfigs[preset]
	if !ok {
		return nil, nil, fmt.Errorf("cmd: preset %s has no configuration type", preset)
	}
	b, err := configs.Preset(preset)
	if err != nil {
		return nil, nil, err
	}
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(b)); err != nil {
		return nil, nil, fmt.Errorf("preset %s: %w", preset, err)
	}
	cfg := newCfg()
	if err := v.UnmarshalExact(cfg, viper.DecodeHook(experiments.DecodeHook())); err != nil {
		return nil, nil, fmt.Errorf("preset %s: %w", preset, err)
	}
	presetCache.cfg[preset], presetCache.keys[preset] = cfg, v.AllKeys()
	return cfg, v.AllKeys(), nil
}

// presetDefaults sets the default of every configuration flag of c and
// its subcommands to the value of its key in the command's preset, so that
// --help and docs/cli.md show what runs. Under a command of several presets
// the default is the default preset's, and the usage adds the others' where
// they differ ("--preset table2-authors: 50"). A flag whose key no preset
// sets keeps its own default, the meaning of the key's absence.
func presetDefaults(c *cobra.Command) error {
	for _, s := range c.Commands() {
		if err := presetDefaults(s); err != nil {
			return err
		}
	}
	sources := commandPresets(c)
	if len(sources) == 0 {
		return nil
	}
	var err error
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		key := configKey(fl)
		if own := fl.Annotations[ownKeyAnnotation]; own != nil && err == nil {
			err = describeOwnDefault(fl, own[0], sources[0].preset)
			return
		}
		if key == "" || err != nil {
			return
		}
		var vals []presetValue
		for _, src := range sources {
			cfg, keys, e := decodedPreset(src.preset)
			if e != nil {
				err = e
				return
			}
			if !slices.Contains(keys, key) {
				continue
			}
			text, ok := settingText(cfg, key)
			if !ok {
				err = fmt.Errorf("cmd: %s --%s: key %s of preset %s has no text form", c.CommandPath(), fl.Name, key, src.preset)
				return
			}
			vals = append(vals, presetValue{src.label, text})
		}
		if len(vals) == 0 {
			return
		}
		err = describeDefaults(c, fl, sources[0].label, vals)
	})
	return err
}

// describeOwnDefault says the default of a flag that the command's code
// reads for key (ownKeyFlag) when the key is a map in preset: the flag
// takes the entry that the run selects (ssca's --U, per data set).
func describeOwnDefault(fl *pflag.Flag, key, preset string) error {
	cfg, keys, err := decodedPreset(preset)
	if err != nil || !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, key+".") }) {
		return err // a map's keys are its entries' (u.mnist)
	}
	v, ok := keyValue(reflect.ValueOf(cfg), key)
	if !ok || v.Kind() != reflect.Map {
		return nil
	}
	var entries []string
	for _, k := range v.MapKeys() {
		text, ok := valueText(v.MapIndex(k))
		if !ok {
			return nil // a map of structures (sgd_rates): no one value
		}
		entries = append(entries, fmt.Sprintf("%v %s", k, text))
	}
	slices.Sort(entries)
	describeDefault(fl, "by data set, "+strings.Join(entries, ", "))
	return nil
}

// presetValue is a flag's default under the preset of label.
type presetValue struct{ label, text string }

// describeDefaults sets fl's default to vals, its key's values under the
// command's presets that set it: pflag's own "(default X)" when they agree
// and the default preset (label def) is among them, else the usage lists
// them, "(default 10; --preset table2-authors: 50)". The annotation
// defaultsAnnotation keeps every label=value for the tests.
func describeDefaults(c *cobra.Command, fl *pflag.Flag, def string, vals []presetValue) error {
	var all, notes []string
	hasDef, agree := false, true
	var defText string
	for i := range vals {
		if err := setFlagValue(fl, vals[i].text); err != nil {
			return fmt.Errorf("cmd: %s --%s: preset value %q: %w", c.CommandPath(), fl.Name, vals[i].text, err)
		}
		vals[i].text = unbracket(fl.Value.String()) // as the flag writes it
		all = append(all, vals[i].label+"="+vals[i].text)
		agree = agree && vals[i].text == vals[0].text
		if vals[i].label == def {
			hasDef, defText = true, vals[i].text
		}
	}
	for _, v := range vals {
		if v.label != def && !(hasDef && v.text == defText) {
			notes = append(notes, v.label+": "+v.text)
		}
	}
	if fl.Annotations == nil {
		fl.Annotations = map[string][]string{}
	}
	fl.Annotations[defaultsAnnotation] = all
	if !hasDef {
		// The value is the last preset's; a flag left unset is not read.
		describeDefault(fl, c.Annotations[presetChoiceAnnotation]+" "+strings.Join(notes, ", "))
		return nil
	}
	if err := setFlagValue(fl, defText); err != nil {
		return err
	}
	fl.DefValue = fl.Value.String()
	if !agree { // notes hold the presets that differ
		describeDefault(fl, defText+"; "+c.Annotations[presetChoiceAnnotation]+" "+strings.Join(notes, ", "))
	}
	return nil
}

// describeDefault says fl's default in words, where pflag's "(default X)"
// cannot: one value per preset, or each experiment's own.
func describeDefault(fl *pflag.Flag, text string) {
	fl.DefValue = zeroDefValue(fl) // pflag prints none
	suffix := " (default: " + text + ")"
	fl.Usage += suffix
	if fl.Annotations == nil {
		fl.Annotations = map[string][]string{}
	}
	fl.Annotations[defaultTextAnnotation] = []string{text, suffix}
}

// zeroDefValue is the default text for which pflag prints no "(default
// X)" for fl's type.
func zeroDefValue(fl *pflag.Flag) string {
	switch fl.Value.Type() {
	case "bool":
		return "false"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "count":
		return "0"
	case "intSlice", "stringSlice", "stringArray":
		return "[]"
	}
	return ""
}

// unbracket turns a flag's String back into text its Set accepts: a slice
// flag writes [a,b].
func unbracket(s string) string { return strings.TrimSuffix(strings.TrimPrefix(s, "["), "]") }

// setFlagValue sets fl's value to text without marking it changed: a
// slice flag replaces its elements (its Set would append to them later).
func setFlagValue(fl *pflag.Flag, text string) error {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		var parts []string
		if text != "" {
			parts = strings.Split(text, ",")
		}
		return sv.Replace(parts)
	}
	return fl.Value.Set(text)
}

// settingText is the value of dotted key k in cfg as a flag reads it:
// an enum's name, a number in Go's shortest form, a list comma-separated,
// Table 4's cells as n x d x m̃ triples; ok is false for a map or an unset
// pointer.
func settingText(cfg any, k string) (string, bool) {
	v, ok := keyValue(reflect.ValueOf(cfg), k)
	if !ok {
		return "", false
	}
	return valueText(v)
}

// keyValue is the field of dotted key k in struct v (squashed fields
// inlined, pointers followed).
func keyValue(v reflect.Value, k string) (reflect.Value, bool) {
	for _, part := range strings.Split(k, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return v, false
		}
		f, ok := structField(v, part)
		if !ok {
			return v, false
		}
		v = f
	}
	return v, true
}

// structField is the field of struct v with key k.
func structField(v reflect.Value, k string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, squash := experiments.FieldKey(sf)
		if squash && sf.Type.Kind() == reflect.Struct {
			if f, ok := structField(v.Field(i), k); ok {
				return f, true
			}
			continue
		}
		if name == k {
			return v.Field(i), true
		}
	}
	return v, false
}

func valueText(v reflect.Value) (string, bool) {
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, err := m.MarshalText()
		return string(b), err == nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "", false
		}
		return valueText(v.Elem())
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), true
	case reflect.String:
		return v.String(), true
	case reflect.Slice:
		sep := ","
		if v.Type().Elem().Kind() == reflect.Slice {
			sep = "x" // a cell: n x d x m̃
		}
		parts := make([]string, v.Len())
		for i := range v.Len() {
			e := v.Index(i)
			if e.Kind() == reflect.Slice {
				inner := make([]string, e.Len())
				for j := range e.Len() {
					s, ok := valueText(e.Index(j))
					if !ok {
						return "", false
					}
					inner[j] = s
				}
				parts[i] = strings.Join(inner, sep)
				continue
			}
			s, ok := valueText(e)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), true
	}
	return "", false
}
