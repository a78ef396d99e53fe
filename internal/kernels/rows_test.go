package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGatherGemm4: every row of z equal bit for bit to ByteRow's sums of
// the same sparse row alone (Axpys of its non-zero terms in order), from
// the kernel (gatherGemm4AVX; the Go version under purego) and from the
// fallback, for J from 0 to 131 (every tail of the 8- and 4-wide tiles,
// J%4 != 0 falling back), unaligned z and w, 0 to 40 shared rows with
// about a third of the terms zero; and each within (n+2)·ε·Σ|terms| of
// the exact sum (recursive summation's bound, plus the final rounding).
// A row outside w panics.
func TestGatherGemm4(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, J := range []int{0, 1, 3, 4, 5, 8, 12, 16, 20, 31, 36, 64, 100, 128, 131} {
		const nr = 40
		w := buf(rng, nr*J, 1, 1)
		for _, n := range []int{0, 1, 2, 3, 9, 40} {
			rows := make([]int32, n)
			for u, k := range rng.Perm(nr)[:n] {
				rows[u] = int32(k)
			}
			x := buf(rng, 4*n, 2, 1)
			for i := range x {
				if rng.IntN(3) == 0 {
					x[i] = 0
				}
			}
			for name, f := range map[string]func(z, w []float64, J int, rows []int32, x []float64){
				"kernel": gatherGemm4AVX, "go": gatherGemm4Go,
				"GatherGemm4": func(z, w []float64, _ int, rows []int32, x []float64) { GatherGemm4(z, w, rows, x) },
			} {
				if J%4 != 0 && name == "kernel" {
					continue // the kernel's precondition
				}
				z := buf(rng, 4*J, 3, 5)
				f(z, w, J, rows, x)
				checkSentinels(t, z)
				for r := range 4 {
					want := make([]float64, J)
					for u, k := range rows {
						if a := x[4*u+r]; a != 0 {
							Axpy(a, w[int(k)*J:int(k)*J+J], want)
						}
					}
					for j := range want {
						if z[r*J+j] != want[j] {
							t.Fatalf("%s J=%d n=%d r=%d j=%d: %g, ByteRow's sum %g", name, J, n, r, j, z[r*J+j], want[j])
						}
						xs, ws := make([]float64, n), make([]float64, n)
						var abs float64
						for u, k := range rows {
							xs[u], ws[u] = x[4*u+r], w[int(k)*J+j]
							abs += math.Abs(xs[u] * ws[u])
						}
						if exact := exactDot(xs, ws); math.Abs(z[r*J+j]-exact) > float64(n+2)*eps*abs {
							t.Fatalf("%s J=%d n=%d r=%d j=%d: %g, exact %g", name, J, n, r, j, z[r*J+j], exact)
						}
					}
				}
			}
		}
		if J == 0 {
			continue
		}
		for _, bad := range []int32{-1, nr} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("J=%d row %d: no panic", J, bad)
					}
				}()
				GatherGemm4(make([]float64, 4*J), w, []int32{0, bad}, make([]float64, 8))
			}()
		}
	}
}

// TestGatherGemm4Shape: an output that is not 4 rows panics.
func TestGatherGemm4Shape(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	GatherGemm4(make([]float64, 6), make([]float64, 6), nil, nil)
}

