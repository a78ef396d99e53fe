package adlpmm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// faceProject enumerates the faces of a polytope given by sign patterns:
// pattern[i] ∈ {−1, 0, +1}; it returns the nearest feasible candidate of
// project(pattern) over all 3ⁿ patterns (brute force, n ≤ 6).
func bruteForce(x []float64, project func(pat []int) ([]float64, bool)) []float64 {
	n := len(x)
	pat := make([]int, n)
	best, bestD := []float64(nil), math.Inf(1)
	total := 1
	for range n {
		total *= 3
	}
	for code := range total {
		c := code
		for i := range pat {
			pat[i] = c%3 - 1
			c /= 3
		}
		v, ok := project(pat)
		if !ok {
			continue
		}
		var d float64
		for i := range x {
			d += (x[i] - v[i]) * (x[i] - v[i])
		}
		if d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

// l1Face projects x onto the affine hull of the ℓ1-ball face with signs pat
// (all-zero pattern: the interior, x itself) and reports feasibility.
func l1Face(x []float64) func([]int) ([]float64, bool) {
	return func(pat []int) ([]float64, bool) {
		v := make([]float64, len(x))
		k, sx := 0, 0.0
		for i, s := range pat {
			if s != 0 {
				k++
				sx += float64(s) * x[i]
			}
		}
		if k == 0 {
			var l1 float64
			for _, xi := range x {
				l1 += math.Abs(xi)
			}
			copy(v, x)
			return v, l1 <= 1
		}
		mu := (sx - 1) / float64(k)
		for i, s := range pat {
			if s != 0 {
				v[i] = x[i] - mu*float64(s)
				if float64(s)*v[i] < -1e-12 {
					return nil, false
				}
			}
		}
		return v, true
	}
}

// simplexFace: pat[i] = +1 keeps coordinate i in the support (others 0).
func simplexFace(x []float64) func([]int) ([]float64, bool) {
	return func(pat []int) ([]float64, bool) {
		v := make([]float64, len(x))
		k, sum := 0, 0.0
		for i, s := range pat {
			if s == -1 {
				return nil, false // each support visited once
			}
			if s == 1 {
				k++
				sum += x[i]
			}
		}
		if k == 0 {
			return nil, false
		}
		tau := (sum - 1) / float64(k)
		for i, s := range pat {
			if s == 1 {
				v[i] = x[i] - tau
				if v[i] < -1e-12 {
					return nil, false
				}
			}
		}
		return v, true
	}
}

// boxFace: pat[i] = ±1 fixes coordinate i at ±1, 0 leaves it free.
func boxFace(x []float64) func([]int) ([]float64, bool) {
	return func(pat []int) ([]float64, bool) {
		v := make([]float64, len(x))
		for i, s := range pat {
			if s == 0 {
				if math.Abs(x[i]) > 1 {
					return nil, false
				}
				v[i] = x[i]
			} else {
				v[i] = float64(s)
			}
		}
		return v, true
	}
}

func randVec(rng *rand.Rand, n int, scale float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = scale * rng.NormFloat64()
	}
	return x
}

// Brute-force tolerance: both sides are a few flops of exact arithmetic.
const projTol = 1e-12

func TestProjectionsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + trial%6
		scale := []float64{0.2, 1, 3}[trial%3]
		x := randVec(rng, n, scale)
		cases := []struct {
			name string
			got  []float64
			want []float64
		}{
			{"l1", ProjectBall(nil, x, 1), bruteForce(x, l1Face(x))},
			{"inf", ProjectBall(nil, x, math.Inf(1)), bruteForce(x, boxFace(x))},
			{"simplex", ProjectSimplex(nil, x), bruteForce(x, simplexFace(x))},
		}
		for _, c := range cases {
			for i := range x {
				if math.Abs(c.got[i]-c.want[i]) > projTol {
					t.Fatalf("%s x=%v: got %v, brute force %v", c.name, x, c.got, c.want)
				}
			}
		}
		// ℓ2: the projection is in the ball and no sampled point of the
		// ball is nearer to x.
		p2 := ProjectBall(nil, x, 2)
		if DualNorm(p2, 2) > 1+projTol {
			t.Fatalf("l2 projection %v outside the ball", p2)
		}
		d0 := dist2(x, p2)
		for range 200 {
			v := randVec(rng, n, 1)
			nv := DualNorm(v, 2)
			if nv > 1 {
				for i := range v {
					v[i] /= nv
				}
			}
			if dist2(x, v) < d0-projTol {
				t.Fatalf("l2: %v nearer to %v than projection %v", v, x, p2)
			}
		}
	}
}

func dist2(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}

// TestProxDualNorm: the Moreau formula of eq. (8) minimises
// τ‖v‖_{p*} + ½‖v − u‖² (no random perturbation of it is better).
func TestProxDualNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range []float64{1, 2, math.Inf(1)} {
		for trial := range 100 {
			n := 1 + trial%5
			u := randVec(rng, n, 2)
			tau := 0.05 + rng.Float64()
			v := ProxDualNorm(nil, u, tau, p)
			f := func(x []float64) float64 { return tau*DualNorm(x, p) + 0.5*dist2(x, u) }
			f0 := f(v)
			for _, step := range []float64{1e-1, 1e-3, 1e-6} {
				for range 50 {
					w := randVec(rng, n, step)
					for i := range w {
						w[i] += v[i]
					}
					// 1e-12: rounding of f at values of order 10.
					if f(w) < f0-1e-12 {
						t.Fatalf("p=%v u=%v tau=%v: prox %v (f=%v) beaten by %v (f=%v)", p, u, tau, v, f0, w, f(w))
					}
				}
			}
		}
	}
}

func TestProjectBallPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("p = 3 did not panic")
		}
	}()
	ProjectBall(nil, []float64{1}, 3)
}
