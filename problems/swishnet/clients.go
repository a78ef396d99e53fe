package swishnet

import (
	"sort"
	"sync"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/internal/kernels"
)

// SampleClient is client i of sample-based FL (Algorithms 1-2, FedAvg): it
// holds the rows Rows of Img (its N_i samples) and reads no others.
type SampleClient struct {
	Net  Net
	Img  *datasets.Images
	Rows []int
	ws   *Work
	idx  []int
}

// NewSampleClient returns the client owning rows of img.
func NewSampleClient(n Net, img *datasets.Images, rows []int) *SampleClient {
	return &SampleClient{Net: n, Img: img, Rows: rows, ws: n.NewWork()}
}

// Len is N_i.
func (c *SampleClient) Len() int { return len(c.Rows) }

// Grad sets g to Σ_{n ∈ batch} ∇f(w; x_n) over local sample indices batch
// and returns Σ -log Q_{y_n}.
func (c *SampleClient) Grad(w []float64, batch []int, g []float64) float64 {
	c.idx = c.idx[:0]
	for _, b := range batch {
		c.idx = append(c.idx, c.Rows[b])
	}
	return c.Net.Grad(w, c.Img, c.idx, g, c.ws)
}

// FeatureClient is client i of feature-based FL (Algorithms 3-4, feature
// SGD): it holds pixels [K0, K1) of every image (w_i = w[K0*J : K1*J]) and,
// when it holds labels, the labels.
type FeatureClient struct {
	Net      Net
	Img      *datasets.Images
	K0, K1   int
	ws       *Work
	a, sp, e []float64 // S(z), S'(z), e^-z of the current round's z (Activate)
}

// NewFeatureClient returns the client owning pixels [k0, k1) of img.
func NewFeatureClient(n Net, img *datasets.Images, k0, k1 int) *FeatureClient {
	return &FeatureClient{Net: n, Img: img, K0: k0, K1: k1, ws: n.NewWork()}
}

// Len is N, the samples every client shares.
func (c *FeatureClient) Len() int { return c.Img.N }

// Sizes are the per-sample lengths of a partial pre-activation (J) and of
// a residual (L).
func (c *FeatureClient) Sizes() (h, r int) { return c.Net.J, c.Net.L }

// span is the CSR range of image m's non-zero pixels in [K0, K1).
func (c *FeatureClient) span(m int) (int32, int32) {
	a, b := c.Img.RowPtr[m], c.Img.RowPtr[m+1]
	cols := c.Img.Col[a:b]
	lo := sort.Search(len(cols), func(i int) bool { return int(cols[i]) >= c.K0 })
	hi := lo + sort.Search(len(cols)-lo, func(i int) bool { return int(cols[lo+i]) >= c.K1 })
	return a + int32(lo), a + int32(hi)
}

// Partial sets h (B×J) to client i's pre-activations h_{0,i} = w_i x_{n,i}
// of the images batch (Algorithm 3, step 4).
func (c *FeatureClient) Partial(wi []float64, batch []int, h []float64) {
	J := c.Net.J
	for b, m := range batch {
		p0, p1 := c.span(m)
		kernels.ByteRow(h[b*J:b*J+J], wi, c.Img.Col[p0:p1], c.K0, c.Img.Val[p0:p1], &pixel)
	}
}

// Activate computes S(z) and S'(z) of the summed pre-activations z (B×J)
// once per round for Residual, Block and Top.
func (c *FeatureClient) Activate(z []float64) {
	if cap(c.a) < len(z) {
		c.a, c.sp, c.e = make([]float64, len(z)), make([]float64, len(z)), make([]float64, len(z))
	}
	c.a, c.sp = c.a[:len(z)], c.sp[:len(z)]
	swishPairs(z, c.e, c.a, c.sp)
}

