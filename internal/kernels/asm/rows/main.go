// Command rows generates internal/kernels' row-block assembly (rows_amd64.s)
// with avo:
//
//	cd internal/kernels/asm && go run ./rows -out ../rows_amd64.s -stubs ../rows_stubs_amd64.go -pkg kernels
//
// (run by `go generate ./internal/kernels`). Its pure-Go twins are in
// ../../rows.go; the tests compare the two.
package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var cOne Mem

func constants() {
	cOne = GLOBL("rowsone", RODATA|NOPTR)
	for i := 0; i < 4; i++ {
		DATA(8*i, U64(math.Float64bits(1)))
	}
}

func main() {
	ConstraintExpr("!purego")
	constants()
	gatherGemm4()
	gatherPanels4()
	swishGemvT()
	Generate()
}

// gatherGemm4: for each tile of 8 (then 4) columns, 4 rows × 2 (1)
// accumulator vectors stay in registers while the loop runs over the
// shared rows in order; each row's tile of w is loaded once for the four
// rows of z. The caller has checked the row indices and that J%4 == 0.
func gatherGemm4() {
	TEXT("gatherGemm4AVX", NOSPLIT, "func(z, w []float64, J int, rows []int32, x []float64)")
	Pragma("noescape")
	z := Load(Param("z").Base(), GP64())
	w := Load(Param("w").Base(), GP64())
	rowBytes := Load(Param("J"), GP64())
	SHLQ(Imm(3), rowBytes)
	rows := Load(Param("rows").Base(), GP64())
	n := Load(Param("rows").Len(), GP64())
	x := Load(Param("x").Base(), GP64())
	c0 := GP64() // the tile's first column, in bytes
	XORQ(c0, c0)
	for _, nc := range []int{2, 1} {
		lbl := fmt.Sprintf("gg%d", nc)
		next := "gg1"
		if nc == 1 {
			next = "ggret"
		}
		Label(lbl)
		t := GP64()
		MOVQ(c0, t)
		ADDQ(Imm(uint64(32*nc)), t)
		CMPQ(t, rowBytes)
		JA(LabelRef(next))
		var acc [4][]VecVirtual
		for r := range acc {
			for c := 0; c < nc; c++ {
				a := YMM()
				VXORPD(a, a, a)
				acc[r] = append(acc[r], a)
			}
		}
		wc, xp, u := GP64(), GP64(), GP64()
		LEAQ(Mem{Base: w, Index: c0, Scale: 1}, wc)
		MOVQ(x, xp)
		XORQ(u, u)
		Label(lbl + "u")
		CMPQ(u, n)
		JAE(LabelRef(lbl + "st"))
		rp := GP64()
		MOVLQSX(Mem{Base: rows, Index: u, Scale: 4}, rp)
		IMULQ(rowBytes, rp)
		ADDQ(wc, rp)
		wv := make([]VecVirtual, nc)
		for c := range wv {
			wv[c] = YMM()
			VMOVUPD(Mem{Base: rp, Disp: 32 * c}, wv[c])
		}
		for r := range acc {
			bc := YMM()
			VBROADCASTSD(Mem{Base: xp, Disp: 8 * r}, bc)
			for c := range wv {
				VFMADD231PD(wv[c], bc, acc[r][c])
			}
		}
		ADDQ(Imm(32), xp)
		INCQ(u)
		JMP(LabelRef(lbl + "u"))
		Label(lbl + "st")
		zp := GP64()
		LEAQ(Mem{Base: z, Index: c0, Scale: 1}, zp)
		for r := range acc {
			for c, a := range acc[r] {
				VMOVUPD(a, Mem{Base: zp, Disp: 32 * c})
			}
			if r < 3 {
				ADDQ(rowBytes, zp)
			}
		}
		MOVQ(t, c0)
		JMP(LabelRef(lbl))
	}
	Label("ggret")
	VZEROUPPER()
	RET()
}

