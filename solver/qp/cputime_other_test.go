//go:build !unix

package qp

// cpuTime is unavailable here; the benchmarks then omit cpu-ms/solve.
func cpuTime() int64 { return -1 }
