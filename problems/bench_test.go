package problems

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/fedcon/fedcon/datasets"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkAdultPasses: one value+gradient pass (objective and
// constraint, both classes) and one Hessian of a Neyman-Pearson client
// holding all 32,561 adult-a rows, the two data passes of the Newton
// subproblem solver; cpu-ms/op is the process's CPU time per pass, steadier
// than wall time on a shared machine.
func BenchmarkAdultPasses(b *testing.B) {
	dir := os.Getenv("FEDCON_DATA_DIR")
	if dir == "" {
		b.Skip("FEDCON_DATA_DIR not set")
	}
	ds, err := datasets.Load("adult-a", []string{dir})
	if err != nil {
		b.Fatal(err)
	}
	var i0, i1 []int
	for i, y := range ds.Y {
		if y == 1 {
			i1 = append(i1, i)
		} else {
			i0 = append(i0, i)
		}
	}
	c := &NPClient{Class0: NewRows(ds.X, i0), Class1: NewRows(ds.X, i1), Scale: 1, R: 0.2}
	d := c.Class0.D
	rng := rand.New(rand.NewPCG(1, 1))
	w := make([]float64, d)
	for j := range w {
		w[j] = 0.1 * rng.NormFloat64()
	}
	grad, jac, con := make([]float64, d), make([]float64, d), make([]float64, 1)
	b.Run("eval", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			c.Eval(w, grad, con, jac)
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	})
	b.Run("hessian", func(b *testing.B) {
		h := mat.NewSymDense(d, nil)
		cpu0 := cpuTime()
		for b.Loop() {
			c.Hessian(h, w, []float64{1})
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	})
}
