package experiments

import "math"

// Cost estimates the conic QP's memory and time with the LCQP model: every
// trial draws its own instance of the same size, workers at a time.
func (c *ConicQPConfig) Cost(workers int) Cost {
	var cost Cost
	for _, cell := range c.Cells {
		if len(cell) != 3 {
			continue
		}
		b, f := qpCellCost(cell[1], cell[0], cell[2], 1)
		cost.Bytes = math.Max(cost.Bytes, b*float64(max(1, min(workers, c.Trials))))
		cost.Seconds += float64(c.Trials) * f / FlopRate
	}
	cost.Model = "per instance " + qpCostModel
	return cost
}
