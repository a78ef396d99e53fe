package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// buf32 is buf for float32: n values in [-scale, scale) at offset off of a
// slice followed by 8 sentinels.
func buf32(rng *rand.Rand, n, off int, scale float64) []float32 {
	b := make([]float32, off+n+8)
	for i := range b {
		b[i] = sentinel
	}
	for i := off; i < off+n; i++ {
		b[i] = float32(scale * (2*rng.Float64() - 1))
	}
	return b[off : off+n]
}

func checkSentinels32(t *testing.T, s []float32) {
	t.Helper()
	for _, v := range s[len(s) : len(s)+8] {
		if v != sentinel {
			t.Fatalf("wrote past the end of a %d-slice", len(s))
		}
	}
}

// TestPackPanels16F32: every entry of w at its panel place, rounded to
// float32, the padding columns zero, for J on and off the 16-column tile.
func TestPackPanels16F32(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	for _, c := range []struct{ K, J int }{{0, 16}, {3, 0}, {1, 1}, {5, 16}, {7, 17}, {40, 20}, {9, 128}, {4, 130}} {
		Jp := PanelCols16(c.J)
		w := buf(rng, c.K*c.J, 1, 1)
		wp := buf32(rng, c.K*Jp, 3, 1)
		PackPanels16F32(wp, w, c.K, c.J)
		checkSentinels32(t, wp)
		for k := range c.K {
			for j := range Jp {
				got := wp[(j&^15)*c.K+16*k+j%16]
				want := float32(0)
				if j < c.J {
					want = float32(w[k*c.J+j])
				}
				if got != want {
					t.Fatalf("K=%d J=%d: W[%d][%d] packed as %g, want %g", c.K, c.J, k, j, got, want)
				}
			}
		}
	}
	for name, f := range map[string]func(){
		"short w":  func() { PackPanels16F32(make([]float32, 64), make([]float64, 19), 1, 20) },
		"short wp": func() { PackPanels16F32(make([]float32, 31), make([]float64, 20), 1, 20) },
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

// TestGatherPanels4F32: each group's z from the kernel, the fallback and
// the dispatcher within (n+2)·2⁻²⁴·Σ|terms| of the exact sum of its n
// non-zero terms (the recursive-summation bound in float32; the products
// of float32 values are exact in float64, so exactDot is exact), kernel
// and fallback within twice that of each other, padding columns exactly
// zero, for J = 16 to 144 and J = 20 and 130 padded to the tile, 1 to 5
// groups (some empty, the first starting past row 0), unaligned slices,
// nothing written past the last group; bad shapes, starts and rows panic.
func TestGatherPanels4F32(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	const K = 40
	const u = 0x1p-24
	for _, J := range []int{16, 20, 32, 128, 130, 144} {
		Jp := PanelCols16(J)
		w := buf(rng, K*J, 1, 1)
		wp := buf32(rng, K*Jp, 3, 1)
		PackPanels16F32(wp, w, K, J)
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
			x := buf32(rng, 4*len(rows), 2, 1)
			for i := range x {
				if rng.IntN(3) == 0 {
					x[i] = 0
				}
			}
			G := len(sizes)
			fb := make([]float32, 4*Jp*G)
			gatherPanels4F32Go(fb, wp, K, Jp, start, rows, x)
			for name, f := range map[string]func(z, wp []float32, K, J int, start, rows []int32, x []float32){
				"kernel": gatherPanels4F32AVX, "go": gatherPanels4F32Go, "GatherPanels4F32": GatherPanels4F32,
			} {
				z := buf32(rng, 4*Jp*G, 1, 5)
				f(z, wp, K, Jp, start, rows, x)
				checkSentinels32(t, z)
				for g := range G {
					for r := range 4 {
						for j := range Jp {
							got := float64(z[4*Jp*g+r*Jp+j])
							if j >= J {
								if got != 0 {
									t.Fatalf("%s J=%d group %d: padding column %d = %g", name, J, g, j, got)
								}
								continue
							}
							var xs, ws []float64
							abs := 0.0
							for q := start[g]; q < start[g+1]; q++ {
								if a := float64(x[4*q+int32(r)]); a != 0 {
									v := float64(wp[(j&^15)*K+16*int(rows[q])+j%16])
									xs, ws = append(xs, a), append(ws, v)
									abs += math.Abs(a * v)
								}
							}
							exact := exactDot(xs, ws)
							if d := math.Abs(got - exact); d > float64(len(xs)+2)*u*abs {
								t.Fatalf("%s J=%d sizes %v group %d row %d: z[%d] = %g, exact %g (%d terms, Σ|terms| %g)",
									name, J, sizes, g, r, j, got, exact, len(xs), abs)
							}
							if d := math.Abs(got - float64(fb[4*Jp*g+r*Jp+j])); d > 2*float64(len(xs)+2)*u*abs {
								t.Fatalf("%s J=%d: z[%d] = %g, fallback %g", name, J, j, got, fb[4*Jp*g+r*Jp+j])
							}
						}
					}
				}
			}
		}
	}
	wp := make([]float32, K*16)
	for name, f := range map[string]func(){
		"J%16": func() { GatherPanels4F32(make([]float32, 96), wp, K, 24, []int32{0, 0}, nil, nil) },
		"start down": func() {
			GatherPanels4F32(make([]float32, 128), wp, K, 16, []int32{0, 1, 0}, []int32{1}, make([]float32, 4))
		},
		"start past": func() {
			GatherPanels4F32(make([]float32, 64), wp, K, 16, []int32{0, 2}, []int32{1}, make([]float32, 8))
		},
		"row": func() {
			GatherPanels4F32(make([]float32, 64), wp, K, 16, []int32{0, 1}, []int32{K}, make([]float32, 4))
		},
		"short z": func() {
			GatherPanels4F32(make([]float32, 63), wp, K, 16, []int32{0, 1}, []int32{1}, make([]float32, 4))
		},
		"short x": func() {
			GatherPanels4F32(make([]float32, 64), wp, K, 16, []int32{0, 1}, []int32{1}, make([]float32, 3))
		},
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

// TestBytesF32: the kernel, the fallback and the dispatcher give bit for
// bit float32(b)·s (both round the exact product once), for every byte
// value (n = 256), lengths 0 to 70 around the 16-byte step, unaligned starts,
// nothing written past the end; a short src panics.
func TestBytesF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, s := range []float32{1, 1.0 / 255, -3.7e-5} {
		for _, n := range append(seq(71), 256) {
			for _, off := range []int{0, 1, 3} {
				src := make([]uint8, off+n+16)
				for i := range src {
					src[i] = uint8(rng.IntN(256))
				}
				src = src[off : off+n]
				if n == 256 {
					for i := range src {
						src[i] = uint8(i)
					}
				}
				for name, f := range map[string]func([]float32, []uint8, float32){
					"BytesF32": BytesF32, "go": bytesF32Go,
					"kernel": func(d []float32, b []uint8, s float32) {
						bytesF32AVX(d[:n&^15], b, s)
						bytesF32Go(d[n&^15:], b[n&^15:], s)
					},
				} {
					dst := buf32(rng, n, off, 1)
					f(dst, src, s)
					checkSentinels32(t, dst)
					for i, b := range src {
						if want := float32(float64(b) * float64(s)); dst[i] != want {
							t.Fatalf("%s s=%g n=%d: dst[%d] = %g for byte %d, want %g", name, s, n, i, dst[i], b, want)
						}
					}
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("short src: no panic")
		}
	}()
	BytesF32(make([]float32, 17), make([]uint8, 16), 1)
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
