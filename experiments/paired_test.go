package experiments

import (
	"math"
	"testing"
)

func TestPairedOf(t *testing.T) {
	for _, tc := range []struct {
		name        string
		a, b        []float64
		mean, se    float64
		pt, psign   float64
		below, abov int
	}{
		// d = (1, 2, 3): mean 2, sd 1, SE 1/√3, t = 2√3 with 2 degrees of
		// freedom, whose two-sided p is 1 - t/√(2 + t²) = 1 - 2√3/√14;
		// sign: 3 of 3 above, 2·(1/2)³.
		{"df 2", []float64{2, 4, 6}, []float64{1, 2, 3}, 2, 1 / math.Sqrt(3), 1 - 2*math.Sqrt(3)/math.Sqrt(14), 0.25, 0, 3},
		// d = (-1, -3): mean -2, sd √2, SE 1, t = 2 with 1 degree of freedom
		// (Cauchy): p = 1 - (2/π)·atan(2); sign: 2·(1/2)² = 0.5.
		{"df 1", []float64{0, 0}, []float64{1, 3}, -2, 1, 1 - 2/math.Pi*math.Atan(2), 0.5, 2, 0},
		// d = (0.5, -0.5, 1, 1, 1, 0): mean 0.5, squared deviations summing to
		// 2, SE √(2/5/6); one tie, so the sign test is on 4 above and 1
		// below: 2·(1 + 5)/2⁵ = 0.375.
		{"tie", []float64{1, 2, 3, 4, 5, 7}, []float64{0.5, 2.5, 2, 3, 4, 7}, 0.5, math.Sqrt(0.4 / 6), -1, 0.375, 1, 4},
		// Equal non-zero differences: the t-test has no doubt left.
		{"constant d", []float64{2, 3}, []float64{1, 2}, 1, 0, 0, 0.5, 0, 2},
		{"one pair", []float64{2}, []float64{1}, 1, 0, 1, 1, 0, 1},
		{"empty", nil, nil, 0, 0, 1, 1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := PairedOf(tc.a, tc.b)
			near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-12 }
			if p.N != len(tc.a) || !near(p.MeanDiff, tc.mean) || !near(p.SE, tc.se) || !near(p.PSign, tc.psign) ||
				p.Below != tc.below || p.Above != tc.abov {
				t.Errorf("got %+v", p)
			}
			// gonum's t survival is accurate to about 1e-10 here.
			if tc.pt >= 0 && math.Abs(p.PT-tc.pt) > 1e-9 {
				t.Errorf("p_t = %.12f, want %.12f", p.PT, tc.pt)
			}
		})
	}
}

func TestSignTestP(t *testing.T) {
	for _, tc := range []struct {
		below, above int
		want         float64
	}{
		{0, 0, 1}, {1, 1, 1}, {0, 10, 2.0 / 1024},
		{2, 8, 2 * (1 + 10 + 45) / 1024.0}, // C(10,0) + C(10,1) + C(10,2) = 56
		{50, 50, 1},
	} {
		if got := SignTestP(tc.below, tc.above); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("SignTestP(%d, %d) = %v, want %v", tc.below, tc.above, got, tc.want)
		}
	}
}
