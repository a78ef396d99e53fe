//go:build !amd64 || purego

package kernels

const useAVX = false

// The assembly names, for the tests: here they are the pure-Go versions.

func dotAVX(x, y []float64) float64                          { return dotGo(x, y) }
func nonZerosAVX(x []float64) (int, float64)                 { return nonZerosGo(x) }
func dotF32AVX(x []float32, y []float64) float64             { return dotF32Go(x, y) }
func axpyAVX(a float64, x, y []float64)                      { axpyGo(a, x, y) }
func expAVX(x, dst []float64)                                { expGo(x, dst) }
func logLossAVX(z []float64, y float64, r []float64) float64 { return logLossGo(z, y, r) }
func logWeightAVX(z, c []float64)                            { logWeightGo(z, c) }

func dotSparseAVX(val []float64, idx []int, w []float64) (float64, bool) {
	return dotSparseGo(val, idx, w), true
}

func axpySparseAVX(a float64, val []float64, idx []int, y []float64) bool {
	axpySparseGo(a, val, idx, y)
	return true
}

func syrSparseAVX(c float64, val []float64, idx []int, h []float64, n int) bool {
	syrSparseGo(c, val, idx, h, n)
	return true
}

func csrDotAVX(ptr, col []int, val, w, z []float64) bool {
	csrDotGo(ptr, col, val, w, z)
	return true
}

func csrAxpyAVX(ptr, col []int, val []float64, alpha float64, d, g []float64) bool {
	csrAxpyGo(ptr, col, val, alpha, d, g)
	return true
}

func gemvTAVX(alpha float64, a []float64, stride int, c, y []float64) {
	gemvTGo(alpha, a, stride, c, y)
}

func byteRowAVX(z, w []float64, rows int, col []uint16, k0 int, val []uint8, scale *[256]float64, add bool) bool {
	byteRowGo(z, w, col, k0, val, scale, add)
	return true
}

func absMaxAVX(x, d []float64, s float64, cm []float64) float64  { return absMaxGo(x, d, s, cm) }
func absMaxTAVX(x, d []float64, s float64, cm []float64) float64 { return absMaxTGo(x, d, s, cm) }

func gemmT4AVX(alpha float64, a []float64, stride int, c []float64, ldc, m int, y []float64, ldy, n int) {
	gemmT4Go(alpha, a, stride, c, ldc, m, y, ldy, n)
}

func dotAxpyAVX(alpha float64, a, x, y []float64) float64 { return dotAxpyGo(alpha, a, x, y) }
