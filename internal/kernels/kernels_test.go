package kernels

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

const eps = 0x1p-53 // unit roundoff

// sizes: empty, single, every tail length around the 4- and 16-wide
// blocks, and the lengths the callers use.
var sizes = []int{0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 19, 31, 32, 33, 63, 109, 128, 200, 1001}

// offsets start the slices 0-3 words into their buffers: unaligned.
var offsets = []int{0, 1, 2, 3}

const sentinel = -12345.678

// buf returns n random values in [-scale, scale) at offset off of a buffer
// followed by 8 sentinels.
func buf(rng *rand.Rand, n, off int, scale float64) []float64 {
	b := make([]float64, off+n+8)
	for i := range b {
		b[i] = sentinel
	}
	for i := off; i < off+n; i++ {
		b[i] = scale * (2*rng.Float64() - 1)
	}
	return b[off : off+n]
}

// checkSentinels fails if anything past the end of s was written.
func checkSentinels(t *testing.T, s []float64) {
	t.Helper()
	for _, v := range s[len(s) : len(s)+8] {
		if v != sentinel {
			t.Fatalf("wrote past the end of a %d-slice", len(s))
		}
	}
}

// exactDot is Σ x[i]·y[i] in exact arithmetic, rounded once.
func exactDot(x, y []float64) float64 {
	s := new(big.Float).SetPrec(4096)
	for i := range x {
		p := new(big.Float).SetPrec(4096).SetFloat64(x[i])
		p.Mul(p, new(big.Float).SetFloat64(y[i]))
		s.Add(s, p)
	}
	f, _ := s.Float64()
	return f
}

// TestDot: both versions within (n+8)·ε·Σ|xᵢyᵢ| of the exact sum (the
// classical bound for recursive/blocked summation, with room for the
// rounding of the result).
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range sizes {
		for _, off := range offsets {
			x, y := buf(rng, n, off, 1), buf(rng, n, (off+1)%4, 10)
			var abs float64
			for i := range x {
				abs += math.Abs(x[i] * y[i])
			}
			want, tol := exactDot(x, y), float64(n+8)*eps*abs
			for name, f := range map[string]func(x, y []float64) float64{"kernel": dotAVX, "go": dotGo, "Dot": Dot} {
				if got := f(x, y); math.Abs(got-want) > tol {
					t.Errorf("%s n=%d off=%d: %g, exact %g (tol %g)", name, n, off, got, want, tol)
				}
			}
		}
	}
}

// TestNonZeros: the kernel counts and checks as the Go loop does, with
// zeros of both signs, NaN and ±Inf placed anywhere, every tail length.
func TestNonZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	special := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e-300, -5}
	for _, n := range sizes {
		for _, off := range offsets {
			for trial := 0; trial < 20; trial++ {
				x := buf(rng, n, off, 1)
				for i := range x {
					if rng.IntN(3) == 0 {
						x[i] = special[rng.IntN(2)] // mostly zeros
					}
				}
				if n > 0 && trial%4 == 3 {
					x[rng.IntN(n)] = special[2+rng.IntN(len(special)-2)]
				}
				wantNZ, z := nonZerosGo(x)
				nz4, zk := nonZerosAVX(x[:n&^3])
				c, zt := nonZerosGo(x[n&^3:])
				if nz4+c != wantNZ || (zk+zt == 0) != (z == 0) {
					t.Fatalf("n=%d off=%d: kernel %d/%v, Go %d/%v", n, off, nz4+c, zk+zt == 0, wantNZ, z == 0)
				}
				if nz, fin := NonZeros(x); nz != wantNZ || fin != (z == 0) {
					t.Fatalf("n=%d off=%d: NonZeros %d/%v, Go %d/%v", n, off, nz, fin, wantNZ, z == 0)
				}
			}
		}
	}
}

