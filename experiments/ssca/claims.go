package ssca

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/fedcon/fedcon/experiments"
)

// RoundsTable is the compact summary of curves: per curve and evaluated
// iteration t, the mean and standard deviation over runs of the training
// cost F(w^t) and the test accuracy. A diverged run counts up to its last
// evaluated point, so runs can fall with t.
func RoundsTable(title string, curves []Curve) *experiments.Table {
	t := &experiments.Table{Title: title + ": per iteration",
		Header: []string{"method", "key", "t", "runs", "F mean", "F std", "acc. mean", "acc. std"}, Keys: 3}
	for _, c := range curves {
		var ts []int // every evaluated t, in order
		for _, tr := range c.Trials {
			if len(tr.T) > len(ts) {
				ts = tr.T
			}
		}
		for _, it := range ts {
			var cost, acc []float64
			for _, tr := range c.Trials {
				if i := slices.Index(tr.T, it); i >= 0 {
					cost, acc = append(cost, tr.TrainCost[i]), append(acc, tr.TestAcc[i])
				}
			}
			cm, am := experiments.MeanStdOf(cost), experiments.MeanStdOf(acc)
			t.Rows = append(t.Rows, []string{c.Spec.Label(), c.Spec.Key(), strconv.Itoa(it), strconv.Itoa(len(cost)),
				g6(cm.Mean), g6(cm.Std), g6(am.Mean), g6(am.Std)})
		}
	}
	t.Notes = []string{"Mean and population standard deviation over the runs evaluated at t; F: cross-entropy (25) on the evaluation training set."}
	return t
}

