//go:build !purego

package kernels

import "golang.org/x/sys/cpu"

// useAVX: the AVX2/FMA kernels can run. Fused multiply-adds round once, so
// results differ in the last bits from machines without them; on one
// machine they are bit-identical run to run.
var useAVX = cpu.X86.HasAVX2 && cpu.X86.HasFMA