// TestDotF32: with x widened to float64 first, DotF32 is Dot bit for bit
// (kernel against dotAVX, fallback against dotGo): the widening is exact
// and the order the same. Every tail length and offset.
func TestDotF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range sizes {
		for _, off := range offsets {
			xb := make([]float32, off+n+8)
			x := xb[off : off+n]
			wide := make([]float64, n)
			for i := range x {
				x[i] = float32(2*rng.Float64() - 1)
				wide[i] = float64(x[i])
			}
			y := buf(rng, n, (off+1)%4, 10)
			if got, want := dotF32AVX(x, y), dotAVX(wide, y); got != want {
				t.Errorf("kernel n=%d off=%d: %g, Dot of the widened x %g", n, off, got, want)
			}
			if got, want := dotF32Go(x, y), dotGo(wide, y); got != want {
				t.Errorf("go n=%d off=%d: %g, Dot of the widened x %g", n, off, got, want)
			}
			if got, want := DotF32(x, y), Dot(wide, y); got != want {
				t.Errorf("DotF32 n=%d off=%d: %g, Dot of the widened x %g", n, off, got, want)
			}
		}
	}
}

// TestGemv: each y[i] gains alpha times Dot of row i, bit for bit, with
// strides wider than the rows; a short a panics.
func TestGemv(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct{ m, n, stride int }{{0, 3, 3}, {1, 0, 0}, {1, 1, 1}, {3, 7, 9}, {17, 33, 33}, {40, 200, 203}} {
		a := buf(rng, (max(c.m, 1)-1)*c.stride+c.n, 0, 1)
		x, y := buf(rng, c.n, 1, 2), buf(rng, c.m, 2, 3)
		want := append([]float64(nil), y...)
		for i := range want {
			want[i] += -0.5 * Dot(a[i*c.stride:i*c.stride+c.n], x)
		}
		Gemv(-0.5, a, c.stride, x, y)
		checkSentinels(t, y)
		for i := range y {
			if y[i] != want[i] {
				t.Fatalf("%+v: y[%d] = %g, want %g", c, i, y[i], want[i])
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a short matrix did not panic")
		}
	}()
	Gemv(1, make([]float64, 5), 3, make([]float64, 3), make([]float64, 2))
}

// TestAxpy: the kernel is one fused multiply-add per element (bit-equal to
// math.FMA); the Go version is within 2 roundings of it.
func TestAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range sizes {
		for _, off := range offsets {
			x, y := buf(rng, n, off, 1), buf(rng, n, 3-off, 1)
			a := rng.NormFloat64()
			yg := append([]float64(nil), y...)
			yk := make([]float64, n+8)
			copy(yk, y)
			for i := n; i < n+8; i++ {
				yk[i] = sentinel
			}
			yk = yk[:n]
			axpyAVX(a, x, yk)
			axpyGo(a, x, yg)
			checkSentinels(t, yk)
			for i := range x {
				f := math.FMA(a, x[i], y[i])
				if useAVX && yk[i] != f {
					t.Fatalf("kernel n=%d i=%d: %g, fma %g", n, i, yk[i], f)
				}
				tol := 2 * eps * (math.Abs(a*x[i]) + math.Abs(y[i]))
				if math.Abs(yk[i]-f) > tol || math.Abs(yg[i]-f) > tol {
					t.Fatalf("n=%d i=%d: kernel %g go %g fma %g", n, i, yk[i], yg[i], f)
				}
			}
		}
	}
}

// sparse returns m increasing indices in [0, n) and values.
func sparse(rng *rand.Rand, m, n int) ([]float64, []int) {
	perm := rng.Perm(n)[:m]
	idx := make([]int, 0, m)
	for j := 0; j < n; j++ {
		for _, p := range perm {
			if p == j {
				idx = append(idx, j)
			}
		}
	}
	val := make([]float64, m)
	for k := range val {
		val[k] = rng.NormFloat64()
	}
	return val, idx
}