// TestSwishGemvT: kernel and fallback equal bit for bit (neither fuses a
// product and a sum), and equal to the definition written out (a, then
// two interleaved dot products per output), for J and L from 0 to 131 and
// 13 (every tail, the kernel taking J%4 == L%4 == 0), z from -800 to 800
// (e = e^{-z} from 0 to +Inf: S(z) = -0 when it overflows), unaligned
// slices; and each output within 2(J+2)·ε·Σ|terms| of the exact product of
// the rounded a and wT (a dot product's bound).
func TestSwishGemvT(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, J := range []int{0, 1, 2, 3, 4, 5, 8, 12, 31, 128, 131} {
		for _, L := range []int{0, 1, 4, 5, 8, 12, 13} {
			z := buf(rng, J, 1, 8)
			if J > 2 {
				z[0], z[1] = 800, -800
			}
			e := buf(rng, J, 2, 1)
			for j := range e {
				e[j] = math.Exp(-z[j])
			}
			wT := buf(rng, J*L, 3, 1)
			want := make([]float64, J)
			for j := range want {
				s := 1 / (1 + e[j])
				want[j] = z[j] * s
			}
			wo := make([]float64, L)
			for l := range wo {
				var s [2]float64
				for j := range want {
					s[j%2] += want[j] * wT[j*L+l]
				}
				wo[l] = s[0] + s[1]
			}
			for name, f := range map[string]func(z, e, a, wT, o []float64){
				"kernel": swishGemvTAVX, "go": swishGemvTGo, "SwishGemvT": SwishGemvT,
			} {
				if name == "kernel" && (J%4 != 0 || L%4 != 0) {
					continue
				}
				a, o := buf(rng, J, 1, 1), buf(rng, L, 3, 1)
				f(z, e, a, wT, o)
				checkSentinels(t, a)
				checkSentinels(t, o)
				for j := range a {
					if math.Float64bits(a[j]) != math.Float64bits(want[j]) {
						t.Fatalf("%s J=%d L=%d: a[%d] = %g, want %g", name, J, L, j, a[j], want[j])
					}
				}
				for l := range o {
					if o[l] != wo[l] {
						t.Fatalf("%s J=%d L=%d: o[%d] = %g, want %g", name, J, L, l, o[l], wo[l])
					}
					xs, ys := make([]float64, J), make([]float64, J)
					var abs float64
					for j := range xs {
						xs[j], ys[j] = a[j], wT[j*L+l]
						abs += math.Abs(xs[j] * ys[j])
					}
					if exact := exactDot(xs, ys); math.Abs(o[l]-exact) > 2*float64(J+2)*eps*abs {
						t.Fatalf("%s J=%d L=%d: o[%d] = %g, exact %g", name, J, L, l, o[l], exact)
					}
				}
			}
		}
	}
}

// TestGatherPanels4: each group's z equal bit for bit to GatherGemm4 of
// the group alone on the row-major w (so to ByteRow's sums), from the
// kernel and the fallback, for J = 8 to 136, 1 to 5 groups (some empty,
// the first starting past row 0), unaligned slices, nothing written past
// the last group; bad shapes, starts and rows panic.
func TestGatherPanels4(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	const K = 40
	for _, J := range []int{8, 16, 24, 128, 136} {
		w := buf(rng, K*J, 1, 1)
		wp := buf(rng, K*J, 3, 1)
		PackPanels8(wp, w, K, J)
		checkSentinels(t, wp)
		for _, sizes := range [][]int{{0}, {1}, {9, 0, 40}, {3, 17, 2, 0, 40}} {
			start := []int32{2}
			rows := []int32{5, 7}
			for _, n := range sizes {
				for _, k := range rng.Perm(K)[:n] {
					rows = append(rows, int32(k))
				}
				slices.Sort(rows[start[len(start)-1]:])
				start = append(start, int32(len(rows)))
			}
			x := buf(rng, 4*len(rows), 2, 1)
			for i := range x {
				if rng.IntN(3) == 0 {
					x[i] = 0
				}
			}
			G := len(sizes)
			for name, f := range map[string]func(z, wp []float64, K, J int, start, rows []int32, x []float64){
				"kernel": gatherPanels4AVX, "go": gatherPanels4Go, "GatherPanels4": GatherPanels4,
			} {
				z := buf(rng, 4*J*G, 1, 5)
				f(z, wp, K, J, start, rows, x)
				checkSentinels(t, z)
				for g := range G {
					a, b := start[g], start[g+1]
					want := make([]float64, 4*J)
					GatherGemm4(want, w, rows[a:b], x[4*a:4*b])
					for i, v := range want {
						if z[4*J*g+i] != v {
							t.Fatalf("%s J=%d sizes %v group %d: z[%d] = %g, want %g", name, J, sizes, g, i, z[4*J*g+i], v)
						}
					}
				}
			}
		}
	}
	w := make([]float64, K*8)
	for name, f := range map[string]func(){
		"J%8":        func() { GatherPanels4(make([]float64, 48), w, K, 12, []int32{0, 0}, nil, nil) },
		"start down": func() { GatherPanels4(make([]float64, 64), w, K, 8, []int32{0, 1, 0}, []int32{1}, make([]float64, 4)) },
		"start past": func() { GatherPanels4(make([]float64, 32), w, K, 8, []int32{0, 2}, []int32{1}, make([]float64, 8)) },
		"row":        func() { GatherPanels4(make([]float64, 32), w, K, 8, []int32{0, 1}, []int32{K}, make([]float64, 4)) },
		"short z":    func() { GatherPanels4(make([]float64, 31), w, K, 8, []int32{0, 1}, []int32{1}, make([]float64, 4)) },
		"pack":       func() { PackPanels8(make([]float64, 12*K), make([]float64, 12*K), K, 12) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
