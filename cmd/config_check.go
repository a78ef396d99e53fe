package cmd

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/experiments"
)

// A --config file, a --set override and a FEDCON_* variable are checked
// against the configuration's field types before viper converts them.

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
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		// An enum: its own UnmarshalText, the one parser of its names.
		if tag == "!!bool" {
			return fmt.Sprintf("%s is not a word (quote it if meant)", s)
		}
		if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return err.Error()
		}
		return ""
	}
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

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

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
