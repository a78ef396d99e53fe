package swishnet

import (
	"cmp"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/internal/kernels"
)

// groups are a range of images in groups of four for
// kernels.GatherPanels4 (GatherGemm4): a group's first-layer product reads
// each W1 row of the union of its pixels once, for all four images. Images
// of one class and shape share most of their pixels (shapeKey), so the
// images are ordered by shapeKey, stably: the groups are a fixed function
// of the images, and no result depends on them (see Eval).
type groups struct {
	order []int32 // the images in group order: group g is order[4g : 4g+4]
	start []int32 // group g's union is rows[start[g]:start[g+1]]
	rows  []int32 // pixels, increasing within a group
	vals  []uint8 // 4 raw values per union pixel, 0 where an image lacks it
}

// build sets g to the groups of images [lo, hi) of img, labels >= L
// sorted last.
func (g *groups) build(img *datasets.Images, lo, hi, L int, ws *evalWork) {
	g.order = g.order[:0]
	ws.key = grow(ws.key, hi-lo)
	for m := lo; m < hi; m++ {
		g.order = append(g.order, int32(m))
		ws.key[m-lo] = shapeKey(img, int32(m), L)
	}
	slices.SortStableFunc(g.order, func(a, b int32) int {
		return cmp.Compare(ws.key[int(a)-lo], ws.key[int(b)-lo])
	})
	K := img.K
	ws.dense, ws.mark = grow(ws.dense, 4*K), grow(ws.mark, (K+63)/64)
	dense, mark := ws.dense, ws.mark
	g.start, g.rows, g.vals = append(g.start[:0], 0), g.rows[:0], g.vals[:0]
	for q := 0; q < len(g.order); q += 4 {
		for r, m := range g.order[q:min(q+4, len(g.order))] {
			// The columns increase: each word of the bit set is or-ed once.
			var cur uint64
			wi := 0
			for p := img.RowPtr[m]; p < img.RowPtr[m+1]; p++ {
				c := int(img.Col[p])
				dense[4*c+r] = img.Val[p]
				if c>>6 != wi {
					mark[wi] |= cur
					wi, cur = c>>6, 0
				}
				cur |= 1 << (c & 63)
			}
			mark[wi] |= cur
		}
		for i, b := range mark {
			for ; b != 0; b &= b - 1 {
				c := i<<6 + bits.TrailingZeros64(b)
				g.rows = append(g.rows, int32(c))
				g.vals = append(g.vals, dense[4*c:4*c+4]...)
				clear(dense[4*c : 4*c+4])
			}
			mark[i] = 0
		}
		g.start = append(g.start, int32(len(g.rows)))
	}
}

// shapeKey orders image m by label (those >= L last), then by the
// number of pixel columns it covers and the span of its pixel rows: on
// Fashion-MNIST the union of four images in this order holds 1.20 times
// their pixels (1.25 in order of label and non-zeros, 1.6 for four
// consecutive images). It assumes a 28-column grid; other shapes only
// group less well.
func shapeKey(img *datasets.Images, m int32, L int) int {
	cols := img.Col[img.RowPtr[m]:img.RowPtr[m+1]]
	if len(cols) == 0 {
		return min(int(img.Labels[m]), L) << 20
	}
	var seen uint32
	for _, c := range cols {
		seen |= 1 << (c % 28)
	}
	span := int(cols[len(cols)-1]/28 - cols[0]/28)
	return min(int(img.Labels[m]), L)<<20 | bits.OnesCount32(seen)<<10 | min(span, 1023)
}

// evalWork is Eval's scratch space.
type evalWork struct {
	g     groups
	key   []int     // shapeKey per image of the range
	dense []uint8   // K×4: a group's pixel values
	mark  []uint64  // K bits: a group's pixels
	x     []float64 // a batch's pixel values, 4 per union pixel
	z, ez []float64 // 4×J per group of a batch: pre-activations, e^-z
	wp    []float64 // W1 as panels (kernels.PackPanels8)
	x32   []float32 // the float32 first layer's x, wp and z (Float32)
	wp32  []float32
	z32   []float32
	st    []int32   // a batch's group starts
	w2T   []float64 // J×Lp: w2 transposed and padded
	o     []float64 // Lp logits
	loss  []float64 // per image of the range
	hit   []bool
}

// Eval returns the sum of -log Q_y and the number of correct argmax
// predictions over images [lo, hi) of img. Each image's pre-activations,
// and so its loss, are those kernels.ByteRow gives for it alone (see
// kernels.GatherGemm4), and the losses are summed in image order: the
// grouping changes no result.
func (n Net) Eval(w []float64, img *datasets.Images, lo, hi int, ws *Work) (loss float64, correct int) {
	ws.ev.g.build(img, lo, hi, n.L, &ws.ev)
	return n.evalGroups(w, img, lo, hi, &ws.ev.g, ws, Float64)
}

// Precision is the arithmetic of the first layer in EvaluateCost.
type Precision int

const (
	// Float64: Evaluate's cost, bit for bit.
	Float64 Precision = iota
	// Float32: W1 and the pixels in float32 and the first layer's
	// sums in float32 (8 lanes a vector: half the vector multiply-adds);
	// the rest of the network in float64 as in Float64.
	Float32
)

// inv255 is 1/255 in float32: a pixel's Float32 input is float32(b)·inv255,
// within 2⁻²³ relative of b/255.
const inv255 = float32(1.0 / 255)

// panelBatch groups (64 images) share each pass over a panel of W1: their
// pixel values (about 15 KB a group) and pre-activations (4 KB) stay in L2
// while the panels are read once per batch.
const panelBatch = 16

