package swishnet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/datasets/datasetstest"
)

var tinyImages = datasetstest.TinyImages

// maxRelErr is max_i |a_i - b_i| / max_i |b_i|.
func maxRelErr(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num = max(num, math.Abs(a[i]-b[i]))
		den = max(den, math.Abs(b[i]))
	}
	return num / den
}

func TestGradFiniteDifference(t *testing.T) {
	for _, tc := range []struct {
		name    string
		K, J, L int
		scale   float64 // weight scale: larger pushes swish into its tails
	}{
		{"small", 6, 4, 3, 1},
		{"wide", 20, 9, 5, 1},
		{"large weights", 8, 5, 4, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := Net{tc.K, tc.J, tc.L}
			img := tinyImages(7, tc.K, tc.L, 3)
			w := make([]float64, n.Dim())
			n.Init(w, rand.New(rand.NewPCG(1, 2)))
			for i := range w {
				w[i] *= tc.scale
			}
			batch := []int{0, 2, 3, 6, 2} // a repeat checks accumulation
			g := make([]float64, n.Dim())
			ws := n.NewWork()
			f0 := n.Grad(w, img, batch, g, ws)
			fd := make([]float64, n.Dim())
			scratch := make([]float64, n.Dim())
			const h = 1e-6 // central differences: O(h²) truncation, O(ε/h) rounding ≈ 1e-10
			for i := range w {
				old := w[i]
				w[i] = old + h
				fp := n.Grad(w, img, batch, scratch, ws)
				w[i] = old - h
				fm := n.Grad(w, img, batch, scratch, ws)
				w[i] = old
				fd[i] = (fp - fm) / (2 * h)
			}
			if e := maxRelErr(g, fd); e > 1e-6 { // the tolerance
				t.Errorf("gradient rel. err %.2e > 1e-6", e)
			}
			// The loss is the cross-entropy (25): recompute it naively.
			var want float64
			for _, m := range batch {
				ev, _ := n.Eval(w, img, m, m+1, ws)
				want += ev
			}
			if math.Abs(f0-want) > 1e-12*math.Abs(want) {
				t.Errorf("loss %v, Eval %v", f0, want)
			}
		})
	}
}

func TestSwishPrime(t *testing.T) {
	for _, z := range []float64{-30, -5, -1, -1e-3, 0, 0.5, 2, 8, 40} {
		const h = 1e-6
		fd := (Swish(z+h) - Swish(z-h)) / (2 * h)
		if e := math.Abs(SwishPrime(z)-fd) / max(1, math.Abs(fd)); e > 1e-8 {
			t.Errorf("S'(%g) = %v, finite difference %v", z, SwishPrime(z), fd)
		}
	}
	for _, z := range []float64{-1e300, -1000, 1000, 1e300} {
		if v, d := Swish(z), SwishPrime(z); math.IsNaN(v) || math.IsNaN(d) {
			t.Errorf("S(%g) = %v, S' = %v", z, v, d)
		}
	}
}

func TestSoftmaxExtremeLogits(t *testing.T) {
	for _, o := range [][]float64{{1000, -1000, 0}, {-1000, -1000, -1000}, {1000, 1000, 999}} {
		q := make([]float64, len(o))
		lse := softmax(append([]float64(nil), o...), q)
		var s float64
		for _, v := range q {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("softmax(%v) = %v", o, q)
			}
			s += v
		}
		if math.IsInf(lse, 0) || math.IsNaN(lse) || math.Abs(s-1) > 1e-15 {
			t.Errorf("softmax(%v): lse %v, Σq %v", o, lse, s)
		}
		for y := range o { // loss -log Q_y = lse - o_y is finite and >= 0
			if l := lse - o[y]; l < 0 || math.IsInf(l, 0) {
				t.Errorf("loss %v for logits %v, label %d", l, o, y)
			}
		}
	}
}

