// Command asm generates internal/kernels' AVX2/FMA assembly with avo:
//
//	cd internal/kernels/asm && go run . -out ../kernels_amd64.s -stubs ../stubs_amd64.go -pkg kernels
//
// (run by `go generate ./internal/kernels`). It is its own module so that
// avo is not a dependency of fedcon: a build uses the committed output.
//
// Every function here has a pure-Go twin in ../generic.go; the Go code is
// the specification, and the tests compare the two.
package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Constants, each replicated into 4 lanes so that it can be a 256-bit
// memory operand.
var (
	cAbs, cOne, cHalf, cTwo, cSqrt2                  Mem
	cLog2e, cLn2Hi, cLn2Lo, cMagic, cExpLo, cExpHi   Mem
	cBias                                            Mem
	cExp                                             []Mem // 1/k!, k = 13..0
	cL1, cL2, cL3, cL4, cL5, cL6, cL7, cZero, cTailM Mem
)

func vconst(name string, bits uint64) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < 4; i++ {
		DATA(8*i, U64(bits))
	}
	return m
}

func fconst(name string, v float64) Mem { return vconst(name, math.Float64bits(v)) }

func constants() {
	cAbs = vconst("absmask", 0x7fffffffffffffff)
	cOne = fconst("one", 1)
	cHalf = fconst("half", 0.5)
	cTwo = fconst("two", 2)
	cZero = fconst("zero", 0)
	cSqrt2 = fconst("sqrt2", math.Sqrt2)
	cLog2e = fconst("log2e", math.Log2E)
	// Ln2Hi has 21 trailing zero bits, so n·Ln2Hi is exact for |n| < 2^21.
	cLn2Hi = fconst("ln2hi", 6.93147180369123816490e-01)
	cLn2Lo = fconst("ln2lo", 1.90821492927058770002e-10)
	// x·log2e + 1.5·2^52 rounds to an integer n, held in the low mantissa bits.
	cMagic = fconst("magic", 0x1.8p52)
	cExpLo = fconst("explo", -746)
	cExpHi = fconst("exphi", 710)
	cBias = vconst("bias", 1023)
	// Taylor coefficients of e^r to degree 13: |r| <= ln2/2 leaves a
	// truncation error below 5e-18.
	f := 1.0
	coef := make([]float64, 14)
	for k := 0; k <= 13; k++ {
		if k > 0 {
			f *= float64(k)
		}
		coef[k] = 1 / f
	}
	for k := 13; k >= 0; k-- {
		cExp = append(cExp, fconst("expc"+string(rune('a'+k)), coef[k]))
	}
	// fdlibm's log kernel (as in Go's math.Log), error < 1 ulp.
	cL1 = fconst("l1", 6.666666666666735130e-01)
	cL2 = fconst("l2", 3.999999999940941908e-01)
	cL3 = fconst("l3", 2.857142874366239149e-01)
	cL4 = fconst("l4", 2.222219843214978396e-01)
	cL5 = fconst("l5", 1.818357216161805012e-01)
	cL6 = fconst("l6", 1.531383769920937332e-01)
	cL7 = fconst("l7", 1.479819860511658591e-01)
	// Tail masks: 4 all-ones then 4 zeros; the mask for r < 4 lanes is
	// the 4 words starting at word 4-r.
	cTailM = GLOBL("tailmask", RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		v := uint64(0)
		if i < 4 {
			v = math.MaxUint64
		}
		DATA(8*i, U64(v))
	}
}

func main() {
	ConstraintExpr("!purego")
	constants()
	dot("dotAVX", false)
	dot("dotF32AVX", true)
	nonZeros()
	axpy()
	dotSparse()
	axpySparse()
	syrSparse()
	csrDot()
	csrAxpy()
	gemvT()
	gemmT4()
	dotAxpy()
	byteRow()
	absMax("absMaxAVX", false)
	absMax("absMaxTAVX", true)
	elementwise("expAVX", "func(x, dst []float64)", false, func(x VecVirtual) (VecVirtual, VecVirtual) {
		return expv(x), nil
	})
	elementwise("logLossAVX", "func(z []float64, y float64, r []float64) float64", true, logLoss)
	elementwise("logWeightAVX", "func(z, c []float64)", false, func(z VecVirtual) (VecVirtual, VecVirtual) {
		e, u := expAbs(z)
		w := YMM()
		VMULPD(u, u, w)
		VDIVPD(w, e, w) // e/u² = σ(z)(1-σ(z))
		return w, nil
	})
	Generate()
}

// hsum returns (v0+v2)+(v1+v3) in the low lane of an XMM.
func hsum(v VecVirtual) VecVirtual {
	hi, s := XMM(), XMM()
	VEXTRACTF128(Imm(1), v, hi)
	VADDPD(hi, v.AsX(), s)
	VPERMILPD(Imm(1), s, hi)
	VADDSD(hi, s, s)
	return s
}

