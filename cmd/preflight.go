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
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/experiments"
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
	if out := fl.Lookup("out"); out != nil {
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

// checkConfigYAML checks a --config file against the field types of cfg,
// before viper's loose conversion sees it: unknown keys, wrong types,
// fractions for integers, negatives for unsigned, overflow and non-finite
// numbers are one line naming the file, its line and the key.
func checkConfigYAML(file string, data []byte, cfg any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return &FlagError{err: fmt.Errorf("--config %s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	if len(doc.Content) == 0 {
		return nil // an empty file overrides nothing
	}
	if err := checkNode(doc.Content[0], reflect.TypeOf(cfg), ""); err != nil {
		var ne *nodeError
		if errors.As(err, &ne) {
			return &FlagError{err: fmt.Errorf("--config %s:%d: %s", file, ne.line, ne.msg)}
		}
		return err
	}
	return nil
}

type nodeError struct {
	line int
	msg  string
}

func (e *nodeError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func nodeErrorf(n *yaml.Node, format string, args ...any) error {
	return &nodeError{n.Line, fmt.Sprintf(format, args...)}
}

// structKeys maps the YAML keys of struct type t (squashed fields inlined)
// to their field types.
func structKeys(t reflect.Type) map[string]reflect.Type {
	keys := map[string]reflect.Type{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, squash := experiments.FieldKey(sf)
		switch {
		case name == "-":
		case squash && sf.Type.Kind() == reflect.Struct:
			for k, v := range structKeys(sf.Type) {
				keys[k] = v
			}
		default:
			keys[name] = sf.Type
		}
	}
	return keys
}

// checkNode checks YAML node n against Go type t; key names it in errors.
func checkNode(n *yaml.Node, t reflect.Type, key string) error {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && t.Kind() != reflect.Interface {
		return nodeErrorf(n, "%s: no value", key)
	}
	switch t.Kind() {
	case reflect.Interface:
		return nil
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nodeErrorf(n, "%s: want a mapping of keys, got %s", keyOr(key, "file"), nodeWhat(n))
		}
		keys := structKeys(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			ft, ok := keys[k]
			if !ok {
				valid := make([]string, 0, len(keys))
				for k := range keys {
					valid = append(valid, k)
				}
				slices.Sort(valid)
				return nodeErrorf(n.Content[i], "unknown key %q (valid keys: %s)", joinKeyPath(key, k), strings.Join(valid, ", "))
			}
			if err := checkNode(n.Content[i+1], ft, joinKeyPath(key, k)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nodeErrorf(n, "%s: want a mapping, got %s", key, nodeWhat(n))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkNode(n.Content[i+1], t.Elem(), joinKeyPath(key, n.Content[i].Value)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return nodeErrorf(n, "%s: want a list, got %s", key, nodeWhat(n))
		}
		for _, e := range n.Content {
			if err := checkNode(e, t.Elem(), key); err != nil {
				return err
			}
		}
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return nodeErrorf(n, "%s: want a single value, got %s", key, nodeWhat(n))
	}
	if msg := checkScalar(n.Value, n.Tag, t); msg != "" {
		return nodeErrorf(n, "%s: %s", key, msg)
	}
	return nil
}

// checkScalar checks text s (YAML tag, or "" for an environment value)
// against kind t; it returns what is wrong, or "".
func checkScalar(s, tag string, t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		if tag != "" && tag != "!!bool" {
			return fmt.Sprintf("%s is not true or false", s)
		}
		if _, err := strconv.ParseBool(s); tag == "" && err != nil {
			return fmt.Sprintf("%s is not true or false", s)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		// YAML tags an integer too large for int64 !!float: still an integer.
		if tag != "" && tag != "!!int" && tag != "!!float" || !isInteger(s) {
			return fmt.Sprintf("%s is not an integer", s)
		}
		if _, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, t.Bits()); err != nil {
			return fmt.Sprintf("%s overflows a %d-bit integer", s, t.Bits())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if tag != "" && tag != "!!int" && tag != "!!float" || !isInteger(s) {
			return fmt.Sprintf("%s is not an integer", s)
		}
		if strings.HasPrefix(strings.TrimSpace(s), "-") {
			return fmt.Sprintf("%s is negative; want an integer >= 0", s)
		}
		if _, err := strconv.ParseUint(strings.ReplaceAll(strings.TrimPrefix(s, "+"), "_", ""), 0, t.Bits()); err != nil {
			return fmt.Sprintf("%s overflows a %d-bit unsigned integer", s, t.Bits())
		}
	case reflect.Float32, reflect.Float64:
		if tag != "" && tag != "!!int" && tag != "!!float" {
			return fmt.Sprintf("%s is not a number", s)
		}
		v, err := parseYAMLFloat(s)
		switch {
		case err != nil:
			return fmt.Sprintf("%s is not a number", s)
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Sprintf("%s is not a finite number", s)
		}
	case reflect.String:
		// Numbers are fine as text (DRFL's rho: 0.01 is a comma list).
		if tag == "!!bool" {
			return fmt.Sprintf("%s is not a word (quote it if meant)", s)
		}
	}
	return ""
}

func isInteger(s string) bool {
	_, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
	if err == nil {
		return true
	}
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) // an integer, only too large
}

// parseYAMLFloat parses a YAML 1.2 float (.inf, .nan included) or plain Go one.
func parseYAMLFloat(s string) (float64, error) {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf":
		return math.Inf(1), nil
	case ".nan":
		return math.NaN(), nil
	}
	return strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
}

func nodeWhat(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

func keyOr(k, def string) string {
	if k == "" {
		return def
	}
	return k
}

func joinKeyPath(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// keyType is the Go type of dotted config key k in cfg's struct, or nil.
func keyType(cfg any, k string) reflect.Type {
	t := reflect.TypeOf(cfg)
	for _, part := range strings.Split(k, ".") {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			t = structKeys(t)[part]
		case reflect.Map:
			t = t.Elem()
		default:
			return nil
		}
		if t == nil {
			return nil
		}
	}
	return t
}

// checkOverride checks a sweep file's value val of key k against cfg's type.
func checkOverride(k string, val any, cfg any) error {
	t := keyType(cfg, k)
	var n yaml.Node
	if t == nil || n.Encode(val) != nil {
		return nil // unknown keys are reported by the sweep itself
	}
	if err := checkNode(&n, t, k); err != nil {
		var ne *nodeError
		if errors.As(err, &ne) {
			return &FlagError{err: fmt.Errorf("sweep: %s", ne.msg)}
		}
		return err
	}
	return nil
}

// checkEnv checks environment variable name = val, which sets key k of cfg
// (a list as comma-separated values), and names the variable on error.
func checkEnv(name, k, val string, cfg any) error {
	t := keyType(cfg, k)
	if t == nil {
		return nil
	}
	parts := []string{val}
	if t.Kind() == reflect.Slice {
		t = t.Elem()
		parts = strings.Split(val, ",")
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice:
		return nil // lists of maps are refused by loadConfig
	}
	for _, p := range parts {
		if msg := checkScalar(strings.TrimSpace(p), "", t); msg != "" {
			return &FlagError{err: fmt.Errorf("environment %s=%s (key %s): %s", name, val, k, msg)}
		}
	}
	return nil
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
	return nil
}

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