// TestSparse: DotSparse, AxpySparse and SyrSparse against dense
// computations on the scattered vector, to the same bounds as the dense
// kernels.
func TestSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 109
	for _, m := range []int{0, 1, 2, 3, 4, 5, 7, 15, 16, 17, 50, 109} {
		val, idx := sparse(rng, m, n)
		dense := make([]float64, n)
		for k, j := range idx {
			dense[j] = val[k]
		}
		w := buf(rng, n, 0, 1)
		var abs float64
		for i := range w {
			abs += math.Abs(w[i] * dense[i])
		}
		want, tol := exactDot(dense, w), float64(m+8)*eps*abs
		for name, got := range map[string]float64{"kernel": must(dotSparseAVX(val, idx, w)), "go": dotSparseGo(val, idx, w)} {
			if math.Abs(got-want) > tol {
				t.Errorf("dot %s m=%d: %g, exact %g", name, m, got, want)
			}
		}
		a := rng.NormFloat64()
		yk, yg := buf(rng, n, 1, 1), make([]float64, n)
		copy(yg, yk)
		y0 := append([]float64(nil), yg...)
		AxpySparse(a, val, idx, yk)
		axpySparseGo(a, val, idx, yg)
		checkSentinels(t, yk)
		for j := range yk {
			f := math.FMA(a, dense[j], y0[j])
			tol := 2 * eps * (math.Abs(a*dense[j]) + math.Abs(y0[j]))
			if math.Abs(yk[j]-f) > tol || math.Abs(yg[j]-f) > tol {
				t.Fatalf("axpy m=%d j=%d: kernel %g go %g fma %g", m, j, yk[j], yg[j], f)
			}
		}
		c := rng.Float64()
		hk, hg := make([]float64, n*n), make([]float64, n*n)
		SyrSparse(c, val, idx, hk, n)
		syrSparseGo(c, val, idx, hg, n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := 0.0
				if j >= i {
					want = c * dense[i] * dense[j]
				}
				tol := 2 * eps * math.Abs(want)
				if math.Abs(hk[i*n+j]-want) > tol || math.Abs(hg[i*n+j]-want) > tol {
					t.Fatalf("syr m=%d (%d,%d): kernel %g go %g want %g", m, i, j, hk[i*n+j], hg[i*n+j], want)
				}
			}
		}
	}
}

func must(s float64, ok bool) float64 {
	if !ok {
		panic("index out of range")
	}
	return s
}

// TestCSR: the block kernels equal their row-by-row definitions (CSRDot
// bit for bit, as it sums as DotSparse does; CSRAxpy bit for bit against
// AxpySparse), rows of 0-40 entries.
func TestCSR(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n = 109
	ptr := []int{0}
	var col []int
	var val []float64
	for k := 0; k < 300; k++ {
		v, c := sparse(rng, rng.IntN(41), n)
		val, col = append(val, v...), append(col, c...)
		ptr = append(ptr, len(col))
	}
	w := buf(rng, n, 1, 1)
	for _, rows := range []int{0, 1, 2, 7, 300} {
		z := buf(rng, rows, 2, 1)
		CSRDot(ptr, col, val, w, z)
		checkSentinels(t, z)
		d := buf(rng, rows, 0, 1)
		gk, gr := make([]float64, n), make([]float64, n)
		CSRAxpy(ptr, col, val, 0.3, d, gk)
		for k := 0; k < rows; k++ {
			a, b := ptr[k], ptr[k+1]
			if want := DotSparse(val[a:b], col[a:b], w); z[k] != want {
				t.Fatalf("rows=%d k=%d: %g, DotSparse %g", rows, k, z[k], want)
			}
			AxpySparse(0.3*d[k], val[a:b], col[a:b], gr)
		}
		for j := range gk {
			if gk[j] != gr[j] {
				t.Fatalf("rows=%d j=%d: %g, AxpySparse %g", rows, j, gk[j], gr[j])
			}
		}
	}
	for _, bad := range [][]int{{0, 3, 2}, {0, 2, len(val) + 1}, {-1, 0, 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ptr %v: no panic", bad)
				}
			}()
			CSRDot(bad, col, val, w, make([]float64, 2))
		}()
	}
}

