package swishnet

import (
	"golang.org/x/sys/cpu"
	"gonum.org/v1/gonum/floats"
)

// hasFMA: the AVX2/FMA kernel is usable. Fused multiply-adds round once,
// so iterates differ in the last bits from machines without FMA; on one
// machine results stay bit-identical.
var hasFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func axpyFMA(a float64, x, y []float64)

// axpy sets y[:len(x)] += a x: the J-long rows of the sparse first layer are
// the hot loop (AVX2 FMA kernel: ~4× a Go loop; else gonum's SSE2 kernel).
func axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	if hasFMA && len(x)%16 == 0 {
		axpyFMA(a, x, y)
		return
	}
	floats.AddScaled(y, a, x)
}
