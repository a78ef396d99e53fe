package ssca

import "github.com/fedcon/fedcon/experiments"

// Measured costs of the swish network per image and hidden unit, as flops
// at experiments.FlopRate (docs/performance.md, SSCA, "Cost model"): an
// evaluated image takes about 4.0 µs CPU at J = 128 (16,000 flops; the
// grouped first layer only touches non-zero pixels), 2.0 µs (8,000 flops)
// for the training cost with a float32 first layer, and a training image
// about 12.9 µs (52,000 flops).
const (
	evalFlopsPerUnit   = 16_000.0 / 128
	eval32FlopsPerUnit = 8_000.0 / 128
	trainFlopsPerUnit  = 52_000.0 / 128
	// featureStepImages: a feature-based step (Algorithms 3-4, feature
	// SGD) costs this many training images' work per image of its batch,
	// measured against FedAvg's steps (which the per-image cost above
	// comes from): 36-38 ms a round at B = 1000 against 13 ms for 1,000
	// sample images.
	featureStepImages = 3.0
	// groupBytesPerImage is Evaluate's cache of image groups: 8 bytes per
	// union pixel, about 65 MB for Fashion-MNIST's 70,000 images.
	groupBytesPerImage = 65e6 / 70_000
)

// sscaCostModel says what SpecsCost counts.
const sscaCostModel = "per run and curve: T·B·E·(I sample-based, 3 feature-based)·406·J training flops plus, per evaluation, " +
	"train images·(63·J float32, 125·J float64) + test images·125·J, measured at J = 128, at 4 Gflop/s"

// SpecsCost estimates runs runs of every spec on data from the measured
// per-image costs of evaluation and training, linear in the width J.
func (c *Config) SpecsCost(data *Data, specs []Spec, runs int) experiments.Cost {
	j := float64(c.Hidden)
	var images, evalFlops float64
	if data != nil {
		images = float64(data.EvalTrain.N + data.EvalTest.N)
		trainUnit := evalFlopsPerUnit
		if c.EvalPrecision == "float32" {
			trainUnit = eval32FlopsPerUnit
		}
		evalFlops = (float64(data.EvalTrain.N)*trainUnit + float64(data.EvalTest.N)*evalFlopsPerUnit) * j
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
		if s.feature() {
			steps *= featureStepImages
		} else {
			steps *= float64(c.Clients) // every client draws its own batch
		}
		flops += float64(runs) * (float64(c.Rounds)*steps*trainFlopsPerUnit*j + float64(evals)*evalFlops)
	}
	bytes := float64(runs) * float64(len(specs)) * float64(c.Rounds) * 64 // curves kept per run
	if data != nil {
		bytes += 8 * float64(data.Set.Train.N+data.Set.Test.N) * 784 // decoded images, dense bound
		bytes += groupBytesPerImage * images                         // Evaluate's group cache
	}
	return experiments.Cost{Bytes: bytes, Seconds: flops / experiments.FlopRate, Model: sscaCostModel}
}