// dot: 16 accumulator lanes (4 YMM) over blocks of 16, then blocks of 4
// into the first, summed (a0+a1)+(a2+a3) and across lanes by hsum; the
// last len%4 products are added one by one. With f32 (dotF32AVX) x is
// float32, widened exactly (VCVTPS2PD) before each fused multiply-add: the
// products are exact, only the sums round, in the same order.
func dot(name string, f32 bool) {
	sig := "func(x, y []float64) float64"
	xs, xw := 8, 32 // x's bytes per element and per 4 lanes
	if f32 {
		sig, xs, xw = "func(x []float32, y []float64) float64", 4, 16
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	x := Load(Param("x").Base(), GP64())
	y := Load(Param("y").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	load := func(m Mem, v VecVirtual) {
		if f32 {
			VCVTPS2PD(m, v)
		} else {
			VMOVUPD(m, v)
		}
	}
	acc := []VecVirtual{YMM(), YMM(), YMM(), YMM()}
	for _, a := range acc {
		VXORPD(a, a, a)
	}
	i := GP64()
	XORQ(i, i)
	Label(name + "16")
	t := GP64()
	MOVQ(i, t)
	ADDQ(Imm(16), t)
	CMPQ(t, n)
	JA(LabelRef(name + "4"))
	for k, a := range acc {
		v := YMM()
		load(Mem{Base: x, Index: i, Scale: uint8(xs), Disp: xw * k}, v)
		VFMADD231PD(Mem{Base: y, Index: i, Scale: 8, Disp: 32 * k}, v, a)
	}
	MOVQ(t, i)
	JMP(LabelRef(name + "16"))
	Label(name + "4")
	MOVQ(i, t)
	ADDQ(Imm(4), t)
	CMPQ(t, n)
	JA(LabelRef(name + "sum"))
	v := YMM()
	load(Mem{Base: x, Index: i, Scale: uint8(xs)}, v)
	VFMADD231PD(Mem{Base: y, Index: i, Scale: 8}, v, acc[0])
	MOVQ(t, i)
	JMP(LabelRef(name + "4"))
	Label(name + "sum")
	VADDPD(acc[1], acc[0], acc[0])
	VADDPD(acc[3], acc[2], acc[2])
	VADDPD(acc[2], acc[0], acc[0])
	s := hsum(acc[0])
	Label(name + "1")
	CMPQ(i, n)
	JAE(LabelRef(name + "ret"))
	x1 := XMM()
	if f32 {
		VCVTSS2SD(Mem{Base: x, Index: i, Scale: 4}, x1, x1)
	} else {
		VMOVSD(Mem{Base: x, Index: i, Scale: 8}, x1)
	}
	VFMADD231SD(Mem{Base: y, Index: i, Scale: 8}, x1, s)
	INCQ(i)
	JMP(LabelRef(name + "1"))
	Label(name + "ret")
	VZEROUPPER()
	Store(s, ReturnIndex(0))
	RET()
}

// nonZeros: over len(x)&^3 entries, the count of entries != 0 (compare,
// movemask, popcount) and Σ (x−x), which is 0 unless some entry is NaN or
// ±Inf; the caller takes the tail.
func nonZeros() {
	TEXT("nonZerosAVX", NOSPLIT, "func(x []float64) (nz int, z float64)")
	Pragma("noescape")
	x := Load(Param("x").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	zero, acc := YMM(), YMM()
	VXORPD(zero, zero, zero)
	VXORPD(acc, acc, acc)
	nz, i, t, bits := GP64(), GP64(), GP64(), GP64()
	XORQ(nz, nz)
	XORQ(i, i)
	Label("nz4")
	MOVQ(i, t)
	ADDQ(Imm(4), t)
	CMPQ(t, n)
	JA(LabelRef("nzret"))
	v, m, d := YMM(), YMM(), YMM()
	VMOVUPD(Mem{Base: x, Index: i, Scale: 8}, v)
	VCMPPD(Imm(0x04), zero, v, m) // v != 0 (NEQ_UQ)
	VMOVMSKPD(m, bits.As32())
	POPCNTQ(bits, bits)
	ADDQ(bits, nz)
	VSUBPD(v, v, d)
	VADDPD(d, acc, acc)
	MOVQ(t, i)
	JMP(LabelRef("nz4"))
	Label("nzret")
	s := hsum(acc)
	VZEROUPPER()
	Store(nz, ReturnIndex(0))
	Store(s, ReturnIndex(1))
	RET()
}

// axpy: y[i] += a·x[i], fused.
func axpy() {
	TEXT("axpyAVX", NOSPLIT, "func(a float64, x, y []float64)")
	Pragma("noescape")
	as := Load(Param("a"), XMM())
	a := YMM()
	VBROADCASTSD(as, a)
	x := Load(Param("x").Base(), GP64())
	y := Load(Param("y").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	i, t := GP64(), GP64()
	XORQ(i, i)
	Label("axpy16")
	MOVQ(i, t)
	ADDQ(Imm(16), t)
	CMPQ(t, n)
	JA(LabelRef("axpy4"))
	vs := []VecVirtual{YMM(), YMM(), YMM(), YMM()}
	for k, v := range vs {
		VMOVUPD(Mem{Base: y, Index: i, Scale: 8, Disp: 32 * k}, v)
		VFMADD231PD(Mem{Base: x, Index: i, Scale: 8, Disp: 32 * k}, a, v)
	}
	for k, v := range vs {
		VMOVUPD(v, Mem{Base: y, Index: i, Scale: 8, Disp: 32 * k})
	}
	MOVQ(t, i)
	JMP(LabelRef("axpy16"))
	Label("axpy4")
	MOVQ(i, t)
	ADDQ(Imm(4), t)
	CMPQ(t, n)
	JA(LabelRef("axpy1"))
	v := YMM()
	VMOVUPD(Mem{Base: y, Index: i, Scale: 8}, v)
	VFMADD231PD(Mem{Base: x, Index: i, Scale: 8}, a, v)
	VMOVUPD(v, Mem{Base: y, Index: i, Scale: 8})
	MOVQ(t, i)
	JMP(LabelRef("axpy4"))
	Label("axpy1")
	CMPQ(i, n)
	JAE(LabelRef("axpyret"))
	ys := XMM()
	VMOVSD(Mem{Base: y, Index: i, Scale: 8}, ys)
	VFMADD231SD(Mem{Base: x, Index: i, Scale: 8}, as, ys)
	VMOVSD(ys, Mem{Base: y, Index: i, Scale: 8})
	INCQ(i)
	JMP(LabelRef("axpy1"))
	Label("axpyret")
	VZEROUPPER()
	RET()
}

// dotSparse: Σ val[k]·w[idx[k]] in 4 scalar accumulators (k mod 4 for the
// full blocks of 4, the tail into the first), summed (a0+a1)+(a2+a3). It
// returns ok = false, having read nothing out of range, if an index is
// outside [0, len(w)).
func dotSparse() {
	TEXT("dotSparseAVX", NOSPLIT, "func(val []float64, idx []int, w []float64) (float64, bool)")
	Pragma("noescape")
	val := Load(Param("val").Base(), GP64())
	idx := Load(Param("idx").Base(), GP64())
	w := Load(Param("w").Base(), GP64())
	nw := Load(Param("w").Len(), GP64())
	n := Load(Param("val").Len(), GP64())
	acc := []VecVirtual{XMM(), XMM(), XMM(), XMM()}
	for _, a := range acc {
		VXORPD(a, a, a)
	}
	i, t, j := GP64(), GP64(), GP64()
	XORQ(i, i)
	Label("ds4")
	MOVQ(i, t)
	ADDQ(Imm(4), t)
	CMPQ(t, n)
	JA(LabelRef("ds1"))
	for k, a := range acc {
		MOVQ(Mem{Base: idx, Index: i, Scale: 8, Disp: 8 * k}, j)
		CMPQ(j, nw)
		JAE(LabelRef("dsbad"))
		v := XMM()
		VMOVSD(Mem{Base: val, Index: i, Scale: 8, Disp: 8 * k}, v)
		VFMADD231SD(Mem{Base: w, Index: j, Scale: 8}, v, a)
	}
	MOVQ(t, i)
	JMP(LabelRef("ds4"))
	Label("ds1")
	CMPQ(i, n)
	JAE(LabelRef("dssum"))
	MOVQ(Mem{Base: idx, Index: i, Scale: 8}, j)
	CMPQ(j, nw)
	JAE(LabelRef("dsbad"))
	v := XMM()
	VMOVSD(Mem{Base: val, Index: i, Scale: 8}, v)
	VFMADD231SD(Mem{Base: w, Index: j, Scale: 8}, v, acc[0])
	INCQ(i)
	JMP(LabelRef("ds1"))
	Label("dssum")
	VADDSD(acc[1], acc[0], acc[0])
	VADDSD(acc[3], acc[2], acc[2])
	VADDSD(acc[2], acc[0], acc[0])
	Store(acc[0], ReturnIndex(0))
	ok := GP8()
	MOVB(U8(1), ok)
	Store(ok, ReturnIndex(1))
	RET()
	Label("dsbad")
	MOVB(U8(0), ok)
	Store(ok, ReturnIndex(1))
	RET()
}

// axpySparse: y[idx[k]] += a·val[k]; ok = false (y partly updated, never
// out of range) if an index is outside [0, len(y)).
func axpySparse() {
	TEXT("axpySparseAVX", NOSPLIT, "func(a float64, val []float64, idx []int, y []float64) bool")
	Pragma("noescape")
	a := Load(Param("a"), XMM())
	val := Load(Param("val").Base(), GP64())
	idx := Load(Param("idx").Base(), GP64())
	y := Load(Param("y").Base(), GP64())
	ny := Load(Param("y").Len(), GP64())
	n := Load(Param("val").Len(), GP64())
	i, j := GP64(), GP64()
	ok := GP8()
	XORQ(i, i)
	Label("as1")
	CMPQ(i, n)
	JAE(LabelRef("asok"))
	MOVQ(Mem{Base: idx, Index: i, Scale: 8}, j)
	CMPQ(j, ny)
	JAE(LabelRef("asbad"))
	v := XMM()
	VMOVSD(Mem{Base: y, Index: j, Scale: 8}, v)
	VFMADD231SD(Mem{Base: val, Index: i, Scale: 8}, a, v)
	VMOVSD(v, Mem{Base: y, Index: j, Scale: 8})
	INCQ(i)
	JMP(LabelRef("as1"))
	Label("asok")
	MOVB(U8(1), ok)
	Store(ok, ReturnIndex(0))
	RET()
	Label("asbad")
	MOVB(U8(0), ok)
	Store(ok, ReturnIndex(0))
	RET()
}

// syrSparse: h[idx[p]·n + idx[q]] += (c·val[p])·val[q] for q >= p (the
// upper triangle when idx increases). The caller guarantees len(h) >= n·n;
// ok = false, with h untouched, if an index is outside [0, n).
func syrSparse() {
	TEXT("syrSparseAVX", NOSPLIT, "func(c float64, val []float64, idx []int, h []float64, n int) bool")
	Pragma("noescape")
	c := Load(Param("c"), XMM())
	val := Load(Param("val").Base(), GP64())
	idx := Load(Param("idx").Base(), GP64())
	h := Load(Param("h").Base(), GP64())
	nn := Load(Param("n"), GP64())
	m := Load(Param("val").Len(), GP64())
	p, q, j := GP64(), GP64(), GP64()
	ok := GP8()
	XORQ(p, p)
	Label("sychk")
	CMPQ(p, m)
	JAE(LabelRef("syrun"))
	MOVQ(Mem{Base: idx, Index: p, Scale: 8}, j)
	CMPQ(j, nn)
	JAE(LabelRef("sybad"))
	INCQ(p)
	JMP(LabelRef("sychk"))
	Label("syrun")
	XORQ(p, p)
	Label("syp")
	CMPQ(p, m)
	JAE(LabelRef("syok"))
	cv := XMM()
	VMULSD(Mem{Base: val, Index: p, Scale: 8}, c, cv)
	row := GP64()
	MOVQ(Mem{Base: idx, Index: p, Scale: 8}, row)
	IMULQ(nn, row)
	SHLQ(Imm(3), row)
	ADDQ(h, row)
	MOVQ(p, q)
	t := GP64()
	Label("syq2")
	MOVQ(q, t)
	ADDQ(Imm(2), t)
	CMPQ(t, m)
	JA(LabelRef("syq"))
	j2 := GP64()
	MOVQ(Mem{Base: idx, Index: q, Scale: 8}, j)
	MOVQ(Mem{Base: idx, Index: q, Scale: 8, Disp: 8}, j2)
	v1, v2 := XMM(), XMM()
	VMOVSD(Mem{Base: row, Index: j, Scale: 8}, v1)
	VMOVSD(Mem{Base: row, Index: j2, Scale: 8}, v2)
	VFMADD231SD(Mem{Base: val, Index: q, Scale: 8}, cv, v1)
	VFMADD231SD(Mem{Base: val, Index: q, Scale: 8, Disp: 8}, cv, v2)
	VMOVSD(v1, Mem{Base: row, Index: j, Scale: 8})
	VMOVSD(v2, Mem{Base: row, Index: j2, Scale: 8})
	MOVQ(t, q)
	JMP(LabelRef("syq2"))
	Label("syq")
	CMPQ(q, m)
	JAE(LabelRef("sypnext"))
	MOVQ(Mem{Base: idx, Index: q, Scale: 8}, j)
	v := XMM()
	VMOVSD(Mem{Base: row, Index: j, Scale: 8}, v)
	VFMADD231SD(Mem{Base: val, Index: q, Scale: 8}, cv, v)
	VMOVSD(v, Mem{Base: row, Index: j, Scale: 8})
	INCQ(q)
	JMP(LabelRef("syq"))
	Label("sypnext")
	INCQ(p)
	JMP(LabelRef("syp"))
	Label("syok")
	MOVB(U8(1), ok)
	Store(ok, ReturnIndex(0))
	RET()
	Label("sybad")
	MOVB(U8(0), ok)
	Store(ok, ReturnIndex(0))
	RET()
}

// elementwise emits a loop over 4-lane blocks of the first slice parameter
// (the last len%4 elements through masked loads and stores), applying body
// to each block and storing its first result into the last slice
// parameter. With sum, body's second result is accumulated per lane and
// returned as hsum (masked-off lanes contribute nothing).
func elementwise(name, sig string, sum bool, body func(VecVirtual) (VecVirtual, VecVirtual)) {
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	in := Load(ParamIndex(0).Base(), GP64())
	n := Load(ParamIndex(0).Len(), GP64())
	outParam := ParamIndex(1)
	if sum {
		outParam = ParamIndex(2)
	}
	out := Load(outParam.Base(), GP64())
	acc := YMM()
	VXORPD(acc, acc, acc)
	i, t := GP64(), GP64()
	XORQ(i, i)
	Label(name + "4")
	MOVQ(i, t)
	ADDQ(Imm(4), t)
	CMPQ(t, n)
	JA(LabelRef(name + "tail"))
	x := YMM()
	VMOVUPD(Mem{Base: in, Index: i, Scale: 8}, x)
	r, s := body(x)
	VMOVUPD(r, Mem{Base: out, Index: i, Scale: 8})
	if sum {
		VADDPD(s, acc, acc)
	}
	MOVQ(t, i)
	JMP(LabelRef(name + "4"))
	Label(name + "tail")
	CMPQ(i, n)
	JAE(LabelRef(name + "done"))
	// mask = tailmask[4-(n-i) : 8-(n-i)]
	MOVQ(i, t)
	SUBQ(n, t)
	ADDQ(Imm(4), t)
	tb := GP64()
	LEAQ(cTailM, tb)
	mask := YMM()
	VMOVUPD(Mem{Base: tb, Index: t, Scale: 8}, mask)
	x = YMM()
	VMASKMOVPD(Mem{Base: in, Index: i, Scale: 8}, mask, x)
	r, s = body(x)
	VMASKMOVPD(r, mask, Mem{Base: out, Index: i, Scale: 8})
	if sum {
		VANDPD(mask, s, s)
		VADDPD(s, acc, acc)
	}
	Label(name + "done")
	if sum {
		h := hsum(acc)
		VZEROUPPER()
		Store(h, ReturnIndex(0))
	} else {
		VZEROUPPER()
	}
	RET()
}

// expv returns e^x: n = round(x·log2e), r = x - n·ln2 (in two parts),
// e^r by its Taylor polynomial, scaled by 2^⌊n/2⌋·2^(n-⌊n/2⌋) so that
// results in the subnormal range and near overflow come out right. x is
// clamped to [-746, 710] first (beyond, e^x is 0 or +Inf anyway); NaN
// stays NaN.
func expv(x VecVirtual) VecVirtual {
	lo, hi, xc := YMM(), YMM(), YMM()
	VMOVUPD(cExpLo, lo)
	VMOVUPD(cExpHi, hi)
	VMAXPD(x, lo, xc) // NaN → x (the second source in Intel order)
	VMINPD(xc, hi, xc)
	t := YMM()
	VMOVUPD(cMagic, t)
	VFMADD231PD(cLog2e, xc, t) // t = x·log2e + magic, rounded to an integer
	nf := YMM()
	VSUBPD(cMagic, t, nf)
	r := YMM()
	VMOVUPD(xc, r)
	VFNMADD231PD(cLn2Hi, nf, r) // r = x - n·ln2hi (exact)
	VFNMADD231PD(cLn2Lo, nf, r)
	p := YMM()
	VMOVUPD(cExp[0], p)
	for _, c := range cExp[1:] {
		VFMADD213PD(c, r, p) // p = p·r + c
	}
	// Integer n from t's low bits, split in two halves h and n-h.
	ni := YMM()
	VPSUBQ(cMagic, t, ni)
	h := YMM()
	VPSRAD(Imm(1), ni, h) // arithmetic >> 1 of the low dword; the high dword (sign) becomes 0 or -1 >> 1
	VPSUBQ(h, ni, ni)
	VPADDQ(cBias, h, h)
	VPADDQ(cBias, ni, ni)
	VPSLLQ(Imm(52), h, h)
	VPSLLQ(Imm(52), ni, ni)
	VMULPD(h, p, p)
	VMULPD(ni, p, p)
	return p
}

// expAbs returns e = e^{-|z|} and u = 1 + e.
func expAbs(z VecVirtual) (VecVirtual, VecVirtual) {
	a, neg := YMM(), YMM()
	VANDPD(cAbs, z, a)
	VXORPD(neg, neg, neg)
	VSUBPD(a, neg, neg) // 0 - |z|
	e := expv(neg)
	u := YMM()
	VADDPD(cOne, e, u)
	return e, u
}

// logLoss: per element, with e = e^{-|z|}, u = 1+e:
// loss = max(z,0) - y·z + log1p(e), r = σ(z) - y, σ(z) = (z >= 0 ? 1 : e)/u.
// log1p(e) = log(u) + (e - (u-1))/u, log(u) by fdlibm's kernel.
func logLoss(z VecVirtual) (VecVirtual, VecVirtual) {
	e, u := expAbs(z)
	inv := YMM()
	VMOVUPD(cOne, inv)
	VDIVPD(u, inv, inv) // 1/u
	// σ(z)
	ge := YMM()
	zero := YMM()
	VXORPD(zero, zero, zero)
	VCMPPD(Imm(0x0d), zero, z, ge) // z >= 0 (GE_OS)
	num := YMM()
	VBLENDVPD(ge, cOne, e, num) // ge ? 1 : e
	yv := YMM()
	VBROADCASTSD(Load(Param("y"), XMM()), yv)
	s := YMM()
	VMULPD(inv, num, s)
	VSUBPD(yv, s, s) // r = σ - y
	// log(u), u in [1, 2]: u > √2 → m = u/2, k = 1.
	big := YMM()
	VCMPPD(Imm(0x1e), cSqrt2, u, big) // u > √2 (GT_OQ)
	half := YMM()
	VMULPD(cHalf, u, half)
	m := YMM()
	VBLENDVPD(big, half, u, m)
	k := YMM()
	VANDPD(cOne, big, k)
	f := YMM()
	VSUBPD(cOne, m, f) // exact (Sterbenz)
	d := YMM()
	VADDPD(cTwo, f, d)
	sv := YMM()
	VDIVPD(d, f, sv) // s = f/(2+f)
	s2, s4 := YMM(), YMM()
	VMULPD(sv, sv, s2)
	VMULPD(s2, s2, s4)
	t1 := YMM()
	VMOVUPD(cL7, t1)
	VFMADD213PD(cL5, s4, t1)
	VFMADD213PD(cL3, s4, t1)
	VFMADD213PD(cL1, s4, t1)
	VMULPD(s2, t1, t1)
	t2 := YMM()
	VMOVUPD(cL6, t2)
	VFMADD213PD(cL4, s4, t2)
	VFMADD213PD(cL2, s4, t2)
	VFMADD213PD(t1, s4, t2) // R = t1 + s4·(...)
	hf := YMM()
	VMULPD(f, f, hf)
	VMULPD(cHalf, hf, hf) // hfsq = f²/2
	// log = k·Ln2Hi - ((hfsq - (s·(hfsq+R) + k·Ln2Lo)) - f)
	inner := YMM()
	VADDPD(t2, hf, inner)
	kl := YMM()
	VMULPD(cLn2Lo, k, kl)
	VFMADD213PD(kl, sv, inner) // s·(hfsq+R) + k·Ln2Lo
	VSUBPD(inner, hf, inner)   // hfsq - (...)
	VSUBPD(f, inner, inner)    // (...) - f
	lg := YMM()
	VMULPD(cLn2Hi, k, lg)
	VSUBPD(inner, lg, lg)
	// + (e - (u-1))/u
	c := YMM()
	VSUBPD(cOne, u, c)
	VSUBPD(c, e, c)
	VFMADD231PD(inv, c, lg)
	// loss = max(z, 0) - y·z + log1p(e)
	loss := YMM()
	VMAXPD(zero, z, loss)
	VFNMADD231PD(yv, z, loss)
	VADDPD(lg, loss, loss)
	return s, loss
}

// csrDot: z[k] = Σ_{p ∈ [ptr[k], ptr[k+1])} val[p]·w[col[p]] for every k,
// each row summed as dotSparse sums. ok = false if ptr is not
// nondecreasing within [0, len(val)], or a column is outside [0, len(w)).
// The caller guarantees len(ptr) > len(z) and len(col) >= len(val).
func csrDot() {
	TEXT("csrDotAVX", NOSPLIT, "func(ptr []int, col []int, val []float64, w []float64, z []float64) bool")
	Pragma("noescape")
	ptr := Load(Param("ptr").Base(), GP64())
	col := Load(Param("col").Base(), GP64())
	val := Load(Param("val").Base(), GP64())
	nval := Load(Param("val").Len(), GP64())
	w := Load(Param("w").Base(), GP64())
	nw := Load(Param("w").Len(), GP64())
	z := Load(Param("z").Base(), GP64())
	nz := Load(Param("z").Len(), GP64())
	ok := GP8()
	k, a, b, j := GP64(), GP64(), GP64(), GP64()
	XORQ(k, k)
	Label("cdrow")
	CMPQ(k, nz)
	JAE(LabelRef("cdok"))
	MOVQ(Mem{Base: ptr, Index: k, Scale: 8}, a)
	MOVQ(Mem{Base: ptr, Index: k, Scale: 8, Disp: 8}, b)
	CMPQ(b, nval)
	JA(LabelRef("cdbad"))
	CMPQ(a, b)
	JA(LabelRef("cdbad"))
	acc := []VecVirtual{XMM(), XMM(), XMM(), XMM()}
	for _, r := range acc {
		VXORPD(r, r, r)
	}
	t := GP64()
	Label("cd4")
	MOVQ(a, t)
	ADDQ(Imm(4), t)
	CMPQ(t, b)
	JA(LabelRef("cd1"))
	for q, r := range acc {
		MOVQ(Mem{Base: col, Index: a, Scale: 8, Disp: 8 * q}, j)
		CMPQ(j, nw)
		JAE(LabelRef("cdbad"))
		v := XMM()
		VMOVSD(Mem{Base: val, Index: a, Scale: 8, Disp: 8 * q}, v)
		VFMADD231SD(Mem{Base: w, Index: j, Scale: 8}, v, r)
	}
	MOVQ(t, a)
	JMP(LabelRef("cd4"))
	Label("cd1")
	CMPQ(a, b)
	JAE(LabelRef("cdsum"))
	MOVQ(Mem{Base: col, Index: a, Scale: 8}, j)
	CMPQ(j, nw)
	JAE(LabelRef("cdbad"))
	v := XMM()
	VMOVSD(Mem{Base: val, Index: a, Scale: 8}, v)
	VFMADD231SD(Mem{Base: w, Index: j, Scale: 8}, v, acc[0])
	INCQ(a)
	JMP(LabelRef("cd1"))
	Label("cdsum")
	VADDSD(acc[1], acc[0], acc[0])
	VADDSD(acc[3], acc[2], acc[2])
	VADDSD(acc[2], acc[0], acc[0])
	VMOVSD(acc[0], Mem{Base: z, Index: k, Scale: 8})
	INCQ(k)
	JMP(LabelRef("cdrow"))
	Label("cdok")
	MOVB(U8(1), ok)
	Store(ok, ReturnIndex(0))
	RET()
	Label("cdbad")
	MOVB(U8(0), ok)
	Store(ok, ReturnIndex(0))
	RET()
}

// csrAxpy: g[col[p]] += (alpha·d[k])·val[p] for p ∈ [ptr[k], ptr[k+1]), row
// by row; the same checks and guarantees as csrDot (len(d) rows).
func csrAxpy() {
	TEXT("csrAxpyAVX", NOSPLIT, "func(ptr []int, col []int, val []float64, alpha float64, d []float64, g []float64) bool")
	Pragma("noescape")
	ptr := Load(Param("ptr").Base(), GP64())
	col := Load(Param("col").Base(), GP64())
	val := Load(Param("val").Base(), GP64())
	nval := Load(Param("val").Len(), GP64())
	alpha := Load(Param("alpha"), XMM())
	d := Load(Param("d").Base(), GP64())
	nd := Load(Param("d").Len(), GP64())
	g := Load(Param("g").Base(), GP64())
	ng := Load(Param("g").Len(), GP64())
	ok := GP8()
	k, a, b, j := GP64(), GP64(), GP64(), GP64()
	XORQ(k, k)
	Label("carow")
	CMPQ(k, nd)
	JAE(LabelRef("caok"))
	MOVQ(Mem{Base: ptr, Index: k, Scale: 8}, a)
	MOVQ(Mem{Base: ptr, Index: k, Scale: 8, Disp: 8}, b)
	CMPQ(b, nval)
	JA(LabelRef("cabad"))
	CMPQ(a, b)
	JA(LabelRef("cabad"))
	c := XMM()
	VMULSD(Mem{Base: d, Index: k, Scale: 8}, alpha, c)
	Label("ca1")
	CMPQ(a, b)
	JAE(LabelRef("canext"))
	MOVQ(Mem{Base: col, Index: a, Scale: 8}, j)
	CMPQ(j, ng)
	JAE(LabelRef("cabad"))
	v := XMM()
	VMOVSD(Mem{Base: g, Index: j, Scale: 8}, v)
	VFMADD231SD(Mem{Base: val, Index: a, Scale: 8}, c, v)
	VMOVSD(v, Mem{Base: g, Index: j, Scale: 8})
	INCQ(a)
	JMP(LabelRef("ca1"))
	Label("canext")
	INCQ(k)
	JMP(LabelRef("carow"))
	Label("caok")
	MOVB(U8(1), ok)
	Store(ok, ReturnIndex(0))
	RET()
	Label("cabad")
	MOVB(U8(0), ok)
	Store(ok, ReturnIndex(0))
	RET()
}

// gemvT: y[i] += alpha·Σ_k c[k]·a[k·stride+i]. Blocks of 32 i keep 8 YMM
// sums over k in order; narrower blocks (16, 4, then single i) split k
// into 2, 4 and 4 interleaved partial sums, so that enough independent
// FMA chains are in flight (4-cycle latency, 2 per cycle), added
// pairwise at the end. The caller guarantees
// (len(c)-1)·stride + len(y) <= len(a).
func gemvT() {
	TEXT("gemvTAVX", NOSPLIT, "func(alpha float64, a []float64, stride int, c []float64, y []float64)")
	Pragma("noescape")
	alphaS := Load(Param("alpha"), XMM())
	alpha := YMM()
	VBROADCASTSD(alphaS, alpha)
	a := Load(Param("a").Base(), GP64())
	st := Load(Param("stride"), GP64())
	SHLQ(Imm(3), st)
	c := Load(Param("c").Base(), GP64())
	m := Load(Param("c").Len(), GP64())
	y := Load(Param("y").Base(), GP64())
	n := Load(Param("y").Len(), GP64())
	i, t, k, p, kt := GP64(), GP64(), GP64(), GP64(), GP64()
	XORQ(i, i)
	// width: columns per block; split: interleaved partial sums over k.
	type shape struct{ width, split int }
	shapes := []shape{{32, 1}, {16, 2}, {4, 4}}
	for si, sh := range shapes {
		regs := sh.width / 4
		lbl := fmt.Sprintf("gt%d", sh.width)
		next := "gts"
		if si+1 < len(shapes) {
			next = fmt.Sprintf("gt%d", shapes[si+1].width)
		}
		Label(lbl)
		MOVQ(i, t)
		ADDQ(Imm(uint64(sh.width)), t)
		CMPQ(t, n)
		JA(LabelRef(next))
		acc := make([][]VecVirtual, sh.split) // acc[s][q]
		for s := range acc {
			acc[s] = make([]VecVirtual, regs)
			for q := range acc[s] {
				acc[s][q] = YMM()
				VXORPD(acc[s][q], acc[s][q], acc[s][q])
			}
		}
		LEAQ(Mem{Base: a, Index: i, Scale: 8}, p)
		XORQ(k, k)
		// Whole groups of split k's.
		Label(lbl + "k")
		MOVQ(k, kt)
		ADDQ(Imm(uint64(sh.split)), kt)
		CMPQ(kt, m)
		JA(LabelRef(lbl + "r"))
		for s := 0; s < sh.split; s++ {
			bc := YMM()
			VBROADCASTSD(Mem{Base: c, Index: k, Scale: 8, Disp: 8 * s}, bc)
			for q := range acc[s] {
				VFMADD231PD(Mem{Base: p, Disp: 32 * q}, bc, acc[s][q])
			}
			ADDQ(st, p)
		}
		MOVQ(kt, k)
		JMP(LabelRef(lbl + "k"))
		// The remaining k's into the first partial sum.
		Label(lbl + "r")
		CMPQ(k, m)
		JAE(LabelRef(lbl + "y"))
		bc := YMM()
		VBROADCASTSD(Mem{Base: c, Index: k, Scale: 8}, bc)
		for q := range acc[0] {
			VFMADD231PD(Mem{Base: p, Disp: 32 * q}, bc, acc[0][q])
		}
		ADDQ(st, p)
		INCQ(k)
		JMP(LabelRef(lbl + "r"))
		Label(lbl + "y")
		for q := 0; q < regs; q++ {
			sum := acc[0][q]
			switch sh.split {
			case 2:
				VADDPD(acc[1][q], sum, sum)
			case 4:
				VADDPD(acc[1][q], sum, sum)
				VADDPD(acc[3][q], acc[2][q], acc[2][q])
				VADDPD(acc[2][q], sum, sum)
			}
			yv := YMM()
			VMOVUPD(Mem{Base: y, Index: i, Scale: 8, Disp: 32 * q}, yv)
			VFMADD231PD(sum, alpha, yv)
			VMOVUPD(yv, Mem{Base: y, Index: i, Scale: 8, Disp: 32 * q})
		}
		MOVQ(t, i)
		JMP(LabelRef(lbl))
	}
	// Single columns: 4 scalar partial sums over k.
	Label("gts")
	CMPQ(i, n)
	JAE(LabelRef("gtret"))
	sacc := []VecVirtual{XMM(), XMM(), XMM(), XMM()}
	for _, r := range sacc {
		VXORPD(r, r, r)
	}
	LEAQ(Mem{Base: a, Index: i, Scale: 8}, p)
	XORQ(k, k)
	Label("gtsk")
	MOVQ(k, kt)
	ADDQ(Imm(4), kt)
	CMPQ(kt, m)
	JA(LabelRef("gtsr"))
	for s, r := range sacc {
		cv := XMM()
		VMOVSD(Mem{Base: c, Index: k, Scale: 8, Disp: 8 * s}, cv)
		VFMADD231SD(Mem{Base: p}, cv, r)
		ADDQ(st, p)
	}
	MOVQ(kt, k)
	JMP(LabelRef("gtsk"))
	Label("gtsr")
	CMPQ(k, m)
	JAE(LabelRef("gtsy"))
	cv := XMM()
	VMOVSD(Mem{Base: c, Index: k, Scale: 8}, cv)
	VFMADD231SD(Mem{Base: p}, cv, sacc[0])
	ADDQ(st, p)
	INCQ(k)
	JMP(LabelRef("gtsr"))
	Label("gtsy")
	VADDSD(sacc[1], sacc[0], sacc[0])
	VADDSD(sacc[3], sacc[2], sacc[2])
	VADDSD(sacc[2], sacc[0], sacc[0])
	yv := XMM()
	VMOVSD(Mem{Base: y, Index: i, Scale: 8}, yv)
	VFMADD231SD(sacc[0], alphaS, yv)
	VMOVSD(yv, Mem{Base: y, Index: i, Scale: 8})
	INCQ(i)
	JMP(LabelRef("gts"))
	Label("gtret")
	VZEROUPPER()
	RET()
}

// byteRow: z = Σ_p scale[val[p]]·w[(col[p]-k0)·J : +J] (z += ... with
// add), J = len(z) a
// multiple of 4: blocks of 32 columns in 8 YMM accumulators over all p,
// then blocks of 4; each z[j] is a sequential fused sum over p. ok = false
// if a row col[p]-k0 is outside [0, rows); the caller guarantees
// len(w) >= rows·J and len(val) >= len(col).
func byteRow() {
	TEXT("byteRowAVX", NOSPLIT, "func(z []float64, w []float64, rows int, col []uint16, k0 int, val []uint8, scale *[256]float64, add bool) bool")
	Pragma("noescape")
	z := Load(Param("z").Base(), GP64())
	nJ := Load(Param("z").Len(), GP64())
	w := Load(Param("w").Base(), GP64())
	rows := Load(Param("rows"), GP64())
	col := Load(Param("col").Base(), GP64())
	nnz := Load(Param("col").Len(), GP64())
	k0 := Load(Param("k0"), GP64())
	val := Load(Param("val").Base(), GP64())
	tab := Load(Param("scale"), GP64())
	rowBytes := GP64()
	MOVQ(nJ, rowBytes)
	SHLQ(Imm(3), rowBytes)
	ok := GP8()
	c0, t, p, k, b, rp := GP64(), GP64(), GP64(), GP64(), GP64(), GP64()
	XORQ(c0, c0)
	for _, wd := range []int{32, 4} {
		nacc := wd / 4
		lbl := "br" + string(rune('0'+nacc))
		Label(lbl)
		MOVQ(c0, t)
		ADDQ(Imm(uint64(wd)), t)
		CMPQ(t, nJ)
		if wd == 32 {
			JA(LabelRef("br1"))
		} else {
			JA(LabelRef("brok"))
		}
		acc := make([]VecVirtual, nacc)
		for q := range acc {
			acc[q] = YMM()
		}
		add := Load(Param("add"), GP8())
		TESTB(add, add)
		JNZ(LabelRef(lbl + "ld"))
		for q := range acc {
			VXORPD(acc[q], acc[q], acc[q])
		}
		JMP(LabelRef(lbl + "go"))
		Label(lbl + "ld")
		for q := range acc {
			VMOVUPD(Mem{Base: z, Index: c0, Scale: 8, Disp: 32 * q}, acc[q])
		}
		Label(lbl + "go")
		XORQ(p, p)
		Label(lbl + "p")
		CMPQ(p, nnz)
		JAE(LabelRef(lbl + "st"))
		MOVWQZX(Mem{Base: col, Index: p, Scale: 2}, k)
		SUBQ(k0, k)
		CMPQ(k, rows)
		JAE(LabelRef("brbad"))
		IMULQ(rowBytes, k)
		LEAQ(Mem{Base: w, Index: c0, Scale: 8}, rp)
		ADDQ(k, rp)
		MOVBQZX(Mem{Base: val, Index: p, Scale: 1}, b)
		bc := YMM()
		VBROADCASTSD(Mem{Base: tab, Index: b, Scale: 8}, bc)
		for q := range acc {
			VFMADD231PD(Mem{Base: rp, Disp: 32 * q}, bc, acc[q])
		}
		INCQ(p)
		JMP(LabelRef(lbl + "p"))
		Label(lbl + "st")
		for q := range acc {
			VMOVUPD(acc[q], Mem{Base: z, Index: c0, Scale: 8, Disp: 32 * q})
		}
		MOVQ(t, c0)
		JMP(LabelRef(lbl))
	}
	Label("brok")
	VZEROUPPER()
	MOVB(U8(1), ok)
	Store(ok, ReturnIndex(0))
	RET()
	Label("brbad")
	VZEROUPPER()
	MOVB(U8(0), ok)
	Store(ok, ReturnIndex(0))
	RET()
}

// absMax: v[i] = (d[i]·|x[i]|)·s (the Go expression's rounding order),
// cm[i] = max(cm[i], v[i]); returns max(0, max_i v[i]). For finite
// inputs, as max is exact this equals the Go loop bit for bit.
// absMax: v = (d·|x|)·s, or (s·|x|)·d with sFirst (AbsMaxT); cm = max(cm, v)
// and the maximum of v returned.
func absMax(name string, sFirst bool) {
	TEXT(name, NOSPLIT, "func(x, d []float64, s float64, cm []float64) float64")
	Pragma("noescape")
	x := Load(Param("x").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	d := Load(Param("d").Base(), GP64())
	cm := Load(Param("cm").Base(), GP64())
	ss := Load(Param("s"), XMM())
	sv := YMM()
	VBROADCASTSD(ss, sv)
	abs := YMM()
	VMOVUPD(cAbs, abs)
	m := YMM()
	VXORPD(m, m, m)
	i, t := GP64(), GP64()
	XORQ(i, i)
	Label(name + "4")
	MOVQ(i, t)
	ADDQ(Imm(4), t)
	CMPQ(t, n)
	JA(LabelRef(name + "1"))
	v := YMM()
	VANDPD(Mem{Base: x, Index: i, Scale: 8}, abs, v)
	if sFirst {
		VMULPD(sv, v, v)
		VMULPD(Mem{Base: d, Index: i, Scale: 8}, v, v)
	} else {
		VMULPD(Mem{Base: d, Index: i, Scale: 8}, v, v)
		VMULPD(sv, v, v)
	}
	VMAXPD(v, m, m)
	c := YMM()
	VMAXPD(Mem{Base: cm, Index: i, Scale: 8}, v, c)
	VMOVUPD(c, Mem{Base: cm, Index: i, Scale: 8})
	MOVQ(t, i)
	JMP(LabelRef(name + "4"))
	Label(name + "1")
	hi, ms := XMM(), XMM()
	VEXTRACTF128(Imm(1), m, hi)
	VMAXPD(hi, m.AsX(), ms)
	VPERMILPD(Imm(1), ms, hi)
	VMAXSD(hi, ms, ms)
	Label(name + "1l")
	CMPQ(i, n)
	JAE(LabelRef(name + "ret"))
	vs, cs := XMM(), XMM()
	VMOVSD(Mem{Base: x, Index: i, Scale: 8}, vs)
	VANDPD(abs.AsX(), vs, vs)
	if sFirst {
		VMULSD(ss, vs, vs)
		VMULSD(Mem{Base: d, Index: i, Scale: 8}, vs, vs)
	} else {
		VMULSD(Mem{Base: d, Index: i, Scale: 8}, vs, vs)
		VMULSD(ss, vs, vs)
	}
	VMAXSD(vs, ms, ms)
	VMOVSD(Mem{Base: cm, Index: i, Scale: 8}, cs)
	VMAXSD(cs, vs, cs)
	VMOVSD(cs, Mem{Base: cm, Index: i, Scale: 8})
	INCQ(i)
	JMP(LabelRef(name + "1l"))
	Label(name + "ret")
	VZEROUPPER()
	Store(ms, ReturnIndex(0))
	RET()
}

// gemmT4: four GemvTs sharing their reads of A. Blocks of 8 columns (two
// YMM per row, 8 accumulators), then 4, then single columns; every sum runs
// over k in order, one fused multiply-add per term, and y gets alpha·sum.
func gemmT4() {
	TEXT("gemmT4AVX", NOSPLIT, "func(alpha float64, a []float64, stride int, c []float64, ldc int, m int, y []float64, ldy int, n int)")
	Pragma("noescape")
	alphaS := Load(Param("alpha"), XMM())
	alpha := YMM()
	VBROADCASTSD(alphaS, alpha)
	acol := Load(Param("a").Base(), GP64())
	st := Load(Param("stride"), GP64())
	SHLQ(Imm(3), st)
	c0 := Load(Param("c").Base(), GP64())
	ldc := Load(Param("ldc"), GP64())
	SHLQ(Imm(3), ldc)
	ldc3 := GP64()
	LEAQ(Mem{Base: ldc, Index: ldc, Scale: 2}, ldc3)
	m := Load(Param("m"), GP64())
	yp := Load(Param("y").Base(), GP64())
	ldy := Load(Param("ldy"), GP64())
	SHLQ(Imm(3), ldy)
	ldy3 := GP64()
	LEAQ(Mem{Base: ldy, Index: ldy, Scale: 2}, ldy3)
	rem := Load(Param("n"), GP64())
	p, cp, kc := GP64(), GP64(), GP64()
	rowAt := func(base, ld, ld3 Register, r int) Mem {
		switch r {
		case 0:
			return Mem{Base: base}
		case 1:
			return Mem{Base: base, Index: ld, Scale: 1}
		case 2:
			return Mem{Base: base, Index: ld, Scale: 2}
		}
		return Mem{Base: base, Index: ld3, Scale: 1}
	}
	row := func(base Register, r int) Mem {
		if base == yp {
			return rowAt(base, ldy, ldy3, r)
		}
		return rowAt(base, ldc, ldc3, r)
	}
	for si, width := range []int{8, 4} {
		regs := width / 4
		lbl := fmt.Sprintf("g4w%d", width)
		next := "g4s"
		if si == 0 {
			next = "g4w4"
		}
		Label(lbl)
		CMPQ(rem, Imm(uint64(width)))
		JB(LabelRef(next))
		acc := make([][]VecVirtual, 4)
		for r := range acc {
			acc[r] = make([]VecVirtual, regs)
			for q := range acc[r] {
				acc[r][q] = YMM()
				VXORPD(acc[r][q], acc[r][q], acc[r][q])
			}
		}
		MOVQ(acol, p)
		MOVQ(c0, cp)
		MOVQ(m, kc)
		Label(lbl + "k")
		TESTQ(kc, kc)
		JZ(LabelRef(lbl + "y"))
		av := make([]VecVirtual, regs)
		for q := range av {
			av[q] = YMM()
			VMOVUPD(Mem{Base: p, Disp: 32 * q}, av[q])
		}
		for r := 0; r < 4; r++ {
			bc := YMM()
			VBROADCASTSD(row(cp, r), bc)
			for q := range av {
				VFMADD231PD(av[q], bc, acc[r][q])
			}
		}
		ADDQ(st, p)
		ADDQ(Imm(8), cp)
		DECQ(kc)
		JMP(LabelRef(lbl + "k"))
		Label(lbl + "y")
		for r := 0; r < 4; r++ {
			for q := 0; q < regs; q++ {
				yv := YMM()
				m := row(yp, r)
				m.Disp = 32 * q
				VMOVUPD(m, yv)
				VFMADD231PD(acc[r][q], alpha, yv)
				VMOVUPD(yv, m)
			}
		}
		ADDQ(Imm(uint64(8*width)), acol)
		ADDQ(Imm(uint64(8*width)), yp)
		SUBQ(Imm(uint64(width)), rem)
		JMP(LabelRef(lbl))
	}
	Label("g4s")
	TESTQ(rem, rem)
	JZ(LabelRef("g4ret"))
	sacc := []VecVirtual{XMM(), XMM(), XMM(), XMM()}
	for _, r := range sacc {
		VXORPD(r, r, r)
	}
	MOVQ(acol, p)
	MOVQ(c0, cp)
	MOVQ(m, kc)
	Label("g4sk")
	TESTQ(kc, kc)
	JZ(LabelRef("g4sy"))
	av := XMM()
	VMOVSD(Mem{Base: p}, av)
	for r, s := range sacc {
		VFMADD231SD(row(cp, r), av, s)
	}
	ADDQ(st, p)
	ADDQ(Imm(8), cp)
	DECQ(kc)
	JMP(LabelRef("g4sk"))
	Label("g4sy")
	for r, s := range sacc {
		yv := XMM()
		VMOVSD(row(yp, r), yv)
		VFMADD231SD(s, alphaS, yv)
		VMOVSD(yv, row(yp, r))
	}
	ADDQ(Imm(8), acol)
	ADDQ(Imm(8), yp)
	DECQ(rem)
	JMP(LabelRef("g4s"))
	Label("g4ret")
	VZEROUPPER()
	RET()
}

// dotAxpy: one sweep over a for Σ a[i]·x[i] and y[i] += alpha·a[i]. The
// sum has 8 lanes (2 YMM) over blocks of 8, then blocks of 4 into the
// first, added lane-wise, across lanes by hsum, then the last len%4
// products one by one.
func dotAxpy() {
	TEXT("dotAxpyAVX", NOSPLIT, "func(alpha float64, a, x, y []float64) float64")
	Pragma("noescape")
	alphaS := Load(Param("alpha"), XMM())
	alpha := YMM()
	VBROADCASTSD(alphaS, alpha)
	a := Load(Param("a").Base(), GP64())
	x := Load(Param("x").Base(), GP64())
	y := Load(Param("y").Base(), GP64())
	n := Load(Param("a").Len(), GP64())
	i, t := GP64(), GP64()
	XORQ(i, i)
	acc := []VecVirtual{YMM(), YMM()}
	for _, r := range acc {
		VXORPD(r, r, r)
	}
	for _, width := range []int{8, 4} {
		regs := width / 4
		lbl := fmt.Sprintf("da%d", width)
		next := "das"
		if width == 8 {
			next = "da4"
		}
		Label(lbl)
		MOVQ(i, t)
		ADDQ(Imm(uint64(width)), t)
		CMPQ(t, n)
		JA(LabelRef(next))
		for q := 0; q < regs; q++ {
			av, yv := YMM(), YMM()
			VMOVUPD(Mem{Base: a, Index: i, Scale: 8, Disp: 32 * q}, av)
			VFMADD231PD(Mem{Base: x, Index: i, Scale: 8, Disp: 32 * q}, av, acc[q])
			VMOVUPD(Mem{Base: y, Index: i, Scale: 8, Disp: 32 * q}, yv)
			VFMADD231PD(av, alpha, yv)
			VMOVUPD(yv, Mem{Base: y, Index: i, Scale: 8, Disp: 32 * q})
		}
		MOVQ(t, i)
		JMP(LabelRef(lbl))
	}
	Label("das")
	VADDPD(acc[1], acc[0], acc[0])
	s := hsum(acc[0])
	Label("dasl")
	CMPQ(i, n)
	JAE(LabelRef("daret"))
	av, yv := XMM(), XMM()
	VMOVSD(Mem{Base: a, Index: i, Scale: 8}, av)
	VFMADD231SD(Mem{Base: x, Index: i, Scale: 8}, av, s)
	VMOVSD(Mem{Base: y, Index: i, Scale: 8}, yv)
	VFMADD231SD(av, alphaS, yv)
	VMOVSD(yv, Mem{Base: y, Index: i, Scale: 8})
	INCQ(i)
	JMP(LabelRef("dasl"))
	Label("daret")
	VZEROUPPER()
	Store(s, ReturnIndex(0))
	RET()
}
