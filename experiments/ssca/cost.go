package ssca

import "github.com/fedcon/fedcon/experiments"

// sscaCostModel says what SSCASpecsCost counts.
const sscaCostModel = "per run and curve: T·B·E·(I for FedAvg)·6P training flops plus, per evaluation, " +
	"(train + test images)·2P, P = 794·J weights, at 4 Gflop/s"

// SSCASpecsCost estimates runs runs of every spec on data: the swish
// network's products dominate, about 2P flops per image forward and 6P
// for a training step (forward and backward).
func (c *SSCAConfig) SSCASpecsCost(data *SSCAData, specs []SSCASpec, runs int) experiments.Cost {
	p := float64(794 * c.Hidden) // 784 inputs + 10 outputs per hidden unit
	var images float64
	if data != nil {
		images = float64(data.EvalTrain.N + data.EvalTest.N)
	}
	var flops float64
	for _, s := range specs {
		evals := 0
		at := c.evalAt(s)
		for t := 1; t <= c.Rounds; t++ {
			if at(t) {
				evals++
			}
		}
		steps := float64(s.Batch * max(1, s.LocalSteps))
		if s.Algo == "fedavg" {
			steps *= float64(c.Clients)
		}
		flops += float64(runs) * (float64(c.Rounds)*steps*6*p + float64(evals)*images*2*p)
	}
	bytes := float64(runs) * float64(len(specs)) * float64(c.Rounds) * 64 // curves kept per run
	if data != nil {
		bytes += 8 * float64(data.Set.Train.N+data.Set.Test.N) * 784 // decoded images, dense bound
	}
	return experiments.Cost{Bytes: bytes, Seconds: flops / experiments.FlopRate, Model: sscaCostModel}
}
