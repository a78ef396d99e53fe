package recheck

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEqQPBallsClosedForm: with one ball, EqQPBall's closed form (min
// ½||w||² + bᵀw, w_1 = 0, ||w|| <= T: w* = −b'·min(1, T/||b'||)).
func TestEqQPBallsClosedForm(t *testing.T) {
	const d = 4
	b := []float64{5, 3, -4, 0}
	for _, c := range []struct{ t, lambda float64 }{{6, 0}, {2, 1.5}, {0.25, 19}, {1e-4, 5e4 - 1}} {
		parties := []QPData{{C: [][]float64{{1, 0, 0, 0}}, D: []float64{0}}, {A: scaledEye(d, 1), B: b}}
		w, lambda, _, _, err := EqQPBalls(parties, []BallData{{G: scaledEye(d, 1), H: make([]float64, d), T: c.t}}, d)
		if err != nil {
			t.Fatal(err)
		}
		scale := math.Min(1, c.t/5)
		want := []float64{0, -3 * scale, 4 * scale, 0}
		for j := range want {
			if math.Abs(w[j]-want[j]) > 1e-13 {
				t.Errorf("T = %g: w[%d] = %.17g, want %.17g", c.t, j, w[j], want[j])
			}
		}
		if math.Abs(lambda[0]-c.lambda) > 1e-11*(1+c.lambda) {
			t.Errorf("T = %g: λ* = %.17g, want %.17g", c.t, lambda[0], c.lambda)
		}
	}
}

// TestEqQPBallsKKT: random strongly convex QPs with two equalities and
// three balls, some binding: the returned point satisfies the KKT
// conditions (recomputed here: feasibility, λ >= 0, complementarity, and
// the Lagrangian's gradient in the range of Cᵀ) to rounding, and with the
// other balls removed where they are slack it equals EqQPBall's w*.
func TestEqQPBallsKKT(t *testing.T) {
	const d, m, K = 6, 2, 3
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		randMat := func(r, c int) [][]float64 {
			a := make([][]float64, r)
			for i := range a {
				a[i] = make([]float64, c)
				for j := range a[i] {
					a[i][j] = rng.NormFloat64()
				}
			}
			return a
		}
		randVec := func(n int, s float64) []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = s * rng.NormFloat64()
			}
			return v
		}
		l := randMat(d, d)
		a := make([][]float64, d)
		for i := range a {
			a[i] = make([]float64, d)
			for j := range a[i] {
				for k := range d {
					a[i][j] += l[i][k] * l[j][k]
				}
			}
			a[i][i] += 0.1
		}
		// The balls around points near a feasible w_f, radii so that
		// w_f is strictly inside all of them: the intersection is not empty.
		cm := randMat(m, d)
		wf := randVec(d, 1)
		dv := make([]float64, m)
		for r := range cm {
			dv[r] = -dot(cm[r], wf)
		}
		parties := []QPData{{A: a, B: randVec(d, 10)}, {C: cm, D: dv}}
		balls := make([]BallData, K)
		for k := range balls {
			g := randMat(3, d)
			h := make([]float64, 3)
			off := randVec(3, 0.5)
			var r2 float64
			for r := range g {
				h[r] = dot(g[r], wf) + off[r]
				r2 += off[r] * off[r]
			}
			balls[k] = BallData{G: g, H: h, T: math.Sqrt(r2) + 0.3 + rng.Float64()}
		}
		w, lambda, _, _, err := EqQPBalls(parties, balls, d)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		grad := make([]float64, d)
		for i := range grad {
			grad[i] = dot(a[i], w) + parties[0].B[i]
		}
		binding := 0
		for k, bl := range balls {
			var rr float64
			res := make([]float64, len(bl.G))
			for r, row := range bl.G {
				res[r] = dot(row, w) - bl.H[r]
				rr += res[r] * res[r]
			}
			s := (rr - bl.T*bl.T) / 2
			if s > 1e-12*bl.T*bl.T {
				t.Errorf("seed %d: ball %d violated by %.3g", seed, k, s)
			}
			if lambda[k] < 0 || math.Abs(lambda[k]*s) > 1e-10*(1+lambda[k]) {
				t.Errorf("seed %d: λ_%d = %.6g with s = %.3g", seed, k, lambda[k], s)
			}
			if lambda[k] > 0 {
				binding++
			}
			for r, row := range bl.G {
				for j, g := range row {
					grad[j] += lambda[k] * g * res[r]
				}
			}
		}
		// Remove grad's part in the range of Cᵀ (Gram-Schmidt on C's rows).
		var basis [][]float64
		for _, row := range cm {
			v := append([]float64(nil), row...)
			for _, q := range basis {
				p := dot(v, q)
				for j := range v {
					v[j] -= p * q[j]
				}
			}
			nv := math.Sqrt(dot(v, v))
			for j := range v {
				v[j] /= nv
			}
			basis = append(basis, v)
		}
		for _, q := range basis {
			p := dot(grad, q)
			for j := range grad {
				grad[j] -= p * q[j]
			}
		}
		var gmax, scale float64
		for j := range grad {
			gmax = math.Max(gmax, math.Abs(grad[j]))
			scale = math.Max(scale, math.Abs(parties[0].B[j]))
		}
		if gmax > 1e-10*(1+scale) {
			t.Errorf("seed %d: stationarity %.3g (λ = %v)", seed, gmax, lambda)
		}
		if binding == 1 {
			for k := range balls {
				if lambda[k] == 0 {
					continue
				}
				w1, _, _, err := EqQPBall(parties, balls[k], d)
				if err != nil {
					t.Fatal(err)
				}
				for j := range w {
					if math.Abs(w[j]-w1[j]) > 1e-10*(1+math.Abs(w1[j])) {
						t.Errorf("seed %d: w[%d] = %.15g, EqQPBall's %.15g", seed, j, w[j], w1[j])
					}
				}
			}
		}
	}
}

// scaledEye is s times the d×d identity.
func scaledEye(d int, s float64) [][]float64 {
	a := make([][]float64, d)
	for i := range a {
		a[i] = make([]float64, d)
		a[i][i] = s
	}
	return a
}