// TestByteRow: ByteRow (ByteRowAdd) equal bit for bit to Axpys into a
// zeroed z (into z), in either version (the kernel's
// fused sums against the FMA Axpy kernel; the Go version against axpyGo),
// for J from 1 to 131 and rows offset by k0; a row outside w panics.
func TestByteRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	var scale [256]float64
	for i := range scale {
		scale[i] = float64(i) / 255
	}
	for _, J := range []int{1, 3, 4, 5, 8, 12, 31, 32, 36, 64, 100, 128, 131} {
		const rows, k0 = 40, 7
		w := buf(rng, rows*J, 1, 1)
		for _, nnz := range []int{0, 1, 2, 9, 40} {
			col, val := make([]uint16, nnz), make([]uint8, nnz)
			for p := range col {
				col[p], val[p] = uint16(k0+rng.IntN(rows)), uint8(rng.IntN(256))
			}
			z := buf(rng, J, 3, 5)
			za := make([]float64, J+8)
			copy(za, z)
			for i := J; i < J+8; i++ {
				za[i] = sentinel
			}
			za = za[:J]
			z0 := append([]float64(nil), z...)
			ByteRow(z, w, col, k0, val, &scale)
			ByteRowAdd(za, w, col, k0, val, &scale)
			checkSentinels(t, z)
			checkSentinels(t, za)
			want, wantAdd := make([]float64, J), append([]float64(nil), z0...)
			for p, c := range col {
				r := int(c) - k0
				Axpy(scale[val[p]], w[r*J:r*J+J], want)
				Axpy(scale[val[p]], w[r*J:r*J+J], wantAdd)
			}
			for j := range want {
				if z[j] != want[j] || za[j] != wantAdd[j] {
					t.Fatalf("J=%d nnz=%d j=%d: %g, %g, want %g, %g", J, nnz, j, z[j], za[j], want[j], wantAdd[j])
				}
			}
		}
		for _, bad := range []uint16{k0 - 1, k0 + rows} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("J=%d row %d: no panic", J, int(bad)-k0)
					}
				}()
				ByteRow(make([]float64, J), w, []uint16{k0, bad}, k0, []uint8{1, 2}, &scale)
			}()
		}
	}
}

// TestAbsMax: AbsMax and AbsMaxT bit-identical to the Go loops (max is exact, the products
// round in the same order), every tail length and offset.
func TestAbsMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, n := range sizes {
		for _, off := range offsets {
			x, d := buf(rng, n, off, 3), buf(rng, n, 0, 1)
			for i := range d {
				d[i] = math.Abs(d[i])
			}
			ck := buf(rng, n, 3-off, 1)
			for i := range ck {
				ck[i] = math.Abs(ck[i])
			}
			cg := append([]float64(nil), ck...)
			ckT := buf(rng, n, 3-off, 1)
			copy(ckT, ck)
			cgT := append([]float64(nil), ck...)
			mk, mg := absMaxAVX(x, d, 0.7, ck), absMaxGo(x, d, 0.7, cg)
			checkSentinels(t, ck)
			if mk != mg {
				t.Fatalf("n=%d: max %g vs %g", n, mk, mg)
			}
			for i := range ck {
				if ck[i] != cg[i] {
					t.Fatalf("n=%d i=%d: %g vs %g", n, i, ck[i], cg[i])
				}
			}
			// AbsMaxT: the same against its loop, and against the
			// products (0.7·|x|)·d written out.
			mkT, mgT := absMaxTAVX(x, d, 0.7, ckT), absMaxTGo(x, d, 0.7, cgT)
			checkSentinels(t, ckT)
			var want float64
			for i, v := range x {
				want = max(want, (0.7*math.Abs(v))*d[i])
			}
			if mkT != mgT || mkT != want {
				t.Fatalf("n=%d: AbsMaxT max %g vs %g, want %g", n, mkT, mgT, want)
			}
			for i := range ckT {
				if ckT[i] != cgT[i] {
					t.Fatalf("n=%d i=%d: AbsMaxT %g vs %g", n, i, ckT[i], cgT[i])
				}
			}
		}
	}
}

