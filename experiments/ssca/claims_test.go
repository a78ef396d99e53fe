package ssca

import (
	"math"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// trial is a synthetic run evaluated at t = 1, 5, 10 (T = 10).
func trial(seed uint64, cost, acc [3]float64) Trial {
	return Trial{Seed: seed, T: []int{1, 5, 10}, TrainCost: cost[:], TestAcc: acc[:], Status: "OuterIterationLimit"}
}

func claimsTestConfig() *Config {
	c := sscaTestConfig()
	c.Rounds, c.Clients = 10, 10
	c.SampleBatches, c.FeatureBatches = []int{1, 10}, []int{10, 100}
	c.FedAvg = []FedAvgRun{{1, 1}, {5, 2}}
	c.FSGDBatches = nil
	return c
}

func TestSSCAClaims(t *testing.T) {
	c := claimsTestConfig()
	acc := [3]float64{0.5, 0.6, 0.7}
	// Alg. 1 B=10 ends at (0.5, 0.6, 0.7) over seeds 1-3, B=1 at (0.8, 0.8, 1.0):
	// d = (-0.3, -0.2, -0.3), mean -4/15, sample sd 1/√300, s.e. 1/30,
	// t = 8 with 2 degrees of freedom, p = 1 - 8/√66; all three below: sign p = 2/8.
	b10 := Curve{Spec: Spec{Algo: "alg1", Batch: 10}, Trials: []Trial{
		trial(1, [3]float64{2, 1, 0.5}, acc), trial(2, [3]float64{2, 1, 0.6}, acc), trial(3, [3]float64{2, 1, 0.7}, acc)}}
	b1 := Curve{Spec: Spec{Algo: "alg1", Batch: 1}, Trials: []Trial{
		trial(1, [3]float64{2, 1.5, 0.8}, acc), trial(2, [3]float64{2, 1.5, 0.8}, acc), trial(3, [3]float64{2, 1.5, 1.0}, acc)}}
	// FedAvg B=5, E=2: seed 2 diverged (excluded), seed 4 has no Alg. 1 partner.
	div := trial(2, [3]float64{2, 3, 9}, acc)
	div.Status = "Diverged"
	fa := Curve{Spec: Spec{Algo: "fedavg", Batch: 5, LocalSteps: 2}, Trials: []Trial{
		trial(1, [3]float64{2, 1, 0.4}, acc), div, trial(3, [3]float64{2, 1, 0.6}, acc), trial(4, [3]float64{2, 1, 0.1}, acc)}}
	rows := c.Claims("figure2", map[string][]Curve{"figure2": {b1, b10, fa}})
	find := func(claim, a, metric string) ClaimRow {
		t.Helper()
		for _, r := range rows {
			if strings.HasPrefix(r.Claim, claim) && r.A == a && r.Metric == metric {
				return r
			}
		}
		t.Fatalf("no row %q %q %q in %+v", claim, a, metric, rows)
		return ClaimRow{}
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }

	r := find("larger B", "Alg. 1 B=10", finalCost.name)
	if r.B != "Alg. 1 B=1" || r.N != 3 || !near(r.MeanDiff, -4.0/15) || !near(r.SE, 1.0/30) ||
		math.Abs(r.PT-(1-8/math.Sqrt(66))) > 1e-9 || !near(r.PSign, 0.25) || r.Below != 3 || r.Verdict != "holds" ||
		!near(r.MeanA.Mean, 0.6) || !near(r.MeanB.Mean, 13.0/15) {
		t.Errorf("final cost, B=10 vs B=1: %+v", r)
	}
	// Trapezoid over t = 1, 5, 10: (4·(2+c5)/2 + 5·(c5+c10)/2)/9; for B=10
	// seed 1 (2, 1, 0.5): (6 + 3.75)/9. The differences are 5·(-0.5)/2/9 in
	// the middle segment and 5·d/2/9 in the last.
	r = find("larger B", "Alg. 1 B=10", meanCost.name)
	if want := (6 + 3.75) / 9; !near(meanCostOf(b10.Trials[0]), want) {
		t.Errorf("trapezoid mean %v, want %v", meanCostOf(b10.Trials[0]), want)
	}
	if want := (4*(-0.5)/2 + 5*(-0.5-4.0/15)/2) / 9; !near(r.MeanDiff, want) || r.Verdict != "holds" {
		t.Errorf("mean cost: diff %v, want %v (%+v)", r.MeanDiff, want, r)
	}
	// Equal accuracies: no difference, no untied pair.
	r = find("larger B", "Alg. 1 B=10", finalAcc.name)
	if r.N != 3 || r.MeanDiff != 0 || r.PT != 1 || r.PSign != 1 || r.Verdict != "not significant" {
		t.Errorf("accuracy: %+v", r)
	}
	// Alg. 1 B=10 against FedAvg B=5 E=2: seeds 1 and 3 pair (d = 0.1, 0.1),
	// seed 2 diverged, seed 4 unpaired; equal non-zero differences: p = 0,
	// the claim (lower) reversed.
	r = find("Alg. 1 faster than FedAvg E=2", "Alg. 1 B=10", finalCost.name)
	if r.B != "FedAvg B=5 E=2" || r.N != 2 || r.Excluded != 2 || !near(r.MeanDiff, 0.1) || r.PT != 0 || r.Verdict != "reversed" {
		t.Errorf("vs FedAvg E=2: %+v", r)
	}
	// No FedAvg B=1 E=1 curve: no row for it; Alg. 2 absent: none either.
	for _, r := range rows {
		if r.B == "FedAvg B=1 E=1" || strings.HasPrefix(r.A, "Alg. 2") {
			t.Errorf("row for a missing curve: %+v", r)
		}
	}
	tab := ClaimsTable("claims", rows)
	if len(tab.Rows) != len(rows) || tab.Rows[0][len(tab.Header)-1] != rows[0].Verdict {
		t.Errorf("table: %v", tab.Rows)
	}
}

func TestSSCAClaimsFigure4AndCross(t *testing.T) {
	c := claimsTestConfig()
	c.USweep, c.Fig4SampleB, c.Fig4FeatureB = []float64{0.8, 0.4}, 10, 100
	fin := func(seed uint64, cost, acc float64) Trial {
		return Trial{Seed: seed, T: []int{10}, TrainCost: []float64{cost}, TestAcc: []float64{acc}}
	}
	u4 := Curve{Spec: Spec{Algo: "alg2", Batch: 10, U: 0.4, FinalOnly: true}, Trials: []Trial{fin(1, 0.45, 0.8), fin(2, 0.43, 0.7)}}
	u8 := Curve{Spec: Spec{Algo: "alg2", Batch: 10, U: 0.8, FinalOnly: true}, Trials: []Trial{fin(1, 0.85, 0.6), fin(2, 0.80, 0.65)}}
	rows := c.Claims("figure4", map[string][]Curve{"figure4": {u8, u4}})
	if len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	// Cost: d = (-0.40, -0.37), mean -0.385, s.e. 0.015: t = 25.67 on one
	// degree of freedom, p = 1 - (2/π)·atan(t) = 0.025.
	if r := rows[0]; r.A != "Alg. 2 B=10" || !near12(r.MeanDiff, -0.385) || !near12(r.SE, 0.015) ||
		math.Abs(r.PT-(1-2/math.Pi*math.Atan(0.385/0.015))) > 1e-9 || r.Verdict != "holds" {
		t.Errorf("U cost: %+v", r)
	}
	// Accuracy: d = (0.2, 0.05), mean 0.125, s.e. 0.075, higher expected.
	if r := rows[1]; r.Expect != "higher" || !near12(r.MeanDiff, 0.125) || !near12(r.SE, 0.075) || r.Above != 2 {
		t.Errorf("U accuracy: %+v", r)
	}
	// Figures 2 and 3 together: Alg. 1 B=1 against Alg. 3 B=10 (I = 10), "similar".
	acc := [3]float64{0.5, 0.6, 0.7}
	a1 := Curve{Spec: Spec{Algo: "alg1", Batch: 1}, Trials: []Trial{trial(1, [3]float64{2, 1, 0.5}, acc), trial(2, [3]float64{2, 1, 0.7}, acc)}}
	a3 := Curve{Spec: Spec{Algo: "alg3", Batch: 10}, Trials: []Trial{trial(1, [3]float64{2, 1, 0.6}, acc), trial(2, [3]float64{2, 1, 0.5}, acc)}}
	byFig := map[string][]Curve{"figure2": {a1}, "figure3": {a3}}
	if rows := c.Claims("figure2", byFig); len(rows) != 0 {
		t.Errorf("Figure 2 has the cross rows: %+v", rows)
	}
	rows = c.Claims("figure3", byFig)
	var n int
	for _, r := range rows {
		if r.Figure == "figure2+3" {
			n++
			if r.Expect != "similar" || r.A != "Alg. 1 B=1" || r.B != "Alg. 3 B=10" || r.Verdict != "no significant difference" {
				t.Errorf("cross: %+v", r)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d cross rows, want 3 metrics", n)
	}
}

func near12(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func meanCostOf(tr Trial) float64 {
	v, _ := meanCost.val(tr, 10)
	return v
}

func TestRoundsTable(t *testing.T) {
	div := trial(2, [3]float64{3, 5, 0}, [3]float64{0.1, 0.2, 0})
	div.T, div.TrainCost, div.TestAcc = div.T[:2], div.TrainCost[:2], div.TestAcc[:2]
	c := Curve{Spec: Spec{Algo: "alg1", Batch: 10}, Trials: []Trial{trial(1, [3]float64{1, 1, 0.5}, [3]float64{0.3, 0.4, 0.9}), div}}
	tab := RoundsTable("Figure 2", []Curve{c})
	want := [][]string{
		{"Alg. 1 B=10", "alg1-b10-l0", "1", "2", "2", "1", "0.2", "0.1"},
		{"Alg. 1 B=10", "alg1-b10-l0", "5", "2", "3", "2", "0.3", "0.1"},
		{"Alg. 1 B=10", "alg1-b10-l0", "10", "1", "0.5", "0", "0.9", "0"},
	}
	if len(tab.Rows) != len(want) {
		t.Fatalf("rows %v", tab.Rows)
	}
	for i := range want {
		if strings.Join(tab.Rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %v, want %v", i, tab.Rows[i], want[i])
		}
	}
}

func TestProvenanceNote(t *testing.T) {
	r := &Result{Dataset: "fashion-mnist", DataSHA256: "abc", Info: &experiments.RunInfo{Version: "v1", ConfigHash: "h1"},
		Curves: []Curve{{Trials: []Trial{{Seed: 3}, {Seed: 1}, {Seed: 2}}}, {Trials: []Trial{{Seed: 1}}}}}
	want := "Computed from 3 runs per curve (seeds 1-3) on Fashion-MNIST (data SHA-256 abc), fedcon v1, configuration hash h1."
	if got := r.ProvenanceNote(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
