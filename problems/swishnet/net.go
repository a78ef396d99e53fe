// Package swishnet is the three-layer classifier of Ye & Cui, eq. (26): K
// inputs, J swish hidden units S(z) = z/(1+e^-z), L softmax outputs, no
// biases, with the cross-entropy cost F(w) of eq. (25). It supplies the
// clients of the SSCA algorithms (solver/stochastic): sample-based clients own a
// shard of the images, feature-based clients a block of pixels.
//
// Parameter layout (d = JK + LJ): w[k*J+j] = w_{1,j,k} (first layer stored
// pixel-major, so a pixel's J weights are contiguous and a feature block of
// pixels [k0, k1) is the slice w[k0*J : k1*J]); w[JK + l*J + j] = w_{2,l,j}.
//
// Inputs are sparse rows of raw bytes (datasets.Images) read as pixel/255:
// the first layer touches only non-zero pixels, J floats each.
package swishnet

import (
	"math"
	"math/rand/v2"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/internal/kernels"
)

// Net is the shape of the network (26).
type Net struct{ K, J, L int }

// Dim is d = JK + LJ.
func (n Net) Dim() int { return n.J*n.K + n.L*n.J }

// W1 and W2 are the two layers' parts of w (see the package doc for the layout).
func (n Net) W1(w []float64) []float64 { return w[:n.K*n.J] }

// W2 is the output layer, L×J row-major.
func (n Net) W2(w []float64) []float64 { return w[n.K*n.J:] }

// Init draws w1 ~ N(0, 1/K), w2 ~ N(0, 1/J) (the initialisation) into w.
func (n Net) Init(w []float64, rng *rand.Rand) {
	s1, s2 := 1/math.Sqrt(float64(n.K)), 1/math.Sqrt(float64(n.J))
	for i := range n.W1(w) {
		w[i] = s1 * rng.NormFloat64()
	}
	w2 := n.W2(w)
	for i := range w2 {
		w2[i] = s2 * rng.NormFloat64()
	}
}

// pixel maps a raw byte to its input value, /255.
var pixel = func() (t [256]float64) {
	for i := range t {
		t[i] = float64(i) / 255
	}
	return
}()

// Swish is S(z) = z σ(z), σ(z) = 1/(1+e^-z); finite for every finite z.
func Swish(z float64) float64 { return z * sigmoid(z) }

// SwishPrime is S'(z) = σ(z)(1 + z(1-σ(z))) (Section V: 1/(1+e^-z)(1+z/(1+e^z))).
func SwishPrime(z float64) float64 { return sigmoid(z) * (1 + z*sigmoid(-z)) }

// sigmoid is 1/(1+e^-z): e^-z overflows to +Inf for z < -709, giving 0, not NaN.
func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// swishPair returns S(z) and S'(z) with one exponential.
func swishPair(z float64) (float64, float64) { return swishFrom(z, math.Exp(-z)) }

// swishFrom returns S(z) and S'(z) given e = e^-z: σ(z) = 1/(1+e),
// σ(-z) = e σ(z) (1 when e overflows).
func swishFrom(z, e float64) (float64, float64) {
	s := 1 / (1 + e)
	sm := e * s
	if math.IsInf(e, 1) {
		sm = 1
	}
	return z * s, s * (1 + z*sm)
}

// swishPairs sets a[i], sp[i] = S(z[i]), S'(z[i]) using e (len(z)) as
// scratch: the exponentials in one vectorised pass (kernels.Exp).
func swishPairs(z, e, a, sp []float64) {
	e = e[:len(z)]
	for i, v := range z {
		e[i] = -v
	}
	kernels.Exp(e, e)
	for i, v := range z {
		a[i], sp[i] = swishFrom(v, e[i])
	}
}

// Work is one goroutine's scratch space for per-sample passes.
type Work struct {
	z, a, sp, d, e []float64 // J: pre-activation, S(z), S'(z), back-propagated error, e^-z
	o, q           []float64 // L: logits, softmax
	sc             scatter   // batch-sized, grown on demand
	ev             evalWork  // Eval's scratch, grown on demand
}

// NewWork allocates scratch space for n.
func (n Net) NewWork() *Work {
	return &Work{z: make([]float64, n.J), a: make([]float64, n.J), sp: make([]float64, n.J), d: make([]float64, n.J),
		e: make([]float64, n.J), o: make([]float64, n.L), q: make([]float64, n.L)}
}

// axpy sets y[:len(x)] += a x (AVX2/FMA where available).
func axpy(a float64, x, y []float64) { kernels.Axpy(a, x, y) }

// softmax sets q = softmax(o) and returns log Σ e^o, shifted by max(o) so
// that logits of ±1000 stay finite (stable log-sum-exp).
func softmax(o, q []float64) float64 {
	m := o[0]
	for _, v := range o[1:] {
		m = max(m, v)
	}
	var s float64
	for l, v := range o {
		q[l] = math.Exp(v - m)
		s += q[l]
	}
	for l := range q {
		q[l] /= s
	}
	return m + math.Log(s)
}

func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(x); i += 2 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
	}
	if i < len(x) {
		s0 += x[i] * y[i]
	}
	return s0 + s1
}

