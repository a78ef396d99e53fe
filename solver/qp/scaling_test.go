package qp

import (
	"math/rand/v2"
	"testing"
)

// randA returns an m×n CSC with dense rows, rows with a few gaps, and
// scattered entries, of magnitudes spread over six decades.
func randA(rng *rand.Rand, m, n int) *CSC {
	var rows, cols []int
	var vals []float64
	for i := 0; i < m; i++ {
		kind := rng.IntN(3)
		for j := 0; j < n; j++ {
			keep := kind == 0 || (kind == 1 && rng.IntN(8) != 0) || (kind == 2 && rng.IntN(5) == 0)
			if keep {
				rows, cols = append(rows, i), append(cols, j)
				vals = append(vals, (2*rng.Float64()-1)*float64(int(1)<<rng.IntN(20)))
			}
		}
	}
	a, err := NewCSC(m, n, rows, cols, vals)
	if err != nil {
		panic(err)
	}
	return a
}

// TestRuizFromTranspose: Ruiz read row by row from Aᵀ (the dense path)
// gives the column-by-column scaling bit for bit, and the pair built from
// Aᵀ alone takes the same product form as from both.
func TestRuizFromTranspose(t *testing.T) {
	for _, c := range []struct{ m, n int }{{1, 1}, {3, 7}, {17, 9}, {40, 33}, {250, 200}} {
		rng := rand.New(rand.NewPCG(uint64(c.m), uint64(c.n)))
		a := randA(rng, c.m, c.n)
		p := denseQP(uint64(c.n), c.n, 1)
		pd, err := symDenseFrom(p.P, c.n)
		if err != nil {
			t.Fatal(err)
		}
		pd2, _ := symDenseFrom(p.P, c.n)
		q := append([]float64(nil), p.Q...)
		q2 := append([]float64(nil), p.Q...)
		at := a.transpose()
		s1 := ruiz(pd, a, nil, q, 10)
		s2 := ruiz(pd2, nil, at, q2, 10)
		if s1.c != s2.c || maxDiff(s1.d, s2.d) != 0 || maxDiff(s1.e, s2.e) != 0 || maxDiff(q, q2) != 0 || maxDiff(pd.a, pd2.a) != 0 {
			t.Fatalf("%d×%d: scalings differ (c %v vs %v)", c.m, c.n, s1.c, s2.c)
		}
		_, na := a.contiguity()
		if got := transposedContigNnz(at); got != na {
			t.Fatalf("%d×%d: transposedContigNnz %d, contiguity of A %d", c.m, c.n, got, na)
		}
		if newPairT(nil, at).useT != newPairT(a, at).useT {
			t.Fatalf("%d×%d: the pair from Aᵀ alone takes another product form", c.m, c.n)
		}
	}
}