func g6(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// ClaimRow is one paired comparison behind a claim of Section VI: method A
// against method B on one metric, over the runs (seeds) both finished.
type ClaimRow struct {
	Figure string `json:"figure"`
	Claim  string `json:"claim"`
	A      string `json:"a"`
	B      string `json:"b"`
	Metric string `json:"metric"`
	// Expect is what the claim says of A's metric against B's: lower,
	// higher or similar.
	Expect string              `json:"expect"`
	MeanA  experiments.MeanStd `json:"a_mean_std"`
	MeanB  experiments.MeanStd `json:"b_mean_std"`
	experiments.Paired
	// Excluded counts the runs left out: diverged, or missing in one curve.
	Excluded int    `json:"excluded"`
	Verdict  string `json:"verdict"`
}

// ClaimAlpha is the two-sided level of the paired t-test behind a verdict.
const ClaimAlpha = 0.05

// claimMetric is a per-run number of a trial; ok is false for a run that
// has none (diverged, or stopped before T).
type claimMetric struct {
	name   string
	higher bool // larger is better (accuracy)
	val    func(tr Trial, T int) (float64, bool)
}

var (
	finalCost = claimMetric{"F(w^T)", false, func(tr Trial, T int) (float64, bool) {
		return lastAt(tr, T, tr.TrainCost)
	}}
	// meanCost is the mean of F(w^t) over t ∈ [t_1, T] by the trapezoid
	// rule: how fast the cost came down, not only where it ended.
	meanCost = claimMetric{"mean F(w^t), t ≤ T", false, func(tr Trial, T int) (float64, bool) {
		n := len(tr.T)
		if _, ok := lastAt(tr, T, tr.TrainCost); !ok || n < 2 {
			return 0, false
		}
		var area float64
		for i := 1; i < n; i++ {
			area += float64(tr.T[i]-tr.T[i-1]) * (tr.TrainCost[i] + tr.TrainCost[i-1]) / 2
		}
		return area / float64(tr.T[n-1]-tr.T[0]), true
	}}
	finalAcc = claimMetric{"test acc. at T", true, func(tr Trial, T int) (float64, bool) {
		return lastAt(tr, T, tr.TestAcc)
	}}
)

// lastAt is v at t = T, if the trial reached T without diverging.
func lastAt(tr Trial, T int, v []float64) (float64, bool) {
	n := len(tr.T)
	if n == 0 || tr.T[n-1] != T || tr.Status == statusDiverged || len(v) != n {
		return 0, false
	}
	return v[n-1], true
}

// compare pairs curves a and b by seed on metric m; expect is "better" (A
// lower on a cost, higher on an accuracy) or "similar".
func compare(fig, claim, expect string, a, b Curve, m claimMetric, T int) ClaimRow {
	if expect == "better" {
		expect = "lower"
		if m.higher {
			expect = "higher"
		}
	}
	r := ClaimRow{Figure: fig, Claim: claim, A: a.Spec.Label(), B: b.Spec.Label(), Metric: m.name, Expect: expect}
	bySeed := map[uint64]Trial{}
	for _, tr := range b.Trials {
		bySeed[tr.Seed] = tr
	}
	var xa, xb []float64
	for _, ta := range a.Trials {
		tb, ok := bySeed[ta.Seed]
		va, okA := m.val(ta, T)
		vb, okB := m.val(tb, T)
		if !ok || !okA || !okB {
			r.Excluded++
			continue
		}
		xa, xb = append(xa, va), append(xb, vb)
	}
	inA := map[uint64]bool{}
	for _, ta := range a.Trials {
		inA[ta.Seed] = true
	}
	for _, tb := range b.Trials {
		if !inA[tb.Seed] {
			r.Excluded++
		}
	}
	r.MeanA, r.MeanB = experiments.MeanStdOf(xa), experiments.MeanStdOf(xb)
	r.Paired = experiments.PairedOf(xa, xb)
	r.Verdict = verdict(r.Paired, expect, m.higher)
	return r
}

// verdict reads the paired t-test at level ClaimAlpha: a claim that A is
// better holds when the mean difference has the claimed sign and is
// significant, is reversed when significant the other way, and is not
// settled otherwise; a claim of similar speed reads "differs" or "no
// significant difference".
func verdict(p experiments.Paired, expect string, higher bool) string {
	if p.N < 2 {
		return "too few runs"
	}
	sig := p.PT < ClaimAlpha
	if expect == "similar" {
		if sig {
			return "differs"
		}
		return "no significant difference"
	}
	better := p.MeanDiff < 0
	if higher {
		better = p.MeanDiff > 0
	}
	switch {
	case !sig:
		return "not significant"
	case better:
		return "holds"
	}
	return "reversed"
}

// findCurve is the curve of algo at batch b (and local steps e for FedAvg,
// U for the constrained algorithms when u > 0), or nil.
func findCurve(curves []Curve, algo string, b, e int, u float64) *Curve {
	for i, c := range curves {
		s := c.Spec
		if s.Algo == algo && s.Batch == b && (algo != "fedavg" || max(1, s.LocalSteps) == e) && (u == 0 || s.U == u) {
			return &curves[i]
		}
	}
	return nil
}

// Claims compares the curves of figure fig claim by claim of Section
// VI; byFig maps figure names to their curves as RunSpecs returns them
// (a claim whose curves are absent has no row):
//
//   - Figures 2, 3: "the proposed algorithms with larger batch sizes
//     converge faster" (each batch size against the next smaller one);
//     Algorithm 1 (3) converges faster than SGD with E = 1 at the same
//     batch size; Algorithm 1 with B = 10 (100) faster than FedAvg with
//     B = 5 (50) and E = 2, the same client computation;
//   - Figures 2 and 3 together (with Figure 3, when byFig has Figure 2):
//     sample- and feature-based algorithms with the same client computation
//     (feature-based B = I times the sample-based B) converge at similar
//     speeds;
//   - Figure 4: the constraint controls the training cost and so the test
//     accuracy: each U against the next larger, lower F(w^T) and higher
//     accuracy expected.
//
// Each claim is tested on F(w^T), the mean cost over t (speed) and the
// test accuracy at T, pairing runs by seed.
func (c *Config) Claims(fig string, byFig map[string][]Curve) []ClaimRow {
	out := []ClaimRow{} // an empty claims file is [], not null
	T := c.Rounds
	curveMetrics := []claimMetric{finalCost, meanCost, finalAcc}
	add := func(fig, claim, expect string, a, b *Curve, ms []claimMetric) {
		if a == nil || b == nil {
			return
		}
		for _, m := range ms {
			out = append(out, compare(fig, claim, expect, *a, *b, m, T))
		}
	}
	batchClaims := func(fig string, curves []Curve, batches []int, algos []string) {
		bs := slices.Sorted(slices.Values(batches))
		for _, algo := range algos {
			for k := 1; k < len(bs); k++ {
				add(fig, "larger B converges faster", "better", findCurve(curves, algo, bs[k], 0, 0), findCurve(curves, algo, bs[k-1], 0, 0), curveMetrics)
			}
		}
	}
	if curves, ok := byFig["figure2"]; ok && fig == "figure2" {
		batchClaims("figure2", curves, c.SampleBatches, []string{"alg1", "alg2"})
		for _, b := range c.SampleBatches {
			add("figure2", "Alg. 1 faster than FedAvg E=1, same B", "better", findCurve(curves, "alg1", b, 0, 0), findCurve(curves, "fedavg", b, 1, 0), curveMetrics)
		}
		for _, f := range c.FedAvg {
			if max(1, f.LocalSteps) == 2 {
				add("figure2", "Alg. 1 faster than FedAvg E=2, B/2 (same client computation)", "better",
					findCurve(curves, "alg1", 2*f.Batch, 0, 0), findCurve(curves, "fedavg", f.Batch, 2, 0), curveMetrics)
			}
		}
	}
	if curves, ok := byFig["figure3"]; ok && fig == "figure3" {
		batchClaims("figure3", curves, c.FeatureBatches, []string{"alg3", "alg4"})
		for _, b := range c.FSGDBatches {
			add("figure3", "Alg. 3 faster than feature SGD, same B", "better", findCurve(curves, "alg3", b, 0, 0), findCurve(curves, "fsgd", b, 0, 0), curveMetrics)
		}
		if sample, ok := byFig["figure2"]; ok {
			for _, b := range c.SampleBatches {
				for _, pair := range [][2]string{{"alg1", "alg3"}, {"alg2", "alg4"}} {
					add("figure2+3", "sample- and feature-based similar at the same client computation", "similar",
						findCurve(sample, pair[0], b, 0, 0), findCurve(curves, pair[1], c.Clients*b, 0, 0), curveMetrics)
				}
			}
		}
	}
	if curves, ok := byFig["figure4"]; ok && fig == "figure4" {
		us := slices.Sorted(slices.Values(c.USweep))
		for _, a := range []struct {
			algo string
			b    int
		}{{"alg2", c.Fig4SampleB}, {"alg4", c.Fig4FeatureB}} {
			for k := 1; k < len(us); k++ {
				small, large := findCurve(curves, a.algo, a.b, 0, us[k-1]), findCurve(curves, a.algo, a.b, 0, us[k])
				add("figure4", "smaller U: lower training cost, higher test accuracy", "better", small, large, []claimMetric{finalCost, finalAcc})
			}
		}
	}
	return out
}

// ClaimsTable renders rows: per comparison the metric's mean (std) for A
// and B over the paired runs, the mean paired difference A - B with its
// standard error, the t-test's and the sign test's p-values, and the verdict.
func ClaimsTable(title string, rows []ClaimRow) *experiments.Table {
	t := &experiments.Table{Title: title, Header: []string{"figure", "claim", "A", "B", "metric", "expect", "A mean (std)", "B mean (std)",
		"pairs", "mean A−B", "s.e.", "p (t)", "A<B / A>B", "p (sign)", "excluded", "verdict"}, Keys: 2}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.Figure, r.Claim, r.A, r.B, r.Metric, "A " + r.Expect, ms4(r.MeanA), ms4(r.MeanB),
			strconv.Itoa(r.N), fmt.Sprintf("%+.4f", r.MeanDiff), fmt.Sprintf("%.4f", r.SE), pval(r.PT),
			fmt.Sprintf("%d / %d", r.Below, r.Above), pval(r.PSign), strconv.Itoa(r.Excluded), r.Verdict})
	}
	t.Notes = []string{
		"Runs are paired by seed (run r of every method uses seed + r). mean A−B and s.e.: the paired differences' mean and " +
			"standard error (sample std / √pairs); p (t): two-sided paired t-test; p (sign): two-sided exact sign test on the untied pairs.",
		fmt.Sprintf("verdict: holds / reversed when p (t) < %g with the claimed / the opposite sign, else not significant; "+
			"for \"A similar\": differs when p (t) < %g, else no significant difference. No correction for the number of comparisons. excluded: runs diverged or missing in either curve.", ClaimAlpha, ClaimAlpha),
		"mean F(w^t), t ≤ T: the trapezoid mean of the training cost over the evaluated iterations, a measure of speed.",
	}
	t.Brief = t.Pick("A", "B", "metric", "mean A−B", "p (t)", "verdict")
	return t
}

func pval(p float64) string {
	if p < 1e-4 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}
