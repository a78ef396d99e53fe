package recheck

import (
	"fmt"
	"math"
)

// Images are images as sparse rows of raw bytes (datasets.Images' layout,
// read here without importing it): image n's non-zero pixels are
// Col[RowPtr[n]:RowPtr[n+1]] with values Val (the network reads Val/255).
type Images struct {
	N, K   int
	RowPtr []int32
	Col    []uint16
	Val    []uint8
	Labels []uint8
}

// SwishTieTol is the logit gap under which two classes count as tied in
// SwishEval: the run's kernels and these loops round a logit differently
// by about (K + J)·u times the magnitude of its terms (well below 1e-9 for
// 784 pixels, 128 hidden units and weights of a trained network), so an
// image whose top two logits are closer may be predicted either way.
const SwishTieTol = 1e-9

// SwishEval evaluates the classifier of eq. (26) at w on img with J hidden
// units and L classes, in plain float64 loops over the images: the first
// layer z = W1·x (x = pixel/255, w[k*J+j] = w_{1,j,k}), the swish S(z) =
// z·σ(z), the logits o = W2·S(z) (w[JK + l*J + j] = w_{2,l,j}), and
// returns F(w) of eq. (25), the mean of log Σ_l e^{o_l} − o_y, the
// accuracy (the first largest logit), and how many images have their top
// two logits within SwishTieTol·(1 + |o_max|) (each may count either way
// in the run's accuracy).
func SwishEval(w []float64, img Images, J, L int) (cost, acc float64, nearTies int, err error) {
	K := img.K
	if len(w) != J*K+L*J {
		return 0, 0, 0, fmt.Errorf("recheck: %d weights, the network has %d (K = %d, J = %d, L = %d)", len(w), J*K+L*J, K, J, L)
	}
	if img.N == 0 {
		return 0, 0, 0, fmt.Errorf("recheck: no images")
	}
	w2 := w[J*K:]
	z := make([]float64, J)
	o := make([]float64, L)
	var sum float64
	correct := 0
	for n := range img.N {
		clear(z)
		for p := img.RowPtr[n]; p < img.RowPtr[n+1]; p++ {
			k, x := int(img.Col[p]), float64(img.Val[p])/255
			for j, v := range w[k*J : k*J+J] {
				z[j] += v * x
			}
		}
		for j, v := range z {
			z[j] = v * Sigmoid(v)
		}
		best, second := 0, -1
		for l := range o {
			var s float64
			for j, v := range w2[l*J : l*J+J] {
				s += v * z[j]
			}
			o[l] = s
			if l > 0 && s > o[best] {
				best = l
			}
		}
		for l := range o {
			if l != best && (second < 0 || o[l] > o[second]) {
				second = l
			}
		}
		var e float64
		for _, v := range o {
			e += math.Exp(v - o[best])
		}
		y := int(img.Labels[n])
		if y >= L {
			return 0, 0, 0, fmt.Errorf("recheck: image %d has label %d, the network %d classes", n, y, L)
		}
		sum += o[best] + math.Log(e) - o[y]
		if best == y {
			correct++
		}
		if second >= 0 && o[best]-o[second] <= SwishTieTol*(1+math.Abs(o[best])) {
			nearTies++
		}
	}
	return sum / float64(img.N), float64(correct) / float64(img.N), nearTies, nil
}
