package cmd

import (
	"slices"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// TestCheckNamesRegistered: the paper packages cmd links register every
// gated table with the core's check registry, and nothing else.
func TestCheckNamesRegistered(t *testing.T) {
	want := []string{"conic-table1", "conic-table2", "conic-table3", "table1", "table2", "table2-authors", "table4"}
	if got := experiments.CheckNames(); !slices.Equal(got, want) {
		t.Errorf("CheckNames() = %v, want %v", got, want)
	}
}
