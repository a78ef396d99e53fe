package ssca

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/internal/recheck"
)

// Rounding bounds of the recomputation at the stored w^T, relative to the
// value: F(w) in float64 sums the same terms as the run in another order
// (about (K + J)·u per image; the two agree to 1e-12 in
// TestSwishEvalAgainstSwishnet), so recheck.Gamma; with eval_precision
// float32 the run's first layer rounds to float32, within 1e-6 of the
// float64 cost (swishnet's TestEvaluateCostFloat32 measures 1e-8 to 1e-7).
const (
	costAgree64 = recheck.Gamma
	costAgree32 = 1e-6
)

// sscaFile is what the weights rule reads of an SSCA figure's result.
type sscaFile struct {
	Name       string  `json:"name"`
	DataSHA256 string  `json:"data_sha256"`
	EvalTrainN int     `json:"eval_train_n"`
	EvalTestN  int     `json:"eval_test_n"`
	Curves     []Curve `json:"curves"`
}

// genericWeights is the "final weights recomputed" row of an SSCA figure
// or `run ssca` result:
// for every curve's run WeightsRun whose trial names a weights file, the
// file's SHA-256, then F(w^T), the objective F + λ‖w‖², ‖w‖² and the test
// accuracy recomputed by recheck.SwishEval on the evaluation sets drawn
// again from the data, against the trial's last point. Curves whose run
// stores no weights (files of an older fedcon, a diverged run) are counted
// as not checked.
func genericWeights(in experiments.VerifyInput) []experiments.CheckRow {
	// An SSCA result (a figure, `run ssca`): curves and an SSCA configuration.
	var f sscaFile
	var cfg Config
	if json.Unmarshal(in.Result, &f) != nil || len(f.Curves) == 0 || experiments.StrictConfig(in.Config, &cfg) != nil || cfg.Dataset == "" {
		return nil
	}
	return []experiments.CheckRow{weightsRow(in.Name, filepath.Join(in.Dir, "trials"), &f, &cfg, func() (*Data, error) {
		return LoadData(&cfg, datasets.IDXSearchPath(cfg.Dataset, in.DataDirs))
	})}
}

// weightsRow is genericWeights' row for result f of configuration cfg,
// its trial files in dir and its data from load (called only when some
// run stores weights).
func weightsRow(name, dir string, f *sscaFile, cfg *Config, load func() (*Data, error)) experiments.CheckRow {
	var v experiments.Verifier
	row := func(ok string) experiments.CheckRow { return v.Row(name, "final weights recomputed", ok) }
	var todo []*Trial
	unchecked := 0
	for i := range f.Curves {
		for j := range f.Curves[i].Trials {
			tr := &f.Curves[i].Trials[j]
			if tr.Run != WeightsRun {
				continue
			}
			if tr.FinalW == nil {
				unchecked++
				continue
			}
			todo = append(todo, tr)
		}
	}
	notChecked := ""
	if unchecked > 0 {
		notChecked = fmt.Sprintf("; not checked: %d curves whose run %d stores no final weights (a file of an older fedcon, or a diverged run)", unchecked, WeightsRun)
	}
	if len(todo) == 0 {
		return row("no stored final weights" + notChecked)
	}
	data, err := load()
	switch {
	case err != nil:
		v.Fail("%s: %v", cfg.Dataset, err)
		return row("")
	case data.Set.SHA256 != f.DataSHA256:
		v.Fail("%s: the data found have SHA-256 %s, the run's %s", cfg.Dataset, data.Set.SHA256, f.DataSHA256)
		return row("")
	case data.EvalTrain.N != f.EvalTrainN || data.EvalTest.N != f.EvalTestN:
		v.Fail("evaluation sets of %d and %d images, the run's %d and %d", data.EvalTrain.N, data.EvalTest.N, f.EvalTrainN, f.EvalTestN)
		return row("")
	}
	agree := costAgree64
	if cfg.EvalPrecision == "float32" {
		agree = costAgree32
	}
	for _, tr := range todo {
		if msg := recheckWeights(cfg, data, dir, tr, agree); msg != "" {
			v.Fail("%s run %d: %s", tr.Spec.Label(), tr.Run, msg)
		}
	}
	return row(fmt.Sprintf("%d curves: at run %d's stored w^T (its SHA-256 checked), F(w^T), F + λ‖w‖² and ‖w‖² recomputed on the %d-image evaluation set within %g relative (eval_precision %s), the test accuracy on %d images within the near ties' share%s",
		len(todo), WeightsRun, data.EvalTrain.N, agree, cfg.EvalPrecision, data.EvalTest.N, notChecked))
}

// recheckWeights recomputes trial tr's last point at its stored weights
// and returns what disagrees ("" when nothing).
func recheckWeights(cfg *Config, data *Data, dir string, tr *Trial, agree float64) string {
	w, err := ReadWeights(dir, tr.FinalW)
	if err != nil {
		return err.Error()
	}
	last := len(tr.T) - 1
	if last < 0 || tr.T[last] != cfg.Rounds || len(tr.TrainCost) != len(tr.T) || len(tr.Objective) != len(tr.T) || len(tr.TestAcc) != len(tr.T) || len(tr.Norm2) != len(tr.T) {
		return fmt.Sprintf("no point at T = %d to compare the weights with", cfg.Rounds)
	}
	cost, _, _, err := recheck.SwishEval(w, plainImages(data.EvalTrain), cfg.Hidden, 10)
	if err != nil {
		return err.Error()
	}
	_, acc, ties, err := recheck.SwishEval(w, plainImages(data.EvalTest), cfg.Hidden, 10)
	if err != nil {
		return err.Error()
	}
	var n2 float64
	for _, x := range w {
		n2 += x * x
	}
	obj := cost + tr.Spec.Lambda*n2
	switch {
	case math.Abs(tr.TrainCost[last]-cost) > agree*math.Abs(cost):
		return fmt.Sprintf("train_cost %.12g at T, recomputed at the stored w^T %.12g", tr.TrainCost[last], cost)
	case math.Abs(tr.Norm2[last]-n2) > recheck.Gamma*n2:
		return fmt.Sprintf("norm2 %.12g at T, recomputed %.12g", tr.Norm2[last], n2)
	case math.Abs(tr.Objective[last]-obj) > agree*math.Abs(obj):
		return fmt.Sprintf("objective %.12g at T, recomputed %.12g", tr.Objective[last], obj)
	case math.Abs(tr.TestAcc[last]-acc) > float64(ties)/float64(data.EvalTest.N)+1e-12:
		return fmt.Sprintf("test_acc %.6g at T, recomputed %.6g (%d near ties)", tr.TestAcc[last], acc, ties)
	}
	return ""
}

// plainImages is img as recheck reads it.
func plainImages(img *datasets.Images) recheck.Images {
	return recheck.Images{N: img.N, K: img.K, RowPtr: img.RowPtr, Col: img.Col, Val: img.Val, Labels: img.Labels}
}

func init() { experiments.RegisterGenericCheck(genericWeights) }
