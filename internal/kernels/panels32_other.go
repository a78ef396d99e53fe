//go:build !amd64 || purego

package kernels

func gatherPanels4F32AVX(z, wp []float32, K, J int, start, rows []int32, x []float32) {
	gatherPanels4F32Go(z, wp, K, J, start, rows, x)
}

func bytesF32AVX(dst []float32, src []uint8, s float32) { bytesF32Go(dst, src, s) }
