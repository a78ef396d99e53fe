package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	pd "github.com/fedcon/fedcon/problems/drfl"
	sd "github.com/fedcon/fedcon/solver/drfl"
)

// DRFLOptions are the flags of `fedcon run drfl`.
type DRFLOptions struct {
	Dataset, Model, P, QHat, Support string
	Rho, Imbalance, Loss             string
	Kappa, Theta, C, Tol, Epsilon    float64
	TestMean, TestSD                 float64
	Seed                             uint64
	MaxRounds, Workers               int
	JSON, Quiet                      bool
	Dirs                             []string
	ctx                              context.Context
}

func newCmdRunDRFL(f *Factory, runF func(*DRFLOptions) error) *cobra.Command {
	o := &DRFLOptions{}
	c := &cobra.Command{
		Use:   "drfl",
		Short: "Train one DRFL-family model (issue 10) on one repetition's split and print its test accuracy (SVM) or MSE (Huber)",
		Example: `  fedcon run drfl --dataset heart --model drfl --rho 0.01 --kappa 0.5 --theta 0.01
  fedcon run drfl --dataset abalone --model drfl --rho 0.001 --kappa 0.5   # Huber regression
  fedcon run drfl --model wafl --rho 0.001 --test-sd 0.5
  fedcon run drfl --model afl --theta 0.1 --p inf --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.ctx = c.Context()
			o.Dirs = dataDirs(f, c)
			o.JSON, _ = c.Flags().GetBool("json")
			o.Quiet, _ = c.Flags().GetBool("quiet")
			if runF != nil {
				return runF(o)
			}
			return drflRun(f, o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Dataset, "dataset", "heart", "dataset: heart or breast-cancer-wisc (SVM), abalone (Huber regression)")
	fl.StringVar(&o.Loss, "loss", "", "loss: hinge (SVM) or huber (regression); default by dataset")
	fl.Float64Var(&o.Epsilon, "epsilon", pd.DefaultHuberEpsilon, "Huber threshold ε > 0")
	fl.StringVar(&o.Model, "model", "drfl", "model: "+strings.Join(experiments.DRFLModels(), ", "))
	fl.StringVar(&o.Rho, "rho", "0.01", "Wasserstein radius ρ for every client, or S comma-separated ρ_s (wafl: the pooled ball)")
	fl.StringVar(&o.Imbalance, "imbalance", "", "share of each client's minority class kept, S comma-separated ratios in (0, 1] (Figures 4-5: 0.5,0.5,1)")
	fl.Float64Var(&o.Kappa, "kappa", 0.5, "label-flip cost κ > 0")
	fl.Float64Var(&o.Theta, "theta", 0.01, "radius θ ≥ 0 of the weight set Q (drfl, afl)")
	fl.StringVar(&o.P, "p", "1", "norm of Q: 1, 2 or inf")
	fl.StringVar(&o.QHat, "qhat", "size", "centre q̂: size (N_s/N), uniform, or S comma-separated weights")
	fl.StringVar(&o.Support, "support", "box", "feature support in Ω_s of the SVM: box ([−1,1]ⁿ, Prop. 6.3) or free (Huber: Ξ = ℝⁿ⁺¹ always)")
	fl.Float64Var(&o.C, "c", sd.DefaultC, "AD-LPMM step size c > 0")
	fl.Float64Var(&o.Tol, "tol", sd.DefaultTol, "stopping tolerance on residuals and c·steps")
	fl.IntVar(&o.MaxRounds, "max-rounds", sd.DefaultMaxRounds, "round cap (status RoundLimit)")
	fl.Uint64Var(&o.Seed, "seed", 1, "repetition seed: split, clients, noise")
	fl.Float64Var(&o.TestMean, "test-mean", 0, "mean of the Gaussian noise added to the test features")
	fl.Float64Var(&o.TestSD, "test-sd", 0, "SD of the Gaussian noise added to the test features")
	fl.IntVar(&o.Workers, "workers", 0, "clients solved at once (default: number of CPUs)")
	return c
}

// floatList parses comma-separated numbers as a config error on failure.
func floatList(field, s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil {
			return nil, &experiments.ConfigError{Field: field, Value: s, Reason: "want comma-separated numbers"}
		}
		out = append(out, v)
	}
	return out, nil
}

// drflParams turns the options into validated model parameters.
func (o *DRFLOptions) params(S int) (experiments.DRFLParams, error) {
	p := experiments.DRFLParams{Model: o.Model, Kappa: o.Kappa, Theta: o.Theta, Loss: o.Loss}
	if o.Loss == "huber" {
		p.Epsilon = o.Epsilon
	}
	if !(o.Epsilon > 0) {
		return p, &experiments.ConfigError{Field: "epsilon", Value: o.Epsilon, Reason: "want > 0"}
	}
	rhos, err := floatList("rho", o.Rho)
	if err != nil {
		return p, err
	}
	switch {
	case len(rhos) == 1:
		p.Rho = rhos[0]
	case len(rhos) == S && o.Model == experiments.DRFLModel:
		p.Rhos = rhos
	default:
		return p, &experiments.ConfigError{Field: "rho", Value: o.Rho, Reason: fmt.Sprintf("want one radius or %d (drfl only), got %d", S, len(rhos))}
	}
	switch o.P {
	case "1":
		p.P = 1
	case "2":
		p.P = 2
	case "inf", "Inf", "+inf":
		p.P = math.Inf(1)
	default:
		return p, &experiments.ConfigError{Field: "p", Value: o.P, Reason: "want 1, 2 or inf"}
	}
	sup, err := pd.ParseSupport(o.Support)
	if err != nil {
		return p, &experiments.ConfigError{Field: "support", Value: o.Support, Reason: "want box or free"}
	}
	p.Support = sup
	switch o.QHat {
	case "size":
	case "uniform":
		p.QHat = make([]float64, S)
		for s := range p.QHat {
			p.QHat[s] = 1 / float64(S)
		}
	default:
		parts := strings.Split(o.QHat, ",")
		if len(parts) != S {
			return p, &experiments.ConfigError{Field: "qhat", Value: o.QHat, Reason: fmt.Sprintf("want %d weights, got %d", S, len(parts))}
		}
		var sum float64
		for _, s := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || v < 0 {
				return p, &experiments.ConfigError{Field: "qhat", Value: o.QHat, Reason: "weights must be numbers ≥ 0"}
			}
			p.QHat = append(p.QHat, v)
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			return p, &experiments.ConfigError{Field: "qhat", Value: o.QHat, Reason: "weights must sum to 1 (q̂ ∈ Δ_S)"}
		}
	}
	if !(o.C > 0) {
		return p, &experiments.ConfigError{Field: "c", Value: o.C, Reason: "want > 0"}
	}
	if !(o.Tol > 0) || o.MaxRounds < 1 {
		return p, &experiments.ConfigError{Field: "tol/max_rounds", Value: fmt.Sprint(o.Tol, "/", o.MaxRounds), Reason: "want tol > 0 and max rounds ≥ 1"}
	}
	if !(o.TestSD >= 0) {
		return p, &experiments.ConfigError{Field: "test_sd", Value: o.TestSD, Reason: "want ≥ 0"}
	}
	return p, p.Validate()
}

func drflRun(f *Factory, o *DRFLOptions) error {
	p, err := o.params(3)
	if err != nil {
		return err
	}
	workers, err := workersFlag(f, o.Workers)
	if err != nil {
		return err
	}
	dcfg := experiments.DefaultDRFLData(o.Dataset)
	if o.Imbalance != "" {
		if dcfg.Imbalance, err = floatList("imbalance", o.Imbalance); err != nil {
			return err
		}
		if len(dcfg.Imbalance) != 3 {
			return &experiments.ConfigError{Field: "imbalance", Value: o.Imbalance, Reason: "want 3 ratios, one per client"}
		}
		for s, r := range dcfg.Imbalance {
			if !(r > 0 && r <= 1) {
				return &experiments.ConfigError{Field: "imbalance", Value: o.Imbalance, Reason: fmt.Sprintf("ratio of client %d outside (0, 1]", s+1)}
			}
		}
	}
	d, err := datasets.Load(o.Dataset, o.Dirs)
	if err != nil {
		return err
	}
	if o.Loss == "" && d.Regression {
		p.Loss, p.Epsilon = "huber", o.Epsilon
	}
	sp, err := experiments.NewDRFLSplit(d, dcfg, o.Seed)
	if err != nil {
		return err
	}
	testX := sp.NoisyTest(o.TestMean, o.TestSD, rand.New(rand.NewPCG(o.Seed, 0x7e57)))
	set := &sd.Settings{C: o.C, Tol: o.Tol, MaxRounds: o.MaxRounds, Workers: workers}
	if !o.Quiet && f.IO.ErrTTY {
		set.Record = func(round int, prim, step float64) {
			if round%50 == 0 {
				fmt.Fprintf(f.IO.ErrOut, "\rround %d  residual %.2e  step %.2e", round, prim, step)
			}
		}
	}
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := experiments.RunDRFL(ctx, sp, p, testX, set)
	if set.Record != nil {
		fmt.Fprintln(f.IO.ErrOut)
	}
	if r == nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		if e := enc.Encode(r); e != nil {
			return e
		}
		return err
	}
	t := dataTable(f.IO.Out, "model", "status", "rounds", "objective (4)", "worst case", "train "+r.Metric, "test "+r.Metric, "worst client", "q* = −σ", "bytes/round", "bytes", "seconds")
	q := make([]string, len(r.QStar))
	for s, v := range r.QStar {
		q[s] = strconv.FormatFloat(v, 'f', 3, 64)
	}
	_ = t.Append(r.Params.Model, r.Status, r.Rounds, fmt.Sprintf("%.6f", r.Objective), fmt.Sprintf("%.6f", r.WorstCase),
		fmt.Sprintf("%.4f", r.Train), fmt.Sprintf("%.4f", r.Test), fmt.Sprintf("%.4f", r.WorstClient),
		strings.Join(q, " "), r.BytesPerRound, r.BytesTotal, fmt.Sprintf("%.2f", r.Seconds))
	if e := t.Render(); e != nil {
		return e
	}
	if r.Status != sd.Converged.String() {
		fmt.Fprintf(f.IO.ErrOut, "fedcon: warning: %s after %d rounds\n", r.Status, r.Rounds)
	}
	return err
}
