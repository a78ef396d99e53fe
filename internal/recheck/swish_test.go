package recheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/problems/swishnet"
)

// randomImages draws n sparse images of k pixels (about a fifth non-zero,
// raw bytes 1..255) with labels below l.
func randomImages(rng *rand.Rand, n, k, l int) *datasets.Images {
	img := &datasets.Images{N: n, K: k, RowPtr: []int32{0}}
	for range n {
		for p := range k {
			if rng.IntN(5) == 0 {
				img.Col = append(img.Col, uint16(p))
				img.Val = append(img.Val, uint8(1+rng.IntN(255)))
			}
		}
		img.RowPtr = append(img.RowPtr, int32(len(img.Col)))
		img.Labels = append(img.Labels, uint8(rng.IntN(l)))
	}
	return img
}

// TestSwishEvalAgainstSwishnet: the gate's plain evaluation of the SSCA
// network gives the run's F(w) (swishnet.Evaluate, float64 kernels) within
// 1e-12 relative and its accuracy within the near ties it counts, and the
// run's float32-first-layer cost (eval_precision float32) within 1e-6
// relative (swishnet's own bound), at w^1 and at 4·w^1 (logits as large as
// a trained network's), for widths on and off the kernels' panels. A
// weight vector of the wrong length is refused.
func TestSwishEvalAgainstSwishnet(t *testing.T) {
	for _, c := range []struct {
		net   swishnet.Net
		n     int
		scale float64
	}{
		{swishnet.Net{K: 20, J: 8, L: 3}, 61, 1},
		{swishnet.Net{K: 30, J: 5, L: 10}, 97, 1},
		{swishnet.Net{K: 784, J: 128, L: 10}, 300, 1},
		{swishnet.Net{K: 784, J: 128, L: 10}, 300, 4},
	} {
		t.Run(fmt.Sprintf("%v x%g", c.net, c.scale), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, uint64(c.net.J)))
			img := randomImages(rng, c.n, c.net.K, c.net.L)
			w := make([]float64, c.net.Dim())
			c.net.Init(w, rng)
			for i := range w {
				w[i] *= c.scale
			}
			plain := Images{N: img.N, K: img.K, RowPtr: img.RowPtr, Col: img.Col, Val: img.Val, Labels: img.Labels}
			cost, acc, ties, err := SwishEval(w, plain, c.net.J, c.net.L)
			if err != nil {
				t.Fatal(err)
			}
			runCost, runAcc := c.net.Evaluate(w, img, 1)
			if math.Abs(cost-runCost) > 1e-12*runCost {
				t.Errorf("cost %.17g, swishnet %.17g", cost, runCost)
			}
			if math.Abs(acc-runAcc) > float64(ties)/float64(c.n)+1e-15 {
				t.Errorf("accuracy %g, swishnet %g (%d near ties)", acc, runAcc, ties)
			}
			if c32 := c.net.EvaluateCost(w, img, 1, swishnet.Float32); math.Abs(cost-c32) > 1e-6*cost {
				t.Errorf("cost %.17g, swishnet float32 %.17g", cost, c32)
			}
			if _, _, _, err := SwishEval(w[1:], plain, c.net.J, c.net.L); err == nil {
				t.Error("a short weight vector is accepted")
			}
		})
	}
}