// evalGroups is Eval over the groups g of images [lo, hi), the first layer
// in precision p; with Float32 it counts no correct predictions.
func (n Net) evalGroups(w []float64, img *datasets.Images, lo, hi int, g *groups, ws *Work, p Precision) (loss float64, correct int) {
	w1, w2 := n.W1(w), n.W2(w)
	J, L := n.J, n.L
	e := &ws.ev
	e.loss, e.hit = grow(e.loss, hi-lo), grow(e.hit, hi-lo)
	// w2 transposed, its rows padded to Lp with zeros, for kernels.SwishGemvT.
	Lp := (L + 3) &^ 3
	e.w2T, e.o = grow(e.w2T, J*Lp), grow(e.o, Lp)
	clear(e.w2T)
	for l := range L {
		for j, v := range w2[l*J : l*J+J] {
			e.w2T[j*Lp+l] = v
		}
	}
	// Groups go to the kernels panelBatch at a time (W1 as panels of 8
	// columns, kernels.GatherPanels4; in Float32 of 16, padded to them,
	// kernels.GatherPanels4F32) or, for J%8 != 0 and in the pure-Go
	// fallback (whose Axpys are faster over whole rows), one by one.
	f32 := p == Float32
	panels := !f32 && kernels.Accelerated() && J%8 == 0 && len(w1) == n.K*J
	Jp := kernels.PanelCols16(J)
	if f32 {
		e.wp32 = grow(e.wp32, n.K*Jp)
		kernels.PackPanels16F32(e.wp32, w1, n.K, J)
	}
	if panels {
		e.wp = grow(e.wp, n.K*J)
		kernels.PackPanels8(e.wp, w1, n.K, J)
	}
	ng := len(g.start) - 1
	for q0 := 0; q0 < ng; q0 += panelBatch {
		q1 := min(q0+panelBatch, ng)
		a, b := g.start[q0], g.start[q1]
		e.z, e.ez = grow(e.z, 4*J*(q1-q0)), grow(e.ez, 4*J*(q1-q0))
		e.st = grow(e.st, q1-q0+1)
		for i := range e.st {
			e.st[i] = g.start[q0+i] - a
		}
		if f32 {
			e.x32 = grow(e.x32, 4*int(b-a))
			kernels.BytesF32(e.x32, g.vals[4*a:4*b], inv255)
			e.z32 = grow(e.z32, 4*Jp*(q1-q0))
			kernels.GatherPanels4F32(e.z32, e.wp32, n.K, Jp, e.st, g.rows[a:b], e.x32)
			for i := range 4 * (q1 - q0) {
				z, ez := e.z[i*J:i*J+J], e.ez[i*J:i*J+J]
				for j, v := range e.z32[i*Jp : i*Jp+J] {
					z[j], ez[j] = float64(v), -float64(v)
				}
			}
		} else {
			e.x = grow(e.x, 4*int(b-a))
			for i, v := range g.vals[4*a : 4*b] {
				e.x[i] = pixel[v]
			}
			if panels {
				kernels.GatherPanels4(e.z, e.wp, n.K, J, e.st, g.rows[a:b], e.x)
			} else {
				for q := q0; q < q1; q++ {
					u0, u1 := g.start[q]-a, g.start[q+1]-a
					kernels.GatherGemm4(e.z[4*J*(q-q0):4*J*(q-q0+1)], w1, g.rows[a+u0:a+u1], e.x[4*u0:4*u1])
				}
			}
			for i, v := range e.z {
				e.ez[i] = -v
			}
		}
		kernels.Exp(e.ez, e.ez)
		for q := q0; q < q1; q++ {
			for r, m := range g.order[4*q : min(4*q+4, len(g.order))] {
				// top's loss and the argmax, without S'(z): the same roundings.
				zr := 4*J*(q-q0) + r*J
				kernels.SwishGemvT(e.z[zr:zr+J], e.ez[zr:zr+J], ws.a, e.w2T, e.o)
				o := e.o[:L]
				y := int(img.Labels[m])
				lse := softmax(o, ws.q)
				e.loss[int(m)-lo] = lse - o[y]
				if f32 {
					continue
				}
				best := 0
				for l, v := range o {
					if v > o[best] {
						best = l
					}
				}
				e.hit[int(m)-lo] = best == y
			}
		}
	}
	for i := range hi - lo {
		loss += e.loss[i]
		if !f32 && e.hit[i] {
			correct++
		}
	}
	return loss, correct
}

// setGroups are Evaluate's groups of one image set, chunk by chunk, built
// on first use: an evaluation of a set that is evaluated again (every
// point of a curve) skips the grouping.
type setGroups struct {
	n, nnz int // the set's shape when the groups were built
	once   [evalChunks]sync.Once
	g      [evalChunks]groups
}

// setCache maps weak pointers to image sets to their *setGroups; an entry
// goes when its set is collected. Image sets are not modified once built
// (datasets), so a set's pointer names its pixels.
var setCache sync.Map

func cachedGroups(img *datasets.Images) *setGroups {
	key := weak.Make(img)
	if v, ok := setCache.Load(key); ok {
		if s := v.(*setGroups); s.n == img.N && s.nnz == len(img.Col) {
			return s
		}
		s := &setGroups{n: img.N, nnz: len(img.Col)}
		setCache.Store(key, s)
		return s
	}
	s := &setGroups{n: img.N, nnz: len(img.Col)}
	v, loaded := setCache.LoadOrStore(key, s)
	if !loaded {
		runtime.AddCleanup(img, func(k weak.Pointer[datasets.Images]) { setCache.Delete(k) }, key)
	}
	return v.(*setGroups)
}

// grow returns s with length n, reallocated if its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