// TestFeatureBlocksCentralized: the feature-based messages (partials summed
// over clients, residual, per-client blocks, top block) reassemble the
// centralized gradient.
func TestFeatureBlocksCentralized(t *testing.T) {
	n := Net{23, 6, 4}
	img := tinyImages(9, n.K, n.L, 5)
	w := make([]float64, n.Dim())
	n.Init(w, rand.New(rand.NewPCG(4, 4)))
	batch := []int{8, 1, 4, 0}
	want := make([]float64, n.Dim())
	wantLoss := n.Grad(w, img, batch, want, n.NewWork())

	blocks := Blocks(n.K, 4)
	z := make([]float64, len(batch)*n.J)
	h := make([]float64, len(batch)*n.J)
	var cl []*FeatureClient
	for _, b := range blocks {
		c := NewFeatureClient(n, img, b[0], b[1])
		c.Partial(n.W1(w)[b[0]*n.J:b[1]*n.J], batch, h)
		for i := range z {
			z[i] += h[i]
		}
		cl = append(cl, c)
	}
	for _, c := range cl {
		c.Activate(z)
	}
	r := make([]float64, len(batch)*n.L)
	loss := cl[0].Residual(n.W2(w), batch, z, r)
	got := make([]float64, n.Dim())
	for i, c := range cl {
		c.Block(n.W2(w), batch, z, r, n.W1(got)[blocks[i][0]*n.J:blocks[i][1]*n.J])
	}
	cl[0].Top(batch, z, r, n.W2(got))
	// Summation order differs only in the partials: a few ulps.
	if e := maxRelErr(got, want); e > 1e-12 {
		t.Errorf("feature blocks vs centralized gradient: rel. err %.2e", e)
	}
	if math.Abs(loss-wantLoss) > 1e-12*wantLoss {
		t.Errorf("loss %v vs %v", loss, wantLoss)
	}
}

func TestBlocks(t *testing.T) {
	b := Blocks(784, 10)
	for i, want := range []int{79, 79, 79, 79, 78, 78, 78, 78, 78, 78} {
		if b[i][1]-b[i][0] != want {
			t.Fatalf("block %d = %v, want size %d", i, b[i], want)
		}
	}
	if b[9][1] != 784 || b[0][0] != 0 {
		t.Fatalf("blocks %v", b)
	}
}

func TestEvaluateWorkers(t *testing.T) {
	n := Net{10, 5, 3}
	img := tinyImages(50, n.K, n.L, 9)
	w := make([]float64, n.Dim())
	n.Init(w, rand.New(rand.NewPCG(1, 1)))
	c1, a1 := n.Evaluate(w, img, 1)
	c4, a4 := n.Evaluate(w, img, 4)
	if c1 != c4 || a1 != a4 {
		t.Fatalf("workers change the result: %v %v vs %v %v", c1, a1, c4, a4)
	}
	var want float64
	ws := n.NewWork()
	for m := 0; m < img.N; m++ {
		l, _ := n.Eval(w, img, m, m+1, ws)
		want += l
	}
	if math.Abs(c1-want/50) > 1e-13 {
		t.Fatalf("cost %v, want %v", c1, want/50)
	}
}

// TestGradScatterOrder: Grad's pixel-major scatter of the first-layer
// gradient gives bit for bit the per-image, per-pixel axpys it replaces
// (the same fused sums in batch order), for kernel (J = 8) and fallback
// (J = 5) widths, with repeated images in the batch.
func TestGradScatterOrder(t *testing.T) {
	for _, n := range []Net{{20, 8, 3}, {20, 5, 3}} {
		img := tinyImages(30, n.K, n.L, 4)
		w := make([]float64, n.Dim())
		n.Init(w, rand.New(rand.NewPCG(2, 3)))
		batch := []int{3, 7, 7, 0, 29, 12, 5, 3}
		g := make([]float64, n.Dim())
		loss := n.Grad(w, img, batch, g, n.NewWork())
		want := make([]float64, n.Dim())
		ws := n.NewWork()
		var wantLoss float64
		w1, w2 := n.W1(w), n.W2(w)
		g1, g2 := n.W1(want), n.W2(want)
		for _, m := range batch {
			p0, p1 := img.RowPtr[m], img.RowPtr[m+1]
			n.hidden(w1, img, p0, p1, ws.z)
			y := int(img.Labels[m])
			wantLoss += n.top(w2, y, ws)
			n.backTop(w2, g2, y, ws, true)
			for p := p0; p < p1; p++ {
				k := int(img.Col[p])
				axpy(pixel[img.Val[p]], ws.d, g1[k*n.J:k*n.J+n.J])
			}
		}
		if loss != wantLoss {
			t.Fatalf("%v: loss %v, want %v", n, loss, wantLoss)
		}
		for i := range g {
			if g[i] != want[i] {
				t.Fatalf("%v: g[%d] = %v, want %v", n, i, g[i], want[i])
			}
		}
	}
}

