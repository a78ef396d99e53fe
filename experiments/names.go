package experiments

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-viper/mapstructure/v2"
)

// A configuration enum is a string type whose UnmarshalText accepts only
// its names, so that YAML, the environment, flags and JSON all decode into
// the same typed field and a bad value fails where it enters, naming the
// valid ones; its MarshalText writes the name back, so that a
// configuration's JSON encoding, and with it its hash, is that of the
// plain string.

// UnmarshalName sets *p to the name in b when it is one of valid (or empty,
// when empty is allowed: the field's default), and otherwise returns an
// error listing valid.
func UnmarshalName[T ~string](p *T, b []byte, empty bool, valid ...T) error {
	s := T(b)
	if slices.Contains(valid, s) || empty && s == "" {
		*p = s
		return nil
	}
	names := make([]string, len(valid))
	for i, v := range valid {
		names[i] = string(v)
	}
	return fmt.Errorf("%q: want %s", string(b), orList(names))
}

// orList writes names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// RNG is the random stream of instances and w0: fedcon (our PCG streams)
// or numpy (the authors' legacy RandomState stream).
type RNG string

// The random streams.
const (
	RNGFedcon RNG = "fedcon"
	RNGNumpy  RNG = "numpy"
)

// UnmarshalText accepts fedcon or numpy.
func (r *RNG) UnmarshalText(b []byte) error { return UnmarshalName(r, b, false, RNGFedcon, RNGNumpy) }

// MarshalText writes the name.
func (r RNG) MarshalText() ([]byte, error) { return []byte(r), nil }

// W0 is a starting point: sphere (a uniform point on the unit sphere per
// trial; also the empty default), ones or zeros.
type W0 string

// The starting points.
const (
	W0Sphere W0 = "sphere"
	W0Ones   W0 = "ones"
	W0Zeros  W0 = "zeros"
)

// UnmarshalText accepts sphere, ones, zeros or the empty default (sphere).
func (w *W0) UnmarshalText(b []byte) error {
	return UnmarshalName(w, b, true, W0Sphere, W0Ones, W0Zeros)
}

// MarshalText writes the name.
func (w W0) MarshalText() ([]byte, error) { return []byte(w), nil }

// DecodeHook is the decode hook of configuration structs: enums and other
// encoding.TextUnmarshaler fields parse their text, durations and
// comma-separated lists decode as viper's defaults do.
func DecodeHook() mapstructure.DecodeHookFunc {
	return mapstructure.ComposeDecodeHookFunc(mapstructure.TextUnmarshallerHookFunc(),
		mapstructure.StringToTimeDurationHookFunc(), mapstructure.StringToSliceHookFunc(","))
}