// hidden sets ws.z to the pre-activations of image m (its pixels in
// [k0, k1) only when the CSR range is restricted by the caller: p0, p1).
// The sum over the pixels p (in column order) for each z[j] is the same as
// with one axpy per pixel, but z stays in registers (kernels.ByteRow).
func (n Net) hidden(w1 []float64, img *datasets.Images, p0, p1 int32, z []float64) {
	kernels.ByteRow(z, w1, img.Col[p0:p1], 0, img.Val[p0:p1], &pixel)
}

// top computes, from ws.z, the activations, the softmax q and the loss
// -log Q_y (25) of a sample with label y; q is left in ws.q.
func (n Net) top(w2 []float64, y int, ws *Work) float64 {
	J := n.J
	swishPairs(ws.z, ws.e, ws.a, ws.sp)
	for l := range ws.o {
		ws.o[l] = dot(w2[l*J:l*J+J], ws.a)
	}
	lse := softmax(ws.o, ws.q)
	return lse - ws.o[y]
}

// backTop turns ws.q into the residual r = Q - y, adds Σ_l r_l a^T to g2
// (the w2 gradient, Section V) and sets ws.d = S'(z) ⊙ (w2^T r).
func (n Net) backTop(w2, g2 []float64, y int, ws *Work, addG2 bool) {
	J := n.J
	ws.q[y] -= 1
	clear(ws.d)
	for l, r := range ws.q {
		if addG2 {
			axpy(r, ws.a, g2[l*J:l*J+J])
		}
		axpy(r, w2[l*J:l*J+J], ws.d)
	}
	for j := range ws.d {
		ws.d[j] *= ws.sp[j]
	}
}

// Grad sets g (len d) to Σ_{n ∈ batch} ∇f(w; x_n) over images batch of img
// and returns Σ_n -log Q_{y_n}(w, x_n): the cross-entropy sums behind
// (32)-(34). It allocates nothing.
func (n Net) Grad(w []float64, img *datasets.Images, batch []int, g []float64, ws *Work) float64 {
	clear(g)
	w1, w2 := n.W1(w), n.W2(w)
	g1, g2 := n.W1(g), n.W2(g)
	J := n.J
	D := ws.sc.rows(len(batch) * J)
	var loss float64
	for b, m := range batch {
		p0, p1 := img.RowPtr[m], img.RowPtr[m+1]
		n.hidden(w1, img, p0, p1, ws.z)
		y := int(img.Labels[m])
		loss += n.top(w2, y, ws)
		n.backTop(w2, g2, y, ws, true)
		copy(D[b*J:b*J+J], ws.d)
	}
	ws.sc.add(img, batch, func(m int) (int32, int32) { return img.RowPtr[m], img.RowPtr[m+1] }, 0, n.K, J, D, g1)
	return loss
}

// scatter adds first-layer gradients Σ_b Σ_{p ∈ image b} (val_p/255)·d_b
// to row col_p of g, by chunks of scatterChunk images and, within a chunk,
// row by row of g (kernels.ByteRowAdd keeps a row in registers; the
// chunk's d_b stay in L1): every entry gets the same fused sums in the same
// (batch) order as one axpy per pixel and image, but a row of g is loaded
// and stored once per chunk instead of once per pixel.
type scatter struct {
	d          []float64 // B×J: the images' back-propagated errors
	start, pos []int32   // per pixel: its entries' range in b, v
	b          []uint16  // chunk positions, pixel by pixel
	v          []uint8   // pixel values
}

// scatterChunk images' errors (J = 128: 16 KB) fit in L1 with room to spare.
const scatterChunk = 16

func (s *scatter) rows(n int) []float64 {
	if cap(s.d) < n {
		s.d = make([]float64, n)
	}
	return s.d[:n]
}

// add adds the gradient of pixels [k0, k1) (image m's CSR range span(m))
// to g ((k1-k0)×J).
func (s *scatter) add(img *datasets.Images, batch []int, span func(int) (int32, int32), k0, k1, J int, D, g []float64) {
	nk := k1 - k0
	if cap(s.start) < nk+1 {
		s.start, s.pos = make([]int32, nk+1), make([]int32, nk+1)
	}
	start, pos := s.start[:nk+1], s.pos[:nk+1]
	for c0 := 0; c0 < len(batch); c0 += scatterChunk {
		chunk := batch[c0:min(c0+scatterChunk, len(batch))]
		clear(start)
		for _, m := range chunk {
			p0, p1 := span(m)
			for _, c := range img.Col[p0:p1] {
				start[int(c)-k0+1]++
			}
		}
		for k := 1; k <= nk; k++ {
			start[k] += start[k-1]
		}
		if n := int(start[nk]); cap(s.b) < n {
			s.b, s.v = make([]uint16, n), make([]uint8, n)
		}
		copy(pos, start)
		for b, m := range chunk {
			p0, p1 := span(m)
			for p := p0; p < p1; p++ {
				k := int(img.Col[p]) - k0
				s.b[pos[k]], s.v[pos[k]] = uint16(b), img.Val[p]
				pos[k]++
			}
		}
		dc := D[c0*J : (c0+len(chunk))*J]
		for k := 0; k < nk; k++ {
			if a, e := start[k], start[k+1]; a < e {
				kernels.ByteRowAdd(g[k*J:k*J+J], dc, s.b[a:e], 0, s.v[a:e], &pixel)
			}
		}
	}
}
