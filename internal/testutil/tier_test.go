package testutil

import "testing"

// TestSlow: Slow skips only in the quick loop (-short without -race).
func TestSlow(t *testing.T) {
	ran := false
	t.Run("slow", func(t *testing.T) {
		Slow(t)
		ran = true
	})
	if want := !testing.Short() || raceEnabled; ran != want {
		t.Errorf("short %v, race %v: ran %v, want %v", testing.Short(), raceEnabled, ran, want)
	}
}
