package kernels

import "math"

// The pure-Go kernels: the fallback, and the reference the assembly is
// tested against.

func dotGo(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	s := (s0 + s2) + (s1 + s3)
	for ; i < len(x); i++ {
		s += x[i] * y[i]
	}
	return s
}

func dotF32Go(x []float32, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i]) * y[i]
		s1 += float64(x[i+1]) * y[i+1]
		s2 += float64(x[i+2]) * y[i+2]
		s3 += float64(x[i+3]) * y[i+3]
	}
	s := (s0 + s2) + (s1 + s3)
	for ; i < len(x); i++ {
		s += float64(x[i]) * y[i]
	}
	return s
}

// nonZerosGo is NonZeros' loop: the count of entries != 0 and Σ (x−x),
// 0 unless an entry is NaN or ±Inf.
func nonZerosGo(x []float64) (nz int, z float64) {
	for _, v := range x {
		if v != 0 {
			nz++
		}
		z += v - v
	}
	return nz, z
}

func axpyGo(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

func dotSparseGo(val []float64, idx []int, w []float64) float64 {
	idx = idx[:len(val)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(val); k += 4 {
		s0 += val[k] * w[idx[k]]
		s1 += val[k+1] * w[idx[k+1]]
		s2 += val[k+2] * w[idx[k+2]]
		s3 += val[k+3] * w[idx[k+3]]
	}
	for ; k < len(val); k++ {
		s0 += val[k] * w[idx[k]]
	}
	return (s0 + s1) + (s2 + s3)
}

func axpySparseGo(a float64, val []float64, idx []int, y []float64) {
	idx = idx[:len(val)]
	for k, j := range idx {
		y[j] += a * val[k]
	}
}

func syrSparseGo(c float64, val []float64, idx []int, h []float64, n int) {
	idx = idx[:len(val)]
	for _, j := range idx {
		if j < 0 || j >= n {
			panic(outOfRange(idx, n))
		}
	}
	for p, i := range idx {
		cv := c * val[p]
		row := h[i*n : i*n+n]
		for q := p; q < len(idx); q++ {
			row[idx[q]] += cv * val[q]
		}
	}
}

func expGo(x, dst []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = math.Exp(v)
	}
}

// logistic returns, for margin z and label y, the loss
// max(z,0) − y·z + log1p(e) and σ(z) − y, with e = e^{-|z|}.
func logistic(z, y float64) (loss, r float64) {
	e := math.Exp(-math.Abs(z))
	s := e / (1 + e)
	if z >= 0 {
		s = 1 / (1 + e)
	}
	return max(z, 0) - y*z + math.Log1p(e), s - y
}

func logLossGo(z []float64, y float64, r []float64) float64 {
	r = r[:len(z)]
	var acc [4]float64
	for i, v := range z {
		l, d := logistic(v, y)
		acc[i&3] += l
		r[i] = d
	}
	return (acc[0] + acc[2]) + (acc[1] + acc[3])
}

func logWeightGo(z, c []float64) {
	c = c[:len(z)]
	for i, v := range z {
		e := math.Exp(-math.Abs(v))
		u := 1 + e
		c[i] = e / (u * u)
	}
}

func csrDotGo(ptr, col []int, val, w, z []float64) {
	val, col = val[:len(val):len(val)], col[:len(col):len(col)] // rows past the end panic
	for k := range z {
		a, b := ptr[k], ptr[k+1]
		z[k] = dotSparseGo(val[a:b], col[a:b], w)
	}
}

func csrAxpyGo(ptr, col []int, val []float64, alpha float64, d, g []float64) {
	val, col = val[:len(val):len(val)], col[:len(col):len(col)]
	for k := range d {
		a, b := ptr[k], ptr[k+1]
		axpySparseGo(alpha*d[k], val[a:b], col[a:b], g)
	}
}

func gemvTGo(alpha float64, a []float64, stride int, c, y []float64) {
	const blk = 64
	var acc [blk]float64
	for i0 := 0; i0 < len(y); i0 += blk {
		s := acc[:min(blk, len(y)-i0)]
		clear(s)
		for k, ck := range c {
			row := a[k*stride+i0:]
			row = row[:len(s)]
			for i, v := range row {
				s[i] += ck * v
			}
		}
		for i, v := range s {
			y[i0+i] += alpha * v
		}
	}
}

func byteRowGo(z, w []float64, col []uint16, k0 int, val []uint8, scale *[256]float64, add bool) {
	J := len(z)
	if !add {
		clear(z)
	}
	w = w[:len(w):len(w)] // a row past the end panics
	for p, c := range col {
		r := int(c) - k0
		// Axpy, not axpyGo: for widths the assembly does not take, the
		// sums stay those of Axpy (fused where it is).
		Axpy(scale[val[p]], w[r*J:r*J+J], z)
	}
}

func absMaxGo(x, d []float64, s float64, cm []float64) float64 {
	d, cm = d[:len(x)], cm[:len(x)]
	var m float64
	for i, v := range x {
		v = d[i] * math.Abs(v) * s
		m = max(m, v)
		cm[i] = max(cm[i], v)
	}
	return m
}

func absMaxTGo(x, d []float64, s float64, cm []float64) float64 {
	d, cm = d[:len(x)], cm[:len(x)]
	var m float64
	for i, v := range x {
		v = s * math.Abs(v) * d[i]
		m = max(m, v)
		cm[i] = max(cm[i], v)
	}
	return m
}

func gemmT4Go(alpha float64, a []float64, stride int, c []float64, ldc, m int, y []float64, ldy, n int) {
	for r := 0; r < 4; r++ {
		gemvTGo(alpha, a, stride, c[r*ldc:r*ldc+m], y[r*ldy:r*ldy+n])
	}
}

func dotAxpyGo(alpha float64, a, x, y []float64) float64 {
	x, y = x[:len(a)], y[:len(a)]
	var s float64
	for i, v := range a {
		s += v * x[i]
		y[i] += alpha * v
	}
	return s
}
