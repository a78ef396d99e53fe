package problems

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func synthFair(rng *rand.Rand, m, d int) *FairParty {
	x := mat.NewDense(m, d, nil)
	y := make([]float64, m)
	var i0, i1 []int
	for i := 0; i < m; i++ {
		g := i % 3 // unbalanced groups
		for j := 0; j < d-1; j++ {
			x.Set(i, j, rng.NormFloat64()+0.4*float64(g)*float64(j%2))
		}
		x.Set(i, d-1, 1)
		if rng.Float64() < 0.3+0.2*float64(g%2) {
			y[i] = 1
		}
		if g == 0 {
			i0 = append(i0, i)
		} else {
			i1 = append(i1, i)
		}
	}
	return &FairParty{G0: NewLabeled(x, y, i0), G1: NewLabeled(x, y, i1), Scale: 0.25, R: 0.1}
}

// TestFairDerivatives checks f, c, their gradients and the Lagrangian Hessian
// of FairParty against central finite differences.
func TestFairDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const d = 5
	p := synthFair(rng, 90, d)
	w := make([]float64, d)
	for j := range w {
		w[j] = 0.5 * rng.NormFloat64()
	}
	g, c, jac := make([]float64, d), make([]float64, 2), make([]float64, 2*d)
	f := p.Eval(w, g, c, jac)
	if math.Abs(f-p.Scale*p.Loss(w)) > 1e-14 || math.Abs(math.Abs(c[0]+p.R)-p.Disparity(w)) > 1e-14 {
		t.Fatalf("f = %v vs %v, c = %v vs disparity %v", f, p.Scale*p.Loss(w), c, p.Disparity(w))
	}
	y := []float64{0.8, 0.3}
	h := mat.NewSymDense(d, nil)
	p.Hessian(h, w, y)
	const step = 1e-5
	for j := 0; j < d; j++ {
		wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
		wp[j] += step
		wm[j] -= step
		gp, gm := make([]float64, d), make([]float64, d)
		cp, cm := make([]float64, 2), make([]float64, 2)
		jp, jm := make([]float64, 2*d), make([]float64, 2*d)
		fp, fm := p.Eval(wp, gp, cp, jp), p.Eval(wm, gm, cm, jm)
		if fd := (fp - fm) / (2 * step); math.Abs(fd-g[j]) > 1e-8 {
			t.Errorf("df/dw%d = %v, fd %v", j, g[j], fd)
		}
		for r := 0; r < 2; r++ {
			if fd := (cp[r] - cm[r]) / (2 * step); math.Abs(fd-jac[r*d+j]) > 1e-8 {
				t.Errorf("dc%d/dw%d = %v, fd %v", r, j, jac[r*d+j], fd)
			}
		}
		for k := 0; k < d; k++ {
			fd := (gp[k]-gm[k])/(2*step) + y[0]*(jp[k]-jm[k])/(2*step) + y[1]*(jp[d+k]-jm[d+k])/(2*step)
			if math.Abs(fd-h.At(j, k)) > 1e-7 {
				t.Errorf("H[%d,%d] = %v, fd %v", j, k, h.At(j, k), fd)
			}
		}
	}
	// The server: Scale = 0 gives f = 0 and ∇f = 0.
	p.Scale = 0
	if f := p.Eval(w, g, c, jac); f != 0 || normInfTest(g) != 0 {
		t.Fatalf("server f = %v, grad %v", f, g)
	}
}

func normInfTest(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