// TestSparseOutOfRange: a bad index panics in every version instead of
// touching memory.
func TestSparseOutOfRange(t *testing.T) {
	val, w := []float64{1, 2, 3}, make([]float64, 4)
	for _, idx := range [][]int{{0, 1, 4}, {-1, 0, 1}, {0, 9, 2}} {
		for name, f := range map[string]func(){
			"dot":  func() { DotSparse(val, idx, w) },
			"axpy": func() { AxpySparse(1, val, idx, w) },
			"syr":  func() { SyrSparse(1, val, idx, make([]float64, 16), 4) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s %v: no panic", name, idx)
					}
				}()
				f()
			}()
		}
	}
}

// ulps is the distance of a from b in units of b's last place.
func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
}

// expCases: edge cases, then random values over the whole range.
func expCases(rng *rand.Rand) []float64 {
	x := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.34657359, 0.34657359, 1e-300, -1e-300,
		709.78, 709.79, 710, 1e300, -708.39, -708.4, -720, -745.1, -745.2, -746, -1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64, 5e-324}
	for i := 0; i < 20000; i++ {
		x = append(x, -745+1455*rng.Float64())
	}
	for i := 0; i < 2000; i++ {
		x = append(x, rng.NormFloat64())
	}
	return x
}

// TestExp: within 2 ulp of math.Exp (3 above 709, where the reference is e·e^{x−1}) for normal results, within 2·2^-1074
// below 2^-1022 (one rounding of the subnormal scale), the special values
// exactly (0, +Inf, NaN).
func TestExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := expCases(rng)
	for _, off := range offsets {
		for _, n := range []int{len(x), len(x) - 1, len(x) - 2, len(x) - 3} {
			xs := append(make([]float64, off), x[:n]...)[off:]
			dst := buf(rng, n, off, 1)
			expAVX(xs, dst)
			checkSentinels(t, dst)
			for i, v := range xs {
				want, got := math.Exp(v), dst[i]
				if v > 709 && v < 709.782712893384 {
					// amd64's math.Exp overflows early there, and the
					// fallback is math.Exp.
					if !useAVX {
						continue
					}
					want = math.E * math.Exp(v-1)
				}
				switch {
				case math.IsNaN(want) || math.IsInf(want, 0) || want == 0:
					if !(math.IsNaN(want) && math.IsNaN(got)) && got != want && !(want == 0 && got < 0x1p-1073) {
						t.Fatalf("exp(%g) = %g, want %g", v, got, want)
					}
				case want < 0x1p-1022:
					if math.Abs(got-want) > 0x1p-1073 {
						t.Fatalf("exp(%g) = %g, want %g", v, got, want)
					}
				case ulps(got, want) > 2 && !(v > 709 && ulps(got, want) <= 3):
					t.Fatalf("exp(%g) = %g, want %g (%.1f ulp)", v, got, want, ulps(got, want))
				}
			}
		}
	}
}

// margins: logistic margins from tiny to 1e300, both signs.
func margins(rng *rand.Rand) []float64 {
	z := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 5e-324, 1e-20, -1e-20, 1e-8, 0.5, -0.5, 1, -1,
		0.3466, -0.3466, 0.8814, -0.8814, 20, -20, 36.7, -36.7, 37, -37, 700, -700, 708.5, -708.5, 745, -745,
		746, -746, 800, -800, 1e10, -1e10, 1e300, -1e300, math.MaxFloat64, -math.MaxFloat64}
	for i := 0; i < 20000; i++ {
		z = append(z, 40*rng.NormFloat64())
	}
	for i := 0; i < 2000; i++ {
		z = append(z, rng.NormFloat64()*1e-3)
	}
	return z
}

