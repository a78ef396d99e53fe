package experiments

import "slices"

// QuickClients are the client counts of a quick run (`reproduce all --quick`).
var QuickClients = []int{1, 5}

// QuickTrials is the number of trials of a quick run.
const QuickTrials = 2

// KeepQuickClients keeps the quick client counts of ns (all of QuickClients
// when none is there).
func KeepQuickClients(ns []int) []int {
	out := slices.DeleteFunc(slices.Clone(ns), func(n int) bool { return !slices.Contains(QuickClients, n) })
	if len(out) == 0 {
		return slices.Clone(QuickClients)
	}
	return out
}
