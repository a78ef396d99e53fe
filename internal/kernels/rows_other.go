//go:build !amd64 || purego

package kernels

func gatherGemm4AVX(z, w []float64, J int, rows []int32, x []float64) {
	gatherGemm4Go(z, w, J, rows, x)
}

func swishGemvTAVX(z, e, a, wT, o []float64) { swishGemvTGo(z, e, a, wT, o) }

func gatherPanels4AVX(z, wp []float64, K, J int, start, rows []int32, x []float64) {
	gatherPanels4Go(z, wp, K, J, start, rows, x)
}
