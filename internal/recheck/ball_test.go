package recheck

import (
	"math"
	"testing"
)

// TestEqQPBall: min ½||w||² + bᵀw subject to w_1 = 0 (one equality) and
// ||Gw − H||₂ <= T with G = I, H = 0 has the closed form w* = −b'·min(1,
// T/||b'||), b' = b with b_1 zeroed, and λ* = max(0, ||b'||/T − 1) (the
// stationarity w + b' + λw = 0 off the first coordinate). The solve must
// match it to rounding, inside the ball (λ* = 0) and on its boundary, with
// the objective split over two parties; an empty ball fails.
func TestEqQPBall(t *testing.T) {
	const d = 4
	b := []float64{5, 3, -4, 0} // b' = (0, 3, -4, 0), ||b'|| = 5
	for _, c := range []struct {
		name   string
		t      float64
		lambda float64
	}{
		{"inside", 6, 0},
		{"boundary", 2, 1.5}, // 5/2 − 1
		{"tight", 0.25, 19},  // 5/0.25 − 1
		{"large multiplier", 1e-4, 5e4 - 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			// f split: ½·(0.5)||w||² + bᵀw at a client, ½·(0.5)||w||² at
			// another, the equality w_1 = 0 at the server.
			parties := []QPData{
				{C: [][]float64{{1, 0, 0, 0}}, D: []float64{0}},
				{A: scaledEye(d, 0.5), B: b},
				{A: scaledEye(d, 0.5)},
			}
			w, lambda, f, err := EqQPBall(parties, BallData{G: scaledEye(d, 1), H: make([]float64, d), T: c.t}, d)
			if err != nil {
				t.Fatal(err)
			}
			scale := math.Min(1, c.t/5)
			want := []float64{0, -3 * scale, 4 * scale, 0}
			var fw float64
			for j := range want {
				fw += 0.5*want[j]*want[j] + b[j]*want[j]
				// The bracket ends a few ulps of λ wide; w(λ) then
				// moves by |w'(λ)|·ulp(λ), a few ulps of w.
				if math.Abs(w[j]-want[j]) > 1e-14 {
					t.Errorf("w[%d] = %.17g, want %.17g", j, w[j], want[j])
				}
			}
			if math.Abs(lambda-c.lambda) > 1e-12*(1+c.lambda) {
				t.Errorf("λ* = %.17g, want %.17g", lambda, c.lambda)
			}
			if math.Abs(f-fw) > 1e-14*(1+math.Abs(fw)) {
				t.Errorf("f* = %.17g, want %.17g", f, fw)
			}
			var r2 float64
			for _, x := range w {
				r2 += x * x
			}
			if math.Sqrt(r2) > c.t*(1+1e-15) {
				t.Errorf("||w*|| = %.17g outside the ball of radius %g", math.Sqrt(r2), c.t)
			}
		})
	}
	t.Run("empty ball", func(t *testing.T) {
		// The ball of radius 1 around (9, 0, 0, 0) misses w_1 = 0.
		parties := []QPData{{C: [][]float64{{1, 0, 0, 0}}, D: []float64{0}}, {A: scaledEye(d, 1), B: b}}
		if _, _, _, err := EqQPBall(parties, BallData{G: scaledEye(d, 1), H: []float64{9, 0, 0, 0}, T: 1}, d); err == nil {
			t.Error("no error for a ball that misses the equalities")
		}
	})
}
