// Command panels32 generates internal/kernels' float32 panel assembly
// (panels32_amd64.s) with avo:
//
//	cd internal/kernels/asm && go run ./panels32 -out ../panels32_amd64.s -stubs ../panels32_stubs_amd64.go -pkg kernels
//
// (run by `go generate ./internal/kernels`). Its pure-Go twin is in
// ../../panels32.go; the tests compare the two.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("!purego")
	gatherPanels4F32()
	bytesF32()
	Generate()
}

// gatherPanels4F32 is gatherPanels4 in float32: panels of 16 columns (64
// bytes a row, as the float64 panels of 8), 4 images × 16 columns in 8
// accumulators, per union pixel 2 loads, 4 broadcasts and 8 fused
// multiply-adds of 8 lanes. The caller has checked the rows, the starts
// and that J%16 == 0.
func gatherPanels4F32() {
	TEXT("gatherPanels4F32AVX", NOSPLIT, "func(z, wp []float32, K, J int, start, rows []int32, x []float32)")
	Pragma("noescape")
	z := Load(Param("z").Base(), GP64())
	wp := Load(Param("wp").Base(), GP64())
	K := Load(Param("K"), GP64())
	rowBytes := Load(Param("J"), GP64())
	SHLQ(Imm(2), rowBytes)
	start := Load(Param("start").Base(), GP64())
	ng := Load(Param("start").Len(), GP64())
	DECQ(ng)
	rows := Load(Param("rows").Base(), GP64())
	x := Load(Param("x").Base(), GP64())
	SHLQ(Imm(6), K) // a panel, in bytes
	c0 := GP64()    // the panel's first column, in bytes
	XORQ(c0, c0)
	Label("fpt")
	CMPQ(c0, rowBytes)
	JAE(LabelRef("fpret"))
	g := GP64()
	XORQ(g, g)
	zg := GP64() // group g's z, at column c0
	LEAQ(Mem{Base: z, Index: c0, Scale: 1}, zg)
	Label("fpg")
	CMPQ(g, ng)
	JAE(LabelRef("fpnext"))
	var acc [4][2]VecVirtual
	for r := range acc {
		for c := range acc[r] {
			acc[r][c] = YMM()
			VXORPS(acc[r][c], acc[r][c], acc[r][c])
		}
	}
	u, end, xp := GP64(), GP64(), GP64()
	MOVLQSX(Mem{Base: start, Index: g, Scale: 4}, u)
	MOVLQSX(Mem{Base: start, Index: g, Scale: 4, Disp: 4}, end)
	MOVQ(u, xp)
	SHLQ(Imm(4), xp)
	ADDQ(x, xp)
	Label("fpu")
	CMPQ(u, end)
	JAE(LabelRef("fpst"))
	rp := GP64()
	MOVLQSX(Mem{Base: rows, Index: u, Scale: 4}, rp)
	SHLQ(Imm(6), rp)
	ADDQ(wp, rp)
	var wv [2]VecVirtual
	for c := range wv {
		wv[c] = YMM()
		VMOVUPS(Mem{Base: rp, Disp: 32 * c}, wv[c])
	}
	for r := range acc {
		bc := YMM()
		VBROADCASTSS(Mem{Base: xp, Disp: 4 * r}, bc)
		for c := range wv {
			VFMADD231PS(wv[c], bc, acc[r][c])
		}
	}
	ADDQ(Imm(16), xp)
	INCQ(u)
	JMP(LabelRef("fpu"))
	Label("fpst")
	zp := GP64()
	MOVQ(zg, zp)
	for r := range acc {
		for c, a := range acc[r] {
			VMOVUPS(a, Mem{Base: zp, Disp: 32 * c})
		}
		ADDQ(rowBytes, zp)
	}
	MOVQ(zp, zg) // the next group's z follows four rows on
	INCQ(g)
	JMP(LabelRef("fpg"))
	Label("fpnext")
	ADDQ(K, wp)
	ADDQ(Imm(64), c0)
	JMP(LabelRef("fpt"))
	Label("fpret")
	VZEROUPPER()
	RET()
}

// bytesF32 sets dst[i] = float32(src[i])·s, 16 bytes a step; the caller
// has checked that len(dst) is a multiple of 16 and src is as long.
func bytesF32() {
	TEXT("bytesF32AVX", NOSPLIT, "func(dst []float32, src []uint8, s float32)")
	Pragma("noescape")
	dst := Load(Param("dst").Base(), GP64())
	n := Load(Param("dst").Len(), GP64())
	src := Load(Param("src").Base(), GP64())
	sv := YMM()
	VBROADCASTSS(NewParamAddr("s", 48), sv)
	i := GP64()
	XORQ(i, i)
	Label("bfloop")
	CMPQ(i, n)
	JAE(LabelRef("bfret"))
	for h := range 2 {
		v := YMM()
		VPMOVZXBD(Mem{Base: src, Index: i, Scale: 1, Disp: 8 * h}, v)
		VCVTDQ2PS(v, v)
		VMULPS(sv, v, v)
		VMOVUPS(v, Mem{Base: dst, Index: i, Scale: 4, Disp: 32 * h})
	}
	ADDQ(Imm(16), i)
	JMP(LabelRef("bfloop"))
	Label("bfret")
	VZEROUPPER()
	RET()
}
