package kernels

//go:generate sh -c "cd asm && go run ./panels32 -out ../panels32_amd64.s -stubs ../panels32_stubs_amd64.go -pkg kernels"

import "fmt"

// PanelCols16 is J rounded up to a multiple of 16: the columns of the
// panels PackPanels16F32 writes and of the rows GatherPanels4F32 fills.
func PanelCols16(J int) int { return (J + 15) &^ 15 }

// PackPanels16F32 sets wp[t·K + 16k + c] = float32(w[k·J + t + c]) for
// t = 0, 16, ... < Jp = PanelCols16(J): the K×J row-major w as Jp/16
// panels of 16 columns, each K rows of 64 contiguous bytes, rounded to
// float32 and padded with zero columns; the layout GatherPanels4F32
// reads. It panics unless w holds K·J values and wp K·Jp.
func PackPanels16F32(wp []float32, w []float64, K, J int) {
	Jp := PanelCols16(J)
	if J < 0 || K < 0 || len(w) < K*J || len(wp) < K*Jp {
		panic(fmt.Sprintf("kernels: PackPanels16F32 of %d×%d from %d into %d values", K, J, len(w), len(wp)))
	}
	for k := range K {
		row := w[k*J : k*J+J]
		for t := 0; t < Jp; t += 16 {
			p := wp[t*K+16*k : t*K+16*k+16]
			for c := range p {
				if t+c < J {
					p[c] = float32(row[t+c])
				} else {
					p[c] = 0
				}
			}
		}
	}
}

// GatherPanels4F32 is GatherPanels4 in float32: for the G = len(start)-1
// groups of four sparse rows, z[4Jg + r·J + j] = Σ_u x[4u+r]·W[rows[u]][j]
// over u in rows[start[g]:start[g+1]], in order, with W given as its
// panels wp (PackPanels16F32, K rows, J a multiple of 16). Each panel (16K
// floats, 50 KB for K = 784) is read for all the groups before the next.
// The kernel rounds each term's multiply-add once, the fallback twice, in
// the same order: each is within (n+2)·2⁻²⁴·Σ|terms| of the exact sum of
// its n terms (recursive summation), and they agree to twice that. It panics
// unless J%16 == 0, a row is in [0, K), start does not decrease and stays
// within rows, and the slices are long enough.
func GatherPanels4F32(z, wp []float32, K, J int, start, rows []int32, x []float32) {
	if len(start) < 2 {
		return
	}
	G := len(start) - 1
	if J%16 != 0 || J < 0 || len(wp) < K*J || len(z) < 4*J*G || len(x) < 4*len(rows) {
		panic(fmt.Sprintf("kernels: GatherPanels4F32 of %d groups, J = %d: short slices or J%%16 != 0", G, J))
	}
	checkGroups(start, rows, K)
	if J == 0 {
		return
	}
	if useAVX {
		gatherPanels4F32AVX(z, wp, K, J, start, rows, x)
		return
	}
	gatherPanels4F32Go(z, wp, K, J, start, rows, x)
}

// gatherPanels4F32Go skips the zero terms, which add an exact zero in the
// kernel.
func gatherPanels4F32Go(z, wp []float32, K, J int, start, rows []int32, x []float32) {
	for g := range len(start) - 1 {
		zg := z[4*J*g : 4*J*(g+1)]
		clear(zg)
		for u := start[g]; u < start[g+1]; u++ {
			k := int(rows[u])
			for r := range 4 {
				a := x[4*int(u)+r]
				if a == 0 {
					continue
				}
				for t := 0; t < J; t += 16 {
					p := (*[16]float32)(wp[t*K+16*k:])
					zr := (*[16]float32)(zg[r*J+t:])
					for c, v := range p {
						// The conversion rounds the product: no fused multiply-add.
						zr[c] += float32(a * v)
					}
				}
			}
		}
	}
}

// BytesF32 sets dst[i] = float32(src[i])·s (one rounding, as in Go) for
// i < len(dst); src must be at least as long.
func BytesF32(dst []float32, src []uint8, s float32) {
	src = src[:len(dst)]
	n := 0
	if useAVX {
		n = len(dst) &^ 15
		bytesF32AVX(dst[:n], src[:n], s)
	}
	bytesF32Go(dst[n:], src[n:], s)
}

func bytesF32Go(dst []float32, src []uint8, s float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = float32(v) * s
	}
}
