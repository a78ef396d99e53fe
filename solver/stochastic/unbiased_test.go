package stochastic

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/datasets/datasetstest"
	"github.com/fedcon/fedcon/problems/swishnet"
)

var tinyImages = datasetstest.TinyImages

// subsets lists the b-subsets of {0..n-1}.
func subsets(n, b int) [][]int {
	var out [][]int
	var rec func(start int, cur []int)
	rec = func(start int, cur []int) {
		if len(cur) == b {
			out = append(out, slices.Clone(cur))
			return
		}
		for i := start; i < n; i++ {
			rec(i+1, append(cur, i))
		}
	}
	rec(0, nil)
	return out
}

// TestSampleUnbiased: with unequal N_i, averaging the estimates (32)-(34)
// over every combination of the clients' mini-batches gives the full-data
// gradient and cost, E[B̂, Ĉ] = ∇F(w), E[Â] = F(w) + τ‖w‖² - the estimator
// sum weighted by N_i/(BN) is exactly unbiased.
func TestSampleUnbiased(t *testing.T) {
	net := swishnet.Net{K: 5, J: 3, L: 3}
	img := tinyImages(12, net.K, net.L, 1)
	shards := [][]int{{0, 1, 2}, {3, 4, 5, 6, 7}, {8, 9, 10, 11}} // N_i = 3, 5, 4
	var cl []SampleClient
	for _, s := range shards {
		cl = append(cl, swishnet.NewSampleClient(net, img, s))
	}
	d := net.Dim()
	w := make([]float64, d)
	net.Init(w, rand.New(rand.NewPCG(3, 3)))
	const B, N = 2, 12
	full := make([]float64, d)
	fullLoss := net.Grad(w, img, seq(N), full, net.NewWork())
	for k := range full {
		full[k] /= N
	}
	fullLoss /= N
	// Enumerate every joint choice of mini-batches (3·10·6 = 180).
	s0, s1, s2 := subsets(3, B), subsets(5, B), subsets(4, B)
	mean := make([]float64, d)
	var meanLoss float64
	count := 0
	ghat := make([]float64, d)
	reps := make([]sampleReply, 3)
	for i := range reps {
		reps[i].g = make([]float64, d)
	}
	for _, a := range s0 {
		for _, b := range s1 {
			for _, c := range s2 {
				for i, batch := range [][]int{a, b, c} {
					reps[i].loss = cl[i].Grad(w, batch, reps[i].g)
				}
				meanLoss += sampleEstimate(cl, reps, B, N, ghat)
				for k, v := range ghat {
					mean[k] += v
				}
				count++
			}
		}
	}
	for k := range mean {
		mean[k] /= float64(count)
		if math.Abs(mean[k]-full[k]) > 1e-13*(1+math.Abs(full[k])) {
			t.Fatalf("E[ĝ_%d] = %v, full-data ∇F = %v", k, mean[k], full[k])
		}
	}
	if meanLoss /= float64(count); math.Abs(meanLoss-fullLoss) > 1e-13 {
		t.Fatalf("E[F̂] = %v, F = %v", meanLoss, fullLoss)
	}
}

func featureProblem(net swishnet.Net, img *datasets.Images, I int, labels0 bool) *FeatureProblem {
	fp := &FeatureProblem{Top: [2]int{net.K * net.J, net.Dim()}, LabelsAtClient0: labels0}
	for _, b := range swishnet.Blocks(net.K, I) {
		fp.Clients = append(fp.Clients, swishnet.NewFeatureClient(net, img, b[0], b[1]))
		fp.Blocks = append(fp.Blocks, [2]int{b[0] * net.J, b[1] * net.J})
	}
	return fp
}

// TestFeatureUnbiased: Monte Carlo over the server's mini-batches; every
// coordinate's mean is within 4 standard errors of the full-data gradient,
// and so is the mean of Algorithm 4's loss scalar of the full-data cost.
func TestFeatureUnbiased(t *testing.T) {
	net := swishnet.Net{K: 9, J: 3, L: 3}
	img := tinyImages(40, net.K, net.L, 2)
	d := net.Dim()
	w := make([]float64, d)
	net.Init(w, rand.New(rand.NewPCG(5, 5)))
	full := make([]float64, d)
	fullLoss := net.Grad(w, img, seq(img.N), full, net.NewWork()) / float64(img.N)
	const B, draws = 4, 4000
	ff := newFeatureFed(featureProblem(net, img, 3, false), d, B)
	defer ff.fed.stop()
	rng := newRNG(1, streamServer)
	sum, sq := make([]float64, d), make([]float64, d)
	var st Stats
	var lsum, lsq float64
	for it := 0; it < draws; it++ {
		g, l := ff.round(it+1, w, drawBatch(rng, ff.rng, B), &st, true)
		for k, v := range g {
			sum[k] += v
			sq[k] += v * v
		}
		lsum, lsq = lsum+l, lsq+l*l
	}
	m := lsum / draws
	if se := math.Sqrt(max(lsq/draws-m*m, 0) / draws); math.Abs(m-fullLoss) > 4*se || se == 0 {
		t.Errorf("loss scalar: mean %v, full-data cost %v, 4 s.e. %v", m, fullLoss, 4*se)
	}
	for k := range full {
		m := sum[k] / draws
		se := math.Sqrt(max(sq[k]/draws-m*m, 0) / draws)
		if want := full[k] / float64(img.N); math.Abs(m-want) > 4*se+1e-15 {
			t.Errorf("coordinate %d: mean %v, full %v, 4 s.e. %v", k, m, want, 4*se)
		}
	}
}

