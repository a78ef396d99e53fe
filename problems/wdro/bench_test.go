package wdro

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedcon/fedcon/solver/adlpmm"
)

// huberGradSumRows is huberGradSum's reference: one row at a time.
func huberGradSumRows(g, v []float64, X [][]float64, Y []float64, tn, eps float64) {
	n := len(v) - 1
	clear(g)
	for i, x := range X {
		gi := tn * huberGrad(Margin(v, x)-Y[i], eps)
		for j, xj := range x {
			g[j] += gi * xj
		}
		g[n] += gi
	}
}

// TestHuberGradSumBitIdentical: the blocked gradient (four rows at a time) equals the
// row-by-row loop to the last bit, for odd and even row counts, margins
// on both sides of ±ε, and a NaN row.
func TestHuberGradSumBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, N := range []int{1, 2, 7, 100, 835} {
		cl := regClient(rng, N, 10, 0.01)
		v := make([]float64, 11)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		for _, X := range [][][]float64{cl.X, withNaN(cl.X)} {
			got, want := make([]float64, 11), make([]float64, 11)
			huberGradSum(got, v, X, cl.Y, 0.37/float64(N), 1.35)
			huberGradSumRows(want, v, X, cl.Y, 0.37/float64(N), 1.35)
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("N = %d: g[%d] = %v, row by row %v", N, j, got[j], want[j])
				}
			}
		}
	}
}

// TestHuberLossBitIdentical: HuberLoss (four rows at a time) equals the
// row-by-row sum to the last bit.
func TestHuberLossBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	for _, N := range []int{1, 3, 5, 8, 835} {
		cl := regClient(rng, N, 10, 0.01)
		v := make([]float64, 11)
		for j := range v {
			v[j] = 2 * rng.NormFloat64()
		}
		var want float64
		for i, x := range cl.X {
			want += Huber(Margin(v, x)-cl.Y[i], 1.35)
		}
		want /= float64(N)
		if got := HuberLoss(cl, v, 1.35); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("N = %d: HuberLoss %v, row by row %v", N, got, want)
		}
	}
}

func withNaN(X [][]float64) [][]float64 {
	out := append([][]float64(nil), X...)
	r := append([]float64(nil), X[len(X)/2]...)
	r[0] = math.NaN()
	out[len(X)/2] = r
	return out
}

// huberFigureClients are three clients of the size of Figure 2's abalone
// row (835 rows, 10 features each).
func huberFigureClients() []Client {
	rng := rand.New(rand.NewPCG(33, 34))
	return []Client{regClient(rng, 835, 10, 0.01), regClient(rng, 835, 10, 0.01), regClient(rng, 835, 10, 0.01)}
}

// BenchmarkHuberGradSum: the Huber client's hot loop (one proximal-
// gradient iteration's gradient) on an abalone-sized client, four rows at
// a time against row by row.
func BenchmarkHuberGradSum(b *testing.B) {
	cl := huberFigureClients()[0]
	v, g := make([]float64, 11), make([]float64, 11)
	for j := range v {
		v[j] = 0.1 * float64(j)
	}
	for _, tc := range []struct {
		name string
		f    func(g, v []float64, X [][]float64, Y []float64, tn, eps float64)
	}{{"blocked", huberGradSum}, {"rows", huberGradSumRows}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				tc.f(g, v, cl.X, cl.Y, 1e-3, 1.35)
			}
		})
	}
}

// boxFigureClients are three SVM clients of the size of a breast-cancer
// row of Figures 3-4 (137 rows, 9 features, box support), client 1 with
// noisy rows outside the box.
func boxFigureClients() []Client {
	rng := rand.New(rand.NewPCG(35, 36))
	return []Client{boxClient(rng, 137, 9, 0.01, true), boxClient(rng, 137, 9, 0.01, false), boxClient(rng, 137, 9, 0.01, false)}
}

// BenchmarkAlgorithm1Figure: one Algorithm 1 solve of a noise figure's
// size (c = 1, tolerance 1e-4, θ = 0.01, p = 1, one worker), for the DRFL
// SVM (box support, κ = 0.5) and Huber models; the hot paths are the
// client QP (solver/qp) and the Huber client's proximal gradient.
func BenchmarkAlgorithm1Figure(b *testing.B) {
	for _, tc := range []struct {
		name    string
		clients []Client
		m       Model
	}{
		{"svm-box", boxFigureClients(), Model{Support: Box, Kappa: 0.5}},
		{"huber", huberFigureClients(), Model{Loss: LossHuber, Kappa: 0.5}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			fed, n, err := Federate(tc.clients, tc.m, nil)
			if err != nil {
				b.Fatal(err)
			}
			var res *adlpmm.Result
			for b.Loop() {
				res, err = adlpmm.Solve(context.Background(), &adlpmm.Problem{Clients: fed, Features: n, Theta: 0.01, P: 1}, &adlpmm.Settings{Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Rounds), "rounds")
			b.ReportMetric(float64(res.QPIterations)/float64(res.Rounds*len(tc.clients)), "inner/solve")
		})
	}
}
