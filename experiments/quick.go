package experiments

import "slices"

// QuickClients are the client counts of a quick run (`reproduce all --quick`).
var QuickClients = []int{1, 5}

// QuickTrials is the number of trials of a quick run.
const QuickTrials = 2

// Quick shrinks c to the smoke run: 2 trials, the cells with n in {1, 5}.
func (c *QPConfig) Quick() {
	c.Trials = QuickTrials
	c.Cells = slices.DeleteFunc(c.Cells, func(cell []int) bool { return len(cell) == 0 || !slices.Contains(QuickClients, cell[0]) })
}

// Quick shrinks c to the smoke run: 2 instances, the cells with n in {1, 5}.
func (c *ConicQPConfig) Quick() {
	c.Trials = min(c.Trials, QuickTrials)
	c.Cells = slices.DeleteFunc(c.Cells, func(cell []int) bool { return len(cell) < 2 || !slices.Contains(QuickClients, cell[1]) })
}

// Quick shrinks c to the smoke run: at most 2 trials, n in {1, 5, 10}
// (one n = 10 cell, so that the gate sees Algorithm 2 with many clients).
func (c *NPConfig) Quick() {
	c.Trials = min(c.Trials, QuickTrials)
	ten := slices.Contains(c.Clients, 10)
	c.Clients = quickClients(c.Clients)
	if ten {
		c.Clients = append(c.Clients, 10)
	}
}

// Quick shrinks c to the smoke run: at most 2 trials, n in {1, 5}.
func (c *FairConfig) Quick() {
	c.Trials = min(c.Trials, QuickTrials)
	c.Clients = quickClients(c.Clients)
}

// quickClients keeps the quick client counts of ns (all of QuickClients
// when none is there).
func quickClients(ns []int) []int {
	out := slices.DeleteFunc(slices.Clone(ns), func(n int) bool { return !slices.Contains(QuickClients, n) })
	if len(out) == 0 {
		return slices.Clone(QuickClients)
	}
	return out
}
