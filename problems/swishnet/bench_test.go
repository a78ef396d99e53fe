package swishnet

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/fedcon/fedcon/datasets"
)

// fashionTrain loads the Debian package's Fashion-MNIST training set, or
// skips.
func fashionTrain(b testing.TB) *datasets.Images {
	if _, err := os.Stat(datasets.DebianFashionDir); err != nil {
		b.Skip("dataset-fashion-mnist not installed")
	}
	set, err := datasets.LoadIDXSet("fashion-mnist", []string{datasets.DebianFashionDir}, 10)
	if err != nil {
		b.Fatal(err)
	}
	return set.Train
}

// BenchmarkEvaluate: F(w) and the accuracy over the 60,000 training images
// on one goroutine, the evaluation behind every point of the SSCA figures
// (network 784 → 128 → 10).
func BenchmarkEvaluate(b *testing.B) {
	img := fashionTrain(b)
	n := Net{K: 784, J: 128, L: 10}
	w := make([]float64, n.Dim())
	n.Init(w, rand.New(rand.NewPCG(1, 1)))
	cpu0 := cpuTime()
	for b.Loop() {
		n.Evaluate(w, img, 1)
	}
	reportCPU(b, cpu0)
}

// BenchmarkEvaluateCost32: F(w) alone over the 60,000 training images with
// the first layer in float32 (the SSCA figures' training cost).
func BenchmarkEvaluateCost32(b *testing.B) {
	img := fashionTrain(b)
	n := Net{K: 784, J: 128, L: 10}
	w := make([]float64, n.Dim())
	n.Init(w, rand.New(rand.NewPCG(1, 1)))
	cpu0 := cpuTime()
	for b.Loop() {
		n.EvaluateCost(w, img, 1, Float32)
	}
	reportCPU(b, cpu0)
}

func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkGrad: the gradient over a batch of 1000 images (Algorithm 1's
// clients, B = 100 per client and I = 10).
func BenchmarkGrad(b *testing.B) {
	img := fashionTrain(b)
	n := Net{K: 784, J: 128, L: 10}
	w, g := make([]float64, n.Dim()), make([]float64, n.Dim())
	n.Init(w, rand.New(rand.NewPCG(1, 1)))
	batch := make([]int, 1000)
	for i := range batch {
		batch[i] = i * 60
	}
	ws := n.NewWork()
	cpu0 := cpuTime()
	for b.Loop() {
		n.Grad(w, img, batch, g, ws)
	}
	reportCPU(b, cpu0)
}
