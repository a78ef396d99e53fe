package cmd

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strconv"

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
	// Width is Out's width in columns when known (a terminal, or $COLUMNS);
	// zero means unknown, and tables then fit defaultWidth.
	Width int
}

// systemIO returns the process streams.
func systemIO() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())) && os.Getenv("CI") == "",
		Width:  outWidth(),
	}
}

// outWidth is stdout's terminal width, else a valid $COLUMNS, else zero.
func outWidth() int {
	if fd := int(os.Stdout.Fd()); term.IsTerminal(fd) {
		if w, _, err := term.GetSize(fd); err == nil && w > 0 {
			return w
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	return 0
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
	// Wide prints every table whole (--wide), whatever the width.
	Wide bool
	// args are the command-line arguments of this run (recorded in shard
	// manifests, so that a merge reruns the same command).
	args []string
	// stopProfile ends the --cpuprofile profile, if one runs.
	stopProfile func() error
}

// tableWidth is the width terminal tables fit: 0 (no limit) under --wide.
func (f *Factory) tableWidth() int {
	switch {
	case f.Wide:
		return 0
	case f.IO.Width > 0:
		return f.IO.Width
	}
	return defaultWidth
}

func newFactory(io *IOStreams) *Factory {
	return &Factory{IO: io, Version: version(), Getenv: os.Getenv, NumCPU: runtime.NumCPU()}
}
