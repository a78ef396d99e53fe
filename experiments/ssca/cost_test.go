package ssca

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
)

// synthImages is n 28 × 28 images shaped like Fashion-MNIST's: about 390
// non-zero pixels each, shared by the images of a class (the groups of
// Evaluate then cover few more pixels than one image).
func synthImages(n int, seed uint64) *datasets.Images {
	rng := rand.New(rand.NewPCG(seed, 1))
	templates := make([][]uint16, 10)
	for c := range templates {
		for p := range 784 {
			if rng.Float64() < 0.5 {
				templates[c] = append(templates[c], uint16(p))
			}
		}
	}
	im := &datasets.Images{N: n, K: 784, RowPtr: []int32{0}}
	for range n {
		c := rng.IntN(10)
		for _, p := range templates[c] {
			im.Col = append(im.Col, p)
			im.Val = append(im.Val, uint8(1+rng.IntN(255)))
		}
		im.RowPtr = append(im.RowPtr, int32(len(im.Col)))
		im.Labels = append(im.Labels, uint8(c))
	}
	return im
}

// TestSSCACostMeasured: the time estimate of SSCA runs is between half and
// 4 times the CPU time they take here, for curves dominated by evaluation
// (sample-based, one image a step; the training cost in float32 and in
// float64) and by training (FedAvg's local steps).
func TestSSCACostMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("times real runs: not with -short (the race detector's slowdown)")
	}
	train, test := synthImages(6000, 1), synthImages(1000, 2)
	data := &SSCAData{Set: &datasets.IDXSet{Train: train, Test: test}, EvalTrain: train, EvalTest: test}
	for _, tc := range []struct {
		name   string
		rounds int
		spec   SSCASpec
		prec   string
	}{
		{"evaluation", 20, SSCASpec{Algo: "alg1", Batch: 1}, "float32"},
		{"evaluation float64", 20, SSCASpec{Algo: "alg1", Batch: 1}, "float64"},
		{"training", 10, SSCASpec{Algo: "fedavg", Batch: 100, LocalSteps: 5, FinalOnly: true}, "float32"},
	} {
		cfg := sscaTestConfig()
		cfg.Rounds = tc.rounds
		cfg.EvalPrecision = tc.prec
		cfg.SGDRates["fedavg-b100-e5"] = SGDRate{0.1, 0}
		specs := cfg.withRates([]SSCASpec{tc.spec})
		est := cfg.SSCASpecsCost(data, specs, 1).Seconds
		start := cpuSeconds(t)
		if _, err := RunSSCASpecs(context.Background(), cfg, data, specs, 1, experiments.RunOptions{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		got := cpuSeconds(t) - start
		t.Logf("%s: estimate %.2f s, measured %.2f s CPU", tc.name, est, got)
		if est < got/2 || est > 4*got {
			t.Errorf("%s: estimate %.2f s, measured %.2f s CPU: want measured/2 ≤ estimate ≤ 4·measured", tc.name, est, got)
		}
	}
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds(t *testing.T) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skipf("no CPU time: %v", err)
	}
	return time.Duration(ru.Utime.Nano()).Seconds() + time.Duration(ru.Stime.Nano()).Seconds()
}
