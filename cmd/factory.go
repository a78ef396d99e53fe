package cmd

import (
	"bytes"
	"io"
	"os"
	"runtime"

	"golang.org/x/term"
)

// IOStreams are the command's streams: data (tables, JSON) go to Out,
// progress and warnings to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrTTY reports whether ErrOut is a terminal (progress bars only then).
	ErrTTY bool
}

// systemIO returns the process streams.
func systemIO() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())) && os.Getenv("CI") == "",
	}
}

// testIO returns streams backed by buffers, for tests.
func testIO() (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: &bytes.Buffer{}, Out: out, ErrOut: errOut}, out, errOut
}

// Factory holds what commands depend on, created lazily so that cheap
// commands (version, help) never touch config or data.
type Factory struct {
	IO *IOStreams
	// Version is the fedcon version string recorded in every result file.
	Version string
	// Getenv reads the environment (injectable for tests).
	Getenv func(string) string
	// NumCPU is the default worker count.
	NumCPU int
}

func newFactory(io *IOStreams) *Factory {
	return &Factory{IO: io, Version: version(), Getenv: os.Getenv, NumCPU: runtime.NumCPU()}
}
