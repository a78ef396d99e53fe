package kernels

//go:generate sh -c "cd asm && go run ./rows -out ../rows_amd64.s -stubs ../rows_stubs_amd64.go -pkg kernels"

import "fmt"

// GatherGemm4 sets z[r·J+j] = Σ_u x[4u+r]·w[rows[u]·J+j] for r < 4 and
// j < J = len(z)/4: four sparse rows over the shared, increasing row
// indices rows (x holds 0 where a sparse row has no entry) times the
// row-major matrix w with rows of length J. Each row of w is read once
// for all four rows of z. Each sum runs over u in order and, on every
// u where x is non-zero, rounds as ByteRow (Axpy) rounds: a zero term
// adds an exact zero, so z is what ByteRow gives for each sparse row
// alone, but for the sign of a sum that is exactly zero. len(z) must be
// a multiple of 4 and x at least 4·len(rows) long; a row outside w
// panics.
func GatherGemm4(z, w []float64, rows []int32, x []float64) {
	J := len(z) / 4
	if len(z) != 4*J {
		panic(fmt.Sprintf("kernels: GatherGemm4 output of length %d, not 4 rows", len(z)))
	}
	x = x[:4*len(rows)]
	if J == 0 {
		return
	}
	nr := len(w) / J
	for _, k := range rows {
		if k < 0 || int(k) >= nr {
			panic(fmt.Sprintf("kernels: row %d outside the %d rows", k, nr))
		}
	}
	if useAVX && J%4 == 0 {
		gatherGemm4AVX(z, w, J, rows, x)
		return
	}
	gatherGemm4Go(z, w, J, rows, x)
}

// gatherGemm4Go skips the zero terms: the sums of ByteRow's fallback.
func gatherGemm4Go(z, w []float64, J int, rows []int32, x []float64) {
	clear(z)
	for u, k := range rows {
		for r := range 4 {
			if a := x[4*u+r]; a != 0 {
				// Axpy, as byteRowGo: fused where the assembly is.
				Axpy(a, w[int(k)*J:int(k)*J+J], z[r*J:r*J+J])
			}
		}
	}
}

// SwishGemvT sets a[j] = z[j]·(1/(1+e[j])) for j < J = len(z) (the swish
// S(z) = z·σ(z) given e = e^{-z}, rounded as written) and then, for
// l < L = len(o), o[l] = s_even + s_odd with s_even (s_odd) the sum, over
// the even (odd) j in order, of the rounded products a[j]·wT[j·L+l]: the
// product of a and the J×L row-major wT, each output summed as a
// two-accumulator dot product (no fused multiply-adds, so both versions
// give the same bits). e and a must be at least J long and wT J·L; a must
// not overlap the other arguments.
func SwishGemvT(z, e, a, wT, o []float64) {
	J, L := len(z), len(o)
	e, a, wT = e[:J], a[:J], wT[:J*L]
	if useAVX && J%4 == 0 && L%4 == 0 {
		swishGemvTAVX(z, e, a, wT, o)
		return
	}
	swishGemvTGo(z, e, a, wT, o)
}

func swishGemvTGo(z, e, a, wT, o []float64) {
	J, L := len(z), len(o)
	for j, v := range z {
		a[j] = v * (1 / (1 + e[j]))
	}
	for l := range o {
		var s0, s1 float64
		j := 0
		for ; j+2 <= J; j += 2 {
			s0 += a[j] * wT[j*L+l]
			s1 += a[j+1] * wT[(j+1)*L+l]
		}
		if j < J {
			s0 += a[j] * wT[j*L+l]
		}
		o[l] = s0 + s1
	}
}

// PackPanels8 sets wp[t·8K + 8k + c] = w[k·J + 8t + c]: the K×J row-major
// w as J/8 panels of 8 columns, each K rows of 64 contiguous bytes, the
// layout GatherPanels4 reads. It panics unless J%8 == 0 and w and wp hold
// K·J values.
func PackPanels8(wp, w []float64, K, J int) {
	if J%8 != 0 || len(w) < K*J || len(wp) < K*J {
		panic(fmt.Sprintf("kernels: PackPanels8 of %d×%d from %d into %d values", K, J, len(w), len(wp)))
	}
	for k := range K {
		row := w[k*J : k*J+J]
		for t := 0; t < J; t += 8 {
			copy(wp[t*K+8*k:t*K+8*k+8], row[t:t+8])
		}
	}
}

// GatherPanels4 is GatherGemm4 for the G = len(start)-1 groups of four
// sparse rows g < G, each over the shared rows rows[start[g]:start[g+1]]
// with values x[4·start[g]:4·start[g+1]], into z[4Jg : 4J(g+1)]; w is
// given as its panels wp (PackPanels8, K rows). Each panel is read for
// all the groups before the next one: the panel (8K doubles, 50 KB for
// K = 784) stays in L1 and L2 where the rows of w would be read from L2
// and memory once per group. The sums are GatherGemm4's, bit for bit.
// It panics if a row is outside [0, K), start decreases or leaves rows,
// or a slice is short.
func GatherPanels4(z, wp []float64, K, J int, start, rows []int32, x []float64) {
	if len(start) < 2 {
		return
	}
	G := len(start) - 1
	if J%8 != 0 || len(wp) < K*J || len(z) < 4*J*G || len(x) < 4*len(rows) {
		panic(fmt.Sprintf("kernels: GatherPanels4 of %d groups, J = %d: short slices or J%%8 != 0", G, J))
	}
	checkGroups(start, rows, K)
	if J == 0 {
		return
	}
	if useAVX {
		gatherPanels4AVX(z, wp, K, J, start, rows, x)
		return
	}
	gatherPanels4Go(z, wp, K, J, start, rows, x)
}

// checkGroups panics unless groups [start[g], start[g+1]) are runs of
// rows and every row they take is one of w's K: the panel kernels read w
// at those rows unchecked.
func checkGroups(start, rows []int32, K int) {
	G := len(start) - 1
	for g := range G {
		if start[g] < 0 || start[g] > start[g+1] || int(start[g+1]) > len(rows) {
			panic(fmt.Sprintf("kernels: group %d spans rows [%d, %d) of %d", g, start[g], start[g+1], len(rows)))
		}
	}
	for _, k := range rows[start[0]:start[G]] {
		if k < 0 || int(k) >= K {
			panic(fmt.Sprintf("kernels: row %d outside the %d rows", k, K))
		}
	}
}

// gatherPanels4Go skips the zero terms, as gatherGemm4Go.
func gatherPanels4Go(z, wp []float64, K, J int, start, rows []int32, x []float64) {
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
				for t := 0; t < J; t += 8 {
					p := t*K + 8*k
					Axpy(a, wp[p:p+8], zg[r*J+t:r*J+t+8])
				}
			}
		}
	}
}
