// Package testutil sorts fedcon's tests into the tiers of its test loop
// (CONTRIBUTING.md):
//
//	go test -short ./...   the quick loop: skips Slow and Long tests (and those that check testing.Short())
//	make test              go test ./..., -race -short on the concurrent packages: skips Long tests
//	make test-long         FEDCON_LONG=1 go test -run '^TestLong' ./...: only the Long tests
//
// A test that needs more than a few seconds calls Slow(t): the quick loop
// skips it, the race pass (-race -short) still runs it. A test that skips
// itself with testing.Short() leaves the race pass too (for a test the
// detector slows to minutes). One that needs more than about half a minute
// on 2 cores, such as a full-size reference solve, is a long test: a
// top-level function named TestLong... whose first statement is
// testutil.Long(t).
package testutil

import (
	"os"
	"strings"
	"testing"
)

// Slow marks t as too slow for the quick loop: it is skipped with -short,
// unless the binary is built with -race, so that make test's race pass
// (-race -short) keeps running it.
func Slow(t testing.TB) {
	t.Helper()
	if testing.Short() && !raceEnabled {
		t.Skip("slow test: skipped with -short")
	}
}

// LongEnv is the environment variable that turns the long tier on.
const LongEnv = "FEDCON_LONG"

// LongPrefix begins the name of every long test, so that make test-long
// selects them all with -run '^TestLong'.
const LongPrefix = "TestLong"

// Long marks t as a long test: it is skipped unless FEDCON_LONG is set (as
// make test-long sets it), and also under -short. It fails t when the
// test's top-level function is not named TestLong..., which make test-long
// would not select.
func Long(t testing.TB) {
	t.Helper()
	if !strings.HasPrefix(t.Name(), LongPrefix) {
		t.Fatalf("testutil.Long in %s: a long test's top-level function must be named %s... (make test-long runs -run '^%s')", t.Name(), LongPrefix, LongPrefix)
	}
	if testing.Short() {
		t.Skip("long test: skipped with -short")
	}
	if os.Getenv(LongEnv) == "" {
		t.Skipf("long test: runs with %s=1 (make test-long)", LongEnv)
	}
}
