package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/federation"
)

// Exit codes: the one table that maps outcomes to process status.
const (
	exitOK          = 0   // success
	exitFailure     = 1   // the run failed (I/O, numerical failure, a failed check)
	exitUsage       = 2   // bad flags, config values or arguments
	exitInterrupted = 130 // Ctrl-C; finished trials are kept on disk
)

// exitTable documents the exit codes per command (docs/cli.md is rendered
// from it). A process exits 0 only when the job it took part in succeeded.
var exitTable = []struct {
	code              int
	meaning, commands string
}{
	{exitOK, "success: the whole job this process took part in succeeded (for `--dry-run`: nothing wrong found, nothing written)", "all"},
	{exitFailure, "the job failed. A run or shard: a trial ended in an error (a cap or an unconverged status is a result, not a failure), or I/O. `check`: a check failed. `merge`: a shard missing, failed, unfinished or of another version, command or configuration, or a trial file missing or invalid. `serve`: a client lost (status ClientLost) or a failed round. `client`: the run failed on the server (a peer lost, the server interrupted) or the connection to it broke", "all"},
	{exitUsage, "bad input, found before any work: a flag, configuration value, argument, `--shard` value, data file, or a certificate or transport that cannot work (another CA, expired, not yet valid, wrong host, wrong role, plaintext against TLS)", "all"},
	{exitInterrupted, "interrupted by SIGINT or SIGTERM: finished trials are kept; a `serve` interrupted makes its clients exit 1", "all that compute: `run`, `reproduce`, `sweep`, `tune`, `merge`, `serve`, `client`"},
}

// FlagError signifies a usage or configuration error: exit code 2.
type FlagError struct {
	err   error
	usage string // command path whose --help to suggest; empty for none
}

func (e *FlagError) Error() string { return e.err.Error() }
func (e *FlagError) Unwrap() error { return e.err }

// flagErrorf returns a FlagError with a formatted message.
func flagErrorf(format string, args ...any) error {
	return &FlagError{err: fmt.Errorf(format, args...)}
}

// SilentError signifies a failure whose message has already been printed
// (e.g. a failed check table): exit code 1, nothing more is printed.
var SilentError = errors.New("silent error")

// exitCode decides the process status for err, in one place.
func exitCode(err error) int {
	var fe *FlagError
	var ce *experiments.ConfigError
	var dfe *datasets.FileError
	var dre *datasets.RequestError
	var dpe *datasets.ParseError
	var cert *federation.CertError
	var hs *federation.HandshakeError
	switch {
	case err == nil, errors.Is(err, errDryRun):
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &fe), errors.As(err, &ce), errors.As(err, &dfe), errors.As(err, &dre), errors.As(err, &dpe),
		errors.As(err, &cert), errors.As(err, &hs):
		return exitUsage
	default:
		return exitFailure
	}
}
