package cmd

import (
	"encoding"

	"github.com/spf13/pflag"
)

// textValue is a flag of an enum type (an encoding.TextUnmarshaler): its
// Set is the type's UnmarshalText, so a bad value fails as the command line
// is parsed, naming the flag and the valid names, and String is the name
// that loadConfig hands to the flag's key.
type textValue struct {
	v interface {
		encoding.TextUnmarshaler
		encoding.TextMarshaler
	}
}

func (t textValue) String() string {
	b, err := t.v.MarshalText()
	if err != nil {
		return ""
	}
	return string(b)
}

func (t textValue) Set(s string) error { return t.v.UnmarshalText([]byte(s)) }

func (textValue) Type() string { return "string" }

// enumFlag adds flag name of enum type T with default def.
func enumFlag[T any, P interface {
	*T
	encoding.TextUnmarshaler
	encoding.TextMarshaler
}](fl *pflag.FlagSet, name string, def T, usage string) {
	p := P(new(T))
	*p = def
	fl.Var(textValue{p}, name, usage)
}

// enumVar adds flag name parsed into v (a field of a fresh configuration,
// for an enum of a package cmd does not import) with default def.
func enumVar(fl *pflag.FlagSet, name string, v interface {
	encoding.TextUnmarshaler
	encoding.TextMarshaler
}, def, usage string) {
	if err := v.UnmarshalText([]byte(def)); err != nil {
		panic("cmd: default of --" + name + ": " + err.Error())
	}
	fl.Var(textValue{v}, name, usage)
}
