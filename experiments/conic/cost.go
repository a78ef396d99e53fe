package conic

import (
	"math"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
)

// Cost estimates the conic QP's memory and time with the LCQP model: every
// trial draws its own instance of the same size, workers at a time.
func (c *QPConfig) Cost(workers int) experiments.Cost {
	var cost experiments.Cost
	for _, cell := range c.Cells {
		if len(cell) != 3 {
			continue
		}
		b, f := proxal.QPCellCost(cell[1], cell[0], cell[2], 1)
		cost.Bytes = math.Max(cost.Bytes, b*float64(max(1, min(workers, c.Trials))))
		cost.Seconds += float64(c.Trials) * f / experiments.FlopRate
	}
	cost.Model = "per instance " + proxal.QPCostModel
	return cost
}
