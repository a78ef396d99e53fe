//go:build race

package testutil

// raceEnabled reports whether the test binary was built with -race.
const raceEnabled = true
