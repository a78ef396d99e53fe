package stochastic

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/problems/swishnet"
)

// fashion loads the Debian package's Fashion-MNIST, or skips.
func fashion(b *testing.B) *datasets.IDXSet {
	if _, err := os.Stat(datasets.DebianFashionDir); err != nil {
		b.Skip("dataset-fashion-mnist not installed")
	}
	set, err := datasets.LoadIDXSet("fashion-mnist", []string{datasets.DebianFashionDir}, 10)
	if err != nil {
		b.Fatal(err)
	}
	return set
}

// BenchmarkAlg1Round is one round of Algorithm 1 on Fashion-MNIST, B = 100,
// I = 10 (1000 samples through the network (26), d = 101,632): broadcast,
// client gradients in parallel, estimate (33)-(34), recursion, (35)-(36), (5).
func BenchmarkAlg1Round(b *testing.B) {
	set := fashion(b)
	net := swishnet.Net{K: 784, J: 128, L: 10}
	var cl []SampleClient
	for i := 0; i < 10; i++ {
		rows := make([]int, 6000)
		for k := range rows {
			rows[k] = i*6000 + k
		}
		cl = append(cl, swishnet.NewSampleClient(net, set.Train, rows))
	}
	d := net.Dim()
	w := make([]float64, d)
	net.Init(w, rand.New(rand.NewPCG(1, 1)))
	st := Settings{Batch: 100, Tau: DefaultTau, C: DefaultC, Schedule: Schedule{A1: 0.9, A2: 0.9, Alpha: 0.3, GammaOffset: 0.05}}
	f := startFed(len(cl), sampleWorker(cl, d, st.Batch, 1, false))
	defer f.stop()
	sv := newServer(Problem{Lambda: 1e-3}, st, d)
	ghat := make([]float64, d)
	b.ReportAllocs()
	b.ResetTimer()
	for t := 1; t <= b.N; t++ {
		reps := f.round(down{t: t, w: w})
		lhat := sampleEstimate(cl, reps, st.Batch, 60000, ghat)
		sv.step(t, w, ghat, lhat)
	}
}

// BenchmarkAlg3Round is one round of Algorithm 3 on Fashion-MNIST, B = 1000
// of all samples, I = 10 pixel blocks: partials exchanged between clients,
// blocks to the server, (19), (35)-(36), (5).
func BenchmarkAlg3Round(b *testing.B) {
	set := fashion(b)
	net := swishnet.Net{K: 784, J: 128, L: 10}
	fp := featureProblem(net, set.Train, 10, false)
	d := net.Dim()
	w := make([]float64, d)
	net.Init(w, rand.New(rand.NewPCG(1, 1)))
	st := Settings{Batch: 1000, Tau: DefaultTau, C: DefaultC, Schedule: Schedule{A1: 0.9, A2: 0.9, Alpha: 0.3, GammaOffset: 0.05}}
	ff := newFeatureFed(fp, d, st.Batch)
	defer ff.fed.stop()
	rng := newRNG(1, streamServer)
	sv := newServer(Problem{Lambda: 1e-3}, st, d)
	var stats Stats
	ff.round(0, w, drawBatch(rng, ff.rng, st.Batch), &stats, false) // clients size their buffers once
	b.ReportAllocs()
	b.ResetTimer()
	for t := 1; t <= b.N; t++ {
		ghat, lhat := ff.round(t, w, drawBatch(rng, ff.rng, st.Batch), &stats, false)
		sv.step(t, w, ghat, lhat)
	}
}