func TestFeatureBytesAndLabels(t *testing.T) {
	net := swishnet.Net{K: 40, J: 128, L: 10}
	img := tinyImages(30, net.K, net.L, 3)
	w := make([]float64, net.Dim())
	net.Init(w, rand.New(rand.NewPCG(1, 2)))
	const B, I = 7, 10
	var results [][]float64
	for _, labels0 := range []bool{false, true} {
		for _, p := range []Problem{{Lambda: 1e-3}, {Constrained: true, U: 0.5}} {
			res, err := SolveFeature(context.Background(), featureProblem(net, img, I, labels0), w, p,
				&Settings{Rounds: 4, Batch: B, Schedule: lsSchedule, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			rounds := int64(3)
			c2c := int64(92160 * B) // the issue: I(I-1)·B·J·8 = 92,160·B with I = 10, J = 128
			if labels0 {
				c2c += int64((I - 1) * B * net.L * 8) // client 0 sends Q - y (B×L) to 9 clients
			}
			if res.Stats.BytesClient != rounds*c2c {
				t.Errorf("labels0=%v: client-to-client %d, want %d", labels0, res.Stats.BytesClient, rounds*c2c)
			}
			down := int64(I*4*B + 8*net.K*net.J + I*8*net.L*net.J)
			upB := int64(8 * net.Dim())
			if p.Constrained {
				upB += 8
			}
			if res.Stats.BytesDown != rounds*down || res.Stats.BytesUp != rounds*upB {
				t.Errorf("down %d up %d, want %d %d", res.Stats.BytesDown, res.Stats.BytesUp, rounds*down, rounds*upB)
			}
			results = append(results, res.W)
		}
	}
	// Where the labels live changes the messages, not the iterates.
	if !slices.Equal(results[0], results[2]) || !slices.Equal(results[1], results[3]) {
		t.Error("labels: client0 changes the iterates")
	}
}

// TestFeatureMatchesSample: with one client and B = N, Algorithm 3's
// estimate is Algorithm 1's (weights 1/B = N_1/(BN)), so the iterates agree.
func TestFeatureMatchesSample(t *testing.T) {
	net := swishnet.Net{K: 12, J: 4, L: 3}
	img := tinyImages(10, net.K, net.L, 4)
	w := make([]float64, net.Dim())
	net.Init(w, rand.New(rand.NewPCG(1, 3)))
	s := &Settings{Rounds: 20, Batch: 10, Schedule: lsSchedule}
	for _, p := range []Problem{{Lambda: 0.01}, {Constrained: true, U: 0.9}} {
		a, err := SolveSample(context.Background(), []SampleClient{swishnet.NewSampleClient(net, img, seq(10))}, w, p, s)
		if err != nil {
			t.Fatal(err)
		}
		b, err := SolveFeature(context.Background(), featureProblem(net, img, 1, false), w, p, s)
		if err != nil {
			t.Fatal(err)
		}
		if e := dist(b.W, a.W); e > 1e-12 { // the batches differ in order only: rounding
			t.Errorf("constrained=%v: feature vs sample rel. distance %.2e", p.Constrained, e)
		}
	}
}

func TestFeatureSGDAndDeterminism(t *testing.T) {
	net := swishnet.Net{K: 20, J: 5, L: 3}
	img := tinyImages(60, net.K, net.L, 6)
	w := make([]float64, net.Dim())
	net.Init(w, rand.New(rand.NewPCG(1, 4)))
	var prev []float64
	for run := 0; run < 2; run++ {
		res, err := FeatureSGD(context.Background(), featureProblem(net, img, 4, false), w, &SGDSettings{Rounds: 30, Batch: 10, LR: 0.3, Beta: 0.1, Lambda: 1e-3, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil && !slices.Equal(prev, res.W) {
			t.Fatal("rerun differs")
		}
		prev = res.W
	}
	c0, _ := net.Evaluate(w, img, 1)
	c1, _ := net.Evaluate(prev, img, 1)
	if !(c1 < c0) {
		t.Errorf("feature SGD did not lower the cost: %v -> %v", c0, c1)
	}
}