// swishGemvT: a = z·(1/(1+e)) four at a time, then the outputs in tiles
// of 12 (then 4): for each, an even and an odd accumulator vector per 4
// outputs, fed a row of wT per j (rounded products, then sums: no FMA,
// as the Go code it replaces). The caller has checked J%4 == 0 and
// len(o)%4 == 0.
func swishGemvT() {
	TEXT("swishGemvTAVX", NOSPLIT, "func(z, e, a, wT, o []float64)")
	Pragma("noescape")
	z := Load(Param("z").Base(), GP64())
	nJ := Load(Param("z").Len(), GP64())
	e := Load(Param("e").Base(), GP64())
	a := Load(Param("a").Base(), GP64())
	wT := Load(Param("wT").Base(), GP64())
	o := Load(Param("o").Base(), GP64())
	nL := Load(Param("o").Len(), GP64())
	j := GP64()
	XORQ(j, j)
	Label("swa")
	CMPQ(j, nJ)
	JAE(LabelRef("swadone"))
	v, s := YMM(), YMM()
	VMOVUPD(cOne, s)
	VADDPD(Mem{Base: e, Index: j, Scale: 8}, s, v)
	VDIVPD(v, s, v)
	VMULPD(Mem{Base: z, Index: j, Scale: 8}, v, v)
	VMOVUPD(v, Mem{Base: a, Index: j, Scale: 8})
	ADDQ(Imm(4), j)
	JMP(LabelRef("swa"))
	Label("swadone")
	ld := GP64() // a row of wT, in bytes
	MOVQ(nL, ld)
	SHLQ(Imm(3), ld)
	c0 := GP64() // the tile's first output
	XORQ(c0, c0)
	for _, nc := range []int{3, 1} {
		lbl := fmt.Sprintf("sg%d", nc)
		next := "sg1"
		if nc == 1 {
			next = "sgret"
		}
		Label(lbl)
		t := GP64()
		MOVQ(c0, t)
		ADDQ(Imm(uint64(4*nc)), t)
		CMPQ(t, nL)
		JA(LabelRef(next))
		var acc [2][]VecVirtual
		for par := range acc {
			for c := 0; c < nc; c++ {
				x := YMM()
				VXORPD(x, x, x)
				acc[par] = append(acc[par], x)
			}
		}
		rp, ap, end := GP64(), GP64(), GP64()
		LEAQ(Mem{Base: wT, Index: c0, Scale: 8}, rp)
		MOVQ(a, ap)
		LEAQ(Mem{Base: a, Index: nJ, Scale: 8}, end)
		Label(lbl + "j")
		CMPQ(ap, end)
		JAE(LabelRef(lbl + "st"))
		for par := range acc {
			bc := YMM()
			VBROADCASTSD(Mem{Base: ap, Disp: 8 * par}, bc)
			for c := range acc[par] {
				p := YMM()
				VMULPD(Mem{Base: rp, Disp: 32 * c}, bc, p)
				VADDPD(p, acc[par][c], acc[par][c])
			}
			ADDQ(ld, rp)
		}
		ADDQ(Imm(16), ap)
		JMP(LabelRef(lbl + "j"))
		Label(lbl + "st")
		for c := range acc[0] {
			VADDPD(acc[1][c], acc[0][c], acc[0][c])
			VMOVUPD(acc[0][c], Mem{Base: o, Index: c0, Scale: 8, Disp: 32 * c})
		}
		MOVQ(t, c0)
		JMP(LabelRef(lbl))
	}
	Label("sgret")
	VZEROUPPER()
	RET()
}

// gatherPanels4: GatherGemm4 for a run of groups, tile by tile: the tile's
// panel of w (K rows × 8 columns, 64 bytes a row, contiguous) serves every
// group before the next tile's is read. The caller has checked the rows,
// the starts and J%8 == 0.
func gatherPanels4() {
	TEXT("gatherPanels4AVX", NOSPLIT, "func(z, wp []float64, K, J int, start, rows []int32, x []float64)")
	Pragma("noescape")
	z := Load(Param("z").Base(), GP64())
	wp := Load(Param("wp").Base(), GP64())
	K := Load(Param("K"), GP64())
	rowBytes := Load(Param("J"), GP64())
	SHLQ(Imm(3), rowBytes)
	start := Load(Param("start").Base(), GP64())
	ng := Load(Param("start").Len(), GP64())
	DECQ(ng)
	rows := Load(Param("rows").Base(), GP64())
	x := Load(Param("x").Base(), GP64())
	SHLQ(Imm(6), K) // a panel, in bytes
	c0 := GP64()    // the tile's first column, in bytes
	XORQ(c0, c0)
	Label("gpt")
	CMPQ(c0, rowBytes)
	JAE(LabelRef("gpret"))
	g := GP64()
	XORQ(g, g)
	zg := GP64() // group g's z, at column c0
	LEAQ(Mem{Base: z, Index: c0, Scale: 1}, zg)
	Label("gpg")
	CMPQ(g, ng)
	JAE(LabelRef("gpnext"))
	var acc [4][2]VecVirtual
	for r := range acc {
		for c := range acc[r] {
			acc[r][c] = YMM()
			VXORPD(acc[r][c], acc[r][c], acc[r][c])
		}
	}
	u, end, xp := GP64(), GP64(), GP64()
	MOVLQSX(Mem{Base: start, Index: g, Scale: 4}, u)
	MOVLQSX(Mem{Base: start, Index: g, Scale: 4, Disp: 4}, end)
	MOVQ(u, xp)
	SHLQ(Imm(5), xp)
	ADDQ(x, xp)
	Label("gpu")
	CMPQ(u, end)
	JAE(LabelRef("gpst"))
	rp := GP64()
	MOVLQSX(Mem{Base: rows, Index: u, Scale: 4}, rp)
	SHLQ(Imm(6), rp)
	ADDQ(wp, rp)
	var wv [2]VecVirtual
	for c := range wv {
		wv[c] = YMM()
		VMOVUPD(Mem{Base: rp, Disp: 32 * c}, wv[c])
	}
	for r := range acc {
		bc := YMM()
		VBROADCASTSD(Mem{Base: xp, Disp: 8 * r}, bc)
		for c := range wv {
			VFMADD231PD(wv[c], bc, acc[r][c])
		}
	}
	ADDQ(Imm(32), xp)
	INCQ(u)
	JMP(LabelRef("gpu"))
	Label("gpst")
	zp := GP64()
	MOVQ(zg, zp)
	for r := range acc {
		for c, a := range acc[r] {
			VMOVUPD(a, Mem{Base: zp, Disp: 32 * c})
		}
		ADDQ(rowBytes, zp)
	}
	MOVQ(zp, zg) // the next group's z follows four rows on
	INCQ(g)
	JMP(LabelRef("gpg"))
	Label("gpnext")
	ADDQ(K, wp)
	ADDQ(Imm(64), c0)
	JMP(LabelRef("gpt"))
	Label("gpret")
	VZEROUPPER()
	RET()
}