// Residual sets r (B×L) to Q(w, x_n) - y_n from the activations of z and
// the output layer w0 = w2, and returns Σ -log Q_{y_n}. It reads the labels.
func (c *FeatureClient) Residual(w0 []float64, batch []int, z, r []float64) float64 {
	J, L := c.Net.J, c.Net.L
	ws := c.ws
	var loss float64
	for b, m := range batch {
		a := c.a[b*J : b*J+J]
		for l := range ws.o {
			ws.o[l] = dot(w0[l*J:l*J+J], a)
		}
		y := int(c.Img.Labels[m])
		loss += softmax(ws.o, ws.q) - ws.o[y]
		ws.q[y] -= 1
		copy(r[b*L:b*L+L], ws.q)
	}
	return loss
}

// Block sets gi to Σ_n ∇_{w_i} f (17): the J×K_i block of the first-layer
// gradient, from the residuals r, S'(z) and w0.
func (c *FeatureClient) Block(w0 []float64, batch []int, z, r, gi []float64) {
	J, L := c.Net.J, c.Net.L
	clear(gi)
	D := c.ws.sc.rows(len(batch) * J)
	for b := range batch {
		d := D[b*J : b*J+J]
		clear(d)
		for l, rl := range r[b*L : b*L+L] {
			axpy(rl, w0[l*J:l*J+J], d)
		}
		for j, s := range c.sp[b*J : b*J+J] {
			d[j] *= s
		}
	}
	c.ws.sc.add(c.Img, batch, c.span, c.K0, c.K1, J, D, gi)
}

// Top sets g0 to Σ_n ∇_{w0} f (16): the L×J output-layer gradient Σ r a^T.
func (c *FeatureClient) Top(batch []int, z, r, g0 []float64) {
	J, L := c.Net.J, c.Net.L
	clear(g0)
	for b := range batch {
		a := c.a[b*J : b*J+J]
		for l, rl := range r[b*L : b*L+L] {
			axpy(rl, a, g0[l*J:l*J+J])
		}
	}
}

// Blocks splits K pixels into I contiguous row-major blocks, the first
// K mod I one pixel larger (784 over 10: 4×79, 6×78).
func Blocks(K, I int) [][2]int {
	out := make([][2]int, I)
	k := 0
	for i := range out {
		sz := K / I
		if i < K%I {
			sz++
		}
		out[i] = [2]int{k, k + sz}
		k += sz
	}
	return out
}

// evalChunks is the fixed number of pieces Evaluate splits a set into: the
// sums are reduced in chunk order, so results do not depend on scheduling.
const evalChunks = 16

// Evaluate returns F(w) (25), the mean cross-entropy over img, and the
// accuracy, using up to workers goroutines; bit-identical for any workers.
func (n Net) Evaluate(w []float64, img *datasets.Images, workers int) (cost, acc float64) {
	return n.evaluate(w, img, workers, Float64)
}

// EvaluateCost returns F(w) (25) over img with the first layer in
// precision p, using up to workers goroutines; bit-identical for any
// workers and calls. With Float64 it is Evaluate's cost; with Float32 it
// differs from it by about 1e-7 relative (TestEvaluateCostFloat32).
func (n Net) EvaluateCost(w []float64, img *datasets.Images, workers int, p Precision) float64 {
	cost, _ := n.evaluate(w, img, workers, p)
	return cost
}

func (n Net) evaluate(w []float64, img *datasets.Images, workers int, p Precision) (cost, acc float64) {
	losses := make([]float64, evalChunks)
	corrects := make([]int, evalChunks)
	var wg sync.WaitGroup
	next := make(chan int, evalChunks)
	for ch := 0; ch < evalChunks; ch++ {
		next <- ch
	}
	close(next)
	set := cachedGroups(img)
	for g := 0; g < max(1, min(workers, evalChunks)); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := n.NewWork()
			for ch := range next {
				lo, hi := ch*img.N/evalChunks, (ch+1)*img.N/evalChunks
				set.once[ch].Do(func() { set.g[ch].build(img, lo, hi, n.L, &ws.ev) })
				losses[ch], corrects[ch] = n.evalGroups(w, img, lo, hi, &set.g[ch], ws, p)
			}
		}()
	}
	wg.Wait()
	var loss float64
	var correct int
	for ch := range losses {
		loss += losses[ch]
		correct += corrects[ch]
	}
	return loss / float64(img.N), float64(correct) / float64(img.N)
}
