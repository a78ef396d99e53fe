package experiments

import (
	"context"
	"encoding"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Upper bounds shared by every experiment: beyond them a run is a typo,
// not an experiment, and would exhaust memory or time before any check.
const (
	MaxTrials = 100_000    // trials (or instances) per cell
	MaxIter   = 10_000_000 // outer and inner iteration caps
)

// CheckFinite reports the first NaN or ±Inf number in cfg, a config struct
// (or pointer to one), as a *ConfigError naming its YAML key: a non-finite
// value would run every trial and then fail to encode, and all such configs
// would share one trial hash.
func CheckFinite(cfg any) error {
	return checkFinite(reflect.ValueOf(cfg), "")
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

func checkFinite(v reflect.Value, key string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkFinite(v.Elem(), key)
	case reflect.Float32, reflect.Float64:
		if v.Type().Implements(textMarshaler) {
			return nil // an enum (DRFL's norm p, inf among its names), checked by its type
		}
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return &ConfigError{key, f, "must be a finite number"}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name, squash := FieldKey(sf)
			if name == "-" {
				continue
			}
			k := key
			if !squash {
				k = joinKey(key, name)
			}
			if err := checkFinite(v.Field(i), k); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkFinite(v.Index(i), key); err != nil {
				return err
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if err := checkFinite(v.MapIndex(k), joinKey(key, fmt.Sprint(k.Interface()))); err != nil {
				return err
			}
		}
	}
	return nil
}

// FieldKey is the YAML key of a config struct field (its mapstructure tag,
// else its lower-cased name) and whether it is squashed into its parent.
func FieldKey(sf reflect.StructField) (name string, squash bool) {
	tag := sf.Tag.Get("mapstructure")
	name, opts, _ := strings.Cut(tag, ",")
	squash = strings.Contains(opts, "squash") || (tag == "" && sf.Anonymous)
	if name == "" {
		name = strings.ToLower(sf.Name)
	}
	return name, squash
}

func joinKey(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// Interruptible runs f and returns its result, or ctx's error as soon as
// ctx is done: a dense factorisation or instance build cannot look at ctx
// inside gonum, so an interrupted caller stops waiting for it instead. The
// abandoned f runs to its end in the background and its result is dropped;
// the command exits right after, so nothing half-built is ever used. A nil
// ctx just calls f.
func Interruptible[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	if ctx == nil {
		return f()
	}
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Cost is a pre-flight estimate of a whole command: peak memory and serial
// compute time (divide by the workers for wall time). The models are
// deliberately simple and conservative; Model says what they count.
type Cost struct {
	Bytes   float64
	Seconds float64
	Model   string
}

// FlopRate is the floating-point rate the time models assume for one core:
// the Table 4 cells ran at 6-11 Gflop/s of this model's count on one core
// here, so 4 Gflop/s overestimates the time rather than under.
const FlopRate = 4e9

// FormatBytes renders b in the largest binary unit below it: "24.1 GiB".
func FormatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
