// Package datasetstest provides synthetic datasets and a local UCI mirror
// for tests of the packages that consume datasets (as net/http/httptest
// does for servers).
package datasetstest

import (
	"math/rand/v2"

	"github.com/fedcon/fedcon/datasets"
)

// TinyImages returns n random images of k pixels (about half of them zero)
// with labels below L, a pure function of seed. It panics on invalid sizes
// (test fixtures only).
func TinyImages(n, k, L int, seed uint64) *datasets.Images {
	rng := rand.New(rand.NewPCG(seed, 7))
	pix := make([]byte, n*k)
	for i := range pix {
		if rng.IntN(2) == 0 {
			pix[i] = byte(1 + rng.IntN(255))
		}
	}
	labs := make([]byte, n)
	for i := range labs {
		labs[i] = byte(rng.IntN(L))
	}
	s, err := datasets.NewImages(&datasets.IDX{Dims: []int{n, 1, k}, Data: pix}, &datasets.IDX{Dims: []int{n}, Data: labs}, "tiny", L)
	if err != nil {
		panic(err)
	}
	return s
}
