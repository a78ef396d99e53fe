package drfl

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
)

// FitConfig is what one fit of `fedcon run drfl` depends on beyond its
// parameters (RunResult.Params): the data set, its split, the repetition
// seed and the noise added to the test features. It is the configuration
// of the fit's result file (FitResult), from which the gate draws the
// split and the test rows again.
type FitConfig struct {
	Dataset  string     `json:"dataset"`
	Data     DataConfig `json:"data"`
	Seed     uint64     `json:"seed"`
	TestMean float64    `json:"test_mean"`
	TestSD   float64    `json:"test_sd"`
}

// fitTestStream is the PCG stream of a fit's test noise under its seed.
const fitTestStream = 0x7e57

// FitTest returns the fit's test rows: the split's, with N(TestMean,
// TestSD²) added to every feature.
func (c *FitConfig) FitTest(sp *Split) [][]float64 {
	return sp.NoisyTest(c.TestMean, c.TestSD, rand.New(rand.NewPCG(c.Seed, fitTestStream)))
}

// FitResult is the result file of `fedcon run drfl --out`: the run record
// (its configuration a FitConfig) and the fit with its weights w_b.
type FitResult struct {
	Info *experiments.RunInfo `json:"run"`
	Fit  *RunResult           `json:"fit"`
}

// FitName is the experiment name of a fit: drfl-<dataset>-<model>.
func FitName(dataset, model string) string { return fmt.Sprintf("drfl-%s-%s", dataset, model) }

// genericFit is the recomputation rows of a `run drfl` result: the split
// and the test rows drawn again from its FitConfig and the data set, then
// the worst-case objective and the scores at the stored weights
// (recheckFit); other results: none.
func genericFit(in experiments.VerifyInput) []experiments.CheckRow {
	var f struct {
		Fit *RunResult `json:"fit"`
	}
	var cfg FitConfig
	if json.Unmarshal(in.Result, &f) != nil || f.Fit == nil || experiments.StrictConfig(in.Config, &cfg) != nil {
		return nil
	}
	var obj, score experiments.Verifier
	scores := 0
	same := func(what string, got, want float64) {
		scores++
		if !sameScore(got, want) {
			score.Fail("%s: %s %.12g, recomputed at the stored weights %.12g", cfg.Dataset, what, got, want)
		}
	}
	d, err := datasets.Load(cfg.Dataset, in.DataDirs)
	var sp *Split
	if err == nil {
		sp, err = NewSplit(d, cfg.Data, cfg.Seed)
	}
	if err != nil {
		obj.Fail("%s: %v", cfg.Dataset, err)
		score.Fail("%s: %v", cfg.Dataset, err)
	} else {
		recheckFit(cfg.Dataset, f.Fit.Params.Model, sp, cfg.FitTest(sp), f.Fit, &obj, same)
	}
	return []experiments.CheckRow{
		obj.Row(in.Name, "objective recomputed", fmt.Sprintf("the worst-case objective max_{q∈Q} Σ q_s f_s(w, b) recomputed at the stored weights on the split drawn again, agreeing within %g relative", drflAgree)),
		score.Row(in.Name, "scores recomputed", fmt.Sprintf("%d scores (train, test on the noisy test rows drawn again, per client, worst client) recomputed at the stored weights, agreeing within %g", scores, drflScoreAgree)),
	}
}

func init() { experiments.RegisterGenericCheck(genericFit) }
