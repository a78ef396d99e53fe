package drfl

import "github.com/fedcon/fedcon/experiments"

// CPU seconds of one Algorithm 1 fit per training row, measured on the
// noise figures (docs/performance.md, "DRFL noise figures"): an SVM fit
// with box support takes about 0.5 s on heart's 3 × 137 rows and 0.3 s
// on breast cancer's 410 training rows, a Huber fit about 0.28 s on
// abalone's 3 × 835 rows. Both are rounded up: the DRFL model is the
// slowest of the five.
const (
	svmFitSecondsPerRow   = 1.3e-3
	huberFitSecondsPerRow = 1.3e-4
	// cvFitShare is a cross-validation fit's cost relative to a full fit:
	// it trains on (k−1)/k of the rows, and chains of candidates share
	// warm starts, fits and central LPs. Measured: drfl-figure5 --quick
	// --cv, one repetition (315 fits), 17.9 s CPU; about 10 min on 2 cores
	// per repetition of the full-grid breast-cancer figure (5,285 fits).
	cvFitShare = 0.5
)

// builtinShapes are the rows and columns (intercept included) of the
// figures' data sets as datasets.Load returns them, so that the estimate
// needs no data files.
var builtinShapes = map[string]struct {
	rows, cols int
	regression bool
}{
	"heart":              {270, 14, false},
	"breast-cancer-wisc": {683, 10, false},
	"abalone":            {4177, 11, true},
}

// DatasetShape is a figure data set's rows, columns and whether it is a
// regression; ok is false for a data set it does not know.
func DatasetShape(name string) (rows, cols int, regression, ok bool) {
	s, ok := builtinShapes[name]
	return s.rows, s.cols, s.regression, ok
}

// drflCostModel says what the DRFL estimates count.
const drflCostModel = "Algorithm 1 fits × training rows × 1.3 ms (SVM) or 0.13 ms (Huber); " +
	"with --cv, every model's grid points × folds more at half that per repetition"

// FitCost is the estimate of one Algorithm 1 fit on rows rows of features
// features: its CPU time and the data and client QPs it keeps.
func FitCost(rows, features int, regression bool) experiments.Cost {
	per := svmFitSecondsPerRow
	if regression {
		per = huberFitSecondsPerRow
	}
	// The split, its noisy copies and each client's QP: a few copies of
	// the data matrix, and the QP's dense KKT system of 2·features
	// variables.
	bytes := 8*float64(rows)*float64(features+1)*8 + 8*float64(4*features*features)
	return experiments.Cost{Bytes: bytes, Seconds: per * float64(rows), Model: drflCostModel}
}

// Fits counts the Algorithm 1 fits of the whole figure row: one per model
// and repetition, and with cross-validation every candidate of a tuned
// model on every fold (cvFits) besides.
func (c NoiseConfig) Fits() (fits, cvFits int) {
	for _, p := range c.Params {
		fits++
		if c.CV != nil {
			if n := len(c.CV.candidates(p)); n > 1 {
				cvFits += n * c.Folds
			}
		}
	}
	return fits * c.Repetitions, cvFits * c.Repetitions
}

// Cost estimates the figure row on a dataset of rows rows and features
// features: its fits at the training share, and the test sets of every
// noise level and protocol kept for scoring.
func (c NoiseConfig) Cost(rows, features int, regression bool) experiments.Cost {
	train := max(1, int(c.Data.TrainShare*float64(rows)))
	fit := FitCost(train, features, regression)
	test := 8 * float64(rows-train) * float64(features+1) * float64(3*len(c.Levels))
	fits, cvFits := c.Fits()
	secs := fit.Seconds * (float64(fits) + cvFitShare*float64(cvFits))
	return experiments.Cost{Bytes: fit.Bytes + test, Seconds: secs, Model: drflCostModel}
}

// Figure 1's CPU per unit, rounded up from `reproduce drfl-figure1` with
// 20 times the preset's draws, runs or samples (0.17, 0.11 and 0.14 s
// over the preset's 0.11 s): about 85 ns per draw, 60 ns per sample of a
// coverage run.
const (
	fig1SecondsPerDraw   = 200e-9
	fig1SecondsPerSample = 100e-9
	fig1SecondsPerStep   = 1e-6 // a point of the coverage curves, drawn
)

// Cost estimates Figure 1: the coverage runs' samples, the draws kept for
// the volumes and the coverage curves' points on the ρ grid.
func (c Figure1Config) Cost() experiments.Cost {
	steps := 0.0
	if c.RhoStep > 0 {
		steps = c.RhoMax / c.RhoStep
	}
	samples := float64(c.Runs) * float64(c.Samples)
	secs := fig1SecondsPerDraw*float64(c.Draws) + fig1SecondsPerSample*samples + fig1SecondsPerStep*steps
	bytes := 16*float64(c.Draws) + 16*float64(c.Runs) + 48*float64(c.Samples) + 64*steps
	return experiments.Cost{Bytes: bytes, Seconds: secs,
		Model: "Figure 1: 200 ns and 16 bytes per draw, 100 ns per coverage sample, 1 µs and 64 bytes per ρ grid point"}
}