// TestEvalPerImage: Eval and Evaluate (grouped images, kernels.GatherGemm4
// and SwishGemvT) give bit for bit the per-image path they replace
// (ByteRow's hidden, top, the argmax, the losses summed in image order),
// for widths on and off the kernels' tiles (J = 8, 12, 5; L = 3, 10), on
// whole sets, ranges, repeated calls (Evaluate's cached groups) and any
// workers.
func TestEvalPerImage(t *testing.T) {
	for _, n := range []Net{{20, 8, 3}, {30, 12, 10}, {20, 5, 3}} {
		img := tinyImages(61, n.K, n.L, 7)
		w := make([]float64, n.Dim())
		n.Init(w, rand.New(rand.NewPCG(4, 5)))
		ws := n.NewWork()
		perImage := func(lo, hi int) (float64, int) {
			var loss float64
			var correct int
			for m := lo; m < hi; m++ {
				n.hidden(n.W1(w), img, img.RowPtr[m], img.RowPtr[m+1], ws.z)
				y := int(img.Labels[m])
				loss += n.top(n.W2(w), y, ws)
				best := 0
				for l, v := range ws.o {
					if v > ws.o[best] {
						best = l
					}
				}
				if best == y {
					correct++
				}
			}
			return loss, correct
		}
		for _, r := range [][2]int{{0, 61}, {5, 6}, {3, 40}, {60, 61}, {7, 7}} {
			wl, wc := perImage(r[0], r[1])
			if l, c := n.Eval(w, img, r[0], r[1], n.NewWork()); l != wl || c != wc {
				t.Fatalf("%v [%d, %d): Eval %v, %d; per image %v, %d", n, r[0], r[1], l, c, wl, wc)
			}
		}
		var wantCost float64
		var wantCorrect int
		for ch := range evalChunks {
			l, c := perImage(ch*img.N/evalChunks, (ch+1)*img.N/evalChunks)
			wantCost += l
			wantCorrect += c
		}
		for _, workers := range []int{1, 3, 1} {
			cost, acc := n.Evaluate(w, img, workers)
			if cost != wantCost/float64(img.N) || acc != float64(wantCorrect)/float64(img.N) {
				t.Fatalf("%v workers %d: %v, %v; per image %v, %v", n, workers, cost, acc,
					wantCost/float64(img.N), float64(wantCorrect)/float64(img.N))
			}
		}
	}
}

// TestEvaluateCostFloat32: EvaluateCost in Float64 is Evaluate's cost bit
// for bit; in Float32 it is bit-identical across 1 and 3 workers and
// repeated calls, and within 1e-6 relative of the float64 cost (measured:
// about 1e-8 on these images, 1e-7 on Fashion-MNIST; a wrong panel or
// image would move it by 1e-2 or more), for widths on and off the 16-column
// panels (J = 8, 5, 20: padded; 128 on real-shaped 784-pixel images, at w^1
// and at 4 w^1, whose logits are as large as a trained network's).
func TestEvaluateCostFloat32(t *testing.T) {
	type tc struct {
		n     Net
		N     int
		scale float64
	}
	cases := []tc{{Net{20, 8, 3}, 61, 1}, {Net{20, 5, 3}, 61, 1}, {Net{30, 20, 10}, 97, 1},
		{Net{784, 128, 10}, 700, 1}, {Net{784, 128, 10}, 700, 4}}
	for _, c := range cases {
		img := tinyImages(c.N, c.n.K, c.n.L, 11)
		checkCostFloat32(t, c.n, img, c.scale)
	}
}

// TestEvaluateCostFashion: the same on the Fashion-MNIST training set,
// when installed.
func TestEvaluateCostFashion(t *testing.T) {
	if testing.Short() {
		t.Skip("60,000 images")
	}
	img := fashionTrain(t)
	checkCostFloat32(t, Net{K: 784, J: 128, L: 10}, img, 1)
}

func checkCostFloat32(t *testing.T, n Net, img *datasets.Images, scale float64) {
	t.Helper()
	w := make([]float64, n.Dim())
	n.Init(w, rand.New(rand.NewPCG(6, 7)))
	for i := range w {
		w[i] *= scale
	}
	cost, _ := n.Evaluate(w, img, 1)
	if c := n.EvaluateCost(w, img, 3, Float64); c != cost {
		t.Fatalf("%v: EvaluateCost Float64 %v, Evaluate %v", n, c, cost)
	}
	c32 := n.EvaluateCost(w, img, 1, Float32)
	for _, workers := range []int{3, 1} {
		if c := n.EvaluateCost(w, img, workers, Float32); c != c32 {
			t.Fatalf("%v workers %d: Float32 cost %v, first call %v", n, workers, c, c32)
		}
	}
	rel := math.Abs(c32-cost) / cost
	t.Logf("%v ×%g: cost %.17g, float32 first layer %.17g, relative difference %.2g", n, scale, cost, c32, rel)
	if !(rel <= 1e-6) {
		t.Fatalf("%v ×%g: Float32 cost %v, float64 %v: relative difference %.2g > 1e-6", n, scale, c32, cost, rel)
	}
}
