package drfl

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedcon/fedcon/problems/wdro"
)

// TestMinMaxScaler: the range comes from the training rows alone, so a
// test row outside it scales outside [−1, 1]; a constant feature is 0.
func TestMinMaxScaler(t *testing.T) {
	x := [][]float64{{0, 5}, {10, 5}, {5, 5}, {20, 5}}
	scale := minMaxScaler(x, []int{0, 1, 2}, 2)
	for _, c := range []struct {
		row, want []float64
	}{
		{[]float64{0, 5}, []float64{-1, 0}},
		{[]float64{10, 5}, []float64{1, 0}},
		{[]float64{5, 5}, []float64{0, 0}},
		{[]float64{20, 7}, []float64{3, 0}}, // row 3 is not a training row
	} {
		if got := scale(c.row); !slices.Equal(got, c.want) {
			t.Errorf("scale(%v) = %v, want %v", c.row, got, c.want)
		}
	}
}

// TestImbalance: a client keeps round(ratio × its minority rows) of them
// and every row of the other class, in order.
func TestImbalance(t *testing.T) {
	for _, c := range []struct {
		name     string
		y        []float64
		ratio    float64
		pos, neg int
	}{
		{"minority -1", []float64{1, -1, 1, 1, -1, 1, -1, 1, 1, 1}, 2.0 / 3, 7, 2},
		{"minority +1", []float64{-1, 1, -1, -1, 1, -1}, 0.5, 1, 4},
		{"tie drops +1", []float64{1, -1, 1, -1}, 0.5, 1, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := wdro.Client{Y: slices.Clone(c.y)}
			for i := range c.y {
				cl.X = append(cl.X, []float64{float64(i)})
			}
			imbalance(&cl, c.ratio, rand.New(rand.NewPCG(1, 2)))
			var pos, neg int
			prev := -1.0
			for i, v := range cl.Y {
				if v > 0 {
					pos++
				} else {
					neg++
				}
				if at := cl.X[i][0]; at <= prev || c.y[int(at)] != v {
					t.Fatalf("row %d is original row %v (label %v): rows reordered or mislabelled", i, at, v)
				}
				prev = cl.X[i][0]
			}
			if pos != c.pos || neg != c.neg {
				t.Errorf("kept %d positive, %d negative rows, want %d, %d", pos, neg, c.pos, c.neg)
			}
		})
	}
}