// TestLogLoss: per element, the loss and σ(z) − y within 4 ulp (plus 2^-1070
// absolute, for subnormal e^{-|z|}) of math.Exp/math.Log1p's values
// (logistic), never NaN or ±Inf for finite z; the sums within
// (n+8)·ε·Σ loss of each other.
func TestLogLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	z := margins(rng)
	for _, y := range []float64{0, 1} {
		for _, off := range offsets {
			n := len(z) - off
			zs := z[:n]
			rk, rg := buf(rng, n, off, 1), make([]float64, n)
			lk := logLossAVX(zs, y, rk)
			lg := logLossGo(zs, y, rg)
			checkSentinels(t, rk)
			var abs float64
			for i, v := range zs {
				wl, wr := logistic(v, y)
				abs += wl
				var one [1]float64
				gl := logLossAVX([]float64{v}, y, one[:])
				gr := one[0]
				if math.IsNaN(gl) || math.IsInf(gl, 0) || math.IsNaN(rk[i]) || math.IsInf(rk[i], 0) {
					t.Fatalf("z=%g y=%g: loss %g r %g", v, y, gl, rk[i])
				}
				if rk[i] != gr {
					t.Fatalf("z=%g: r depends on the position: %g vs %g", v, rk[i], gr)
				}
				if math.Abs(gl-wl) > 4*eps*math.Abs(wl)+0x1p-1070 {
					t.Fatalf("z=%g y=%g: loss %g, want %g (%.1f ulp)", v, y, gl, wl, ulps(gl, wl))
				}
				// r = σ − y: σ carries the relative error, so the bound is
				// relative to σ.
				if sig := wr + y; math.Abs(gr-wr) > 4*eps*max(sig, math.Abs(wr))+0x1p-1070 {
					t.Fatalf("z=%g y=%g: r %g, want %g (%.1f ulp)", v, y, gr, wr, ulps(gr, wr))
				}
				if rg[i] != wr {
					t.Fatalf("go z=%g: r %g, want %g", v, rg[i], wr)
				}
			}
			if math.IsInf(abs, 0) {
				continue // the ±MaxFloat64 margins make the sum overflow
			}
			if math.Abs(lk-lg) > float64(n+8)*eps*abs {
				t.Errorf("y=%g off=%d: sum %g vs %g", y, off, lk, lg)
			}
		}
	}
}

// TestLogLossSmall: lengths 0-9 (only masked tails, or none) against the
// Go version, to the per-element bounds of TestLogLoss.
func TestLogLossSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for n := 0; n < 10; n++ {
		z := buf(rng, n, n%4, 30)
		rk, rg := buf(rng, n, 0, 1), make([]float64, n)
		lk, lg := logLossAVX(z, 1, rk), logLossGo(z, 1, rg)
		checkSentinels(t, rk)
		var abs float64
		for i := range z {
			l, _ := logistic(z[i], 1)
			abs += l
			if math.Abs(rk[i]-rg[i]) > 4*eps+0x1p-1070 {
				t.Fatalf("n=%d i=%d: r %g vs %g", n, i, rk[i], rg[i])
			}
		}
		if math.Abs(lk-lg) > float64(n+8)*4*eps*abs {
			t.Fatalf("n=%d: %g vs %g", n, lk, lg)
		}
	}
}

// TestLogisticWeight: σ(1−σ) within 8 ulp (plus 2^-1070) of the Go value,
// which is within a few ulp of σ(z)·σ(−z); never NaN.
func TestLogisticWeight(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	z := margins(rng)
	for _, off := range offsets {
		n := len(z) - off
		ck, cg := buf(rng, n, off, 1), make([]float64, n)
		logWeightAVX(z[:n], ck)
		logWeightGo(z[:n], cg)
		checkSentinels(t, ck)
		for i, v := range z[:n] {
			e := math.Exp(-math.Abs(v))
			want := e / (1 + e) / (1 + e)
			if math.Abs(cg[i]-want) > 4*eps*want+0x1p-1070 || math.Abs(ck[i]-want) > 8*eps*want+0x1p-1070 || math.IsNaN(ck[i]) {
				t.Fatalf("z=%g: kernel %g go %g want %g", v, ck[i], cg[i], want)
			}
		}
	}
}
