package adlpmm

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// GenLP is a general-form LP: minimise cᵀx s.t. Gx ≤ h, Ax = b, x free,
// built row by row and solved by lp.Simplex after lp.Convert.
type GenLP struct {
	c    []float64
	G, A [][]float64
	h, b []float64
}

func (g *GenLP) NewVar(cost float64) int {
	g.c = append(g.c, cost)
	return len(g.c) - 1
}

// Le adds Σ coef[k]·x[idx[k]] ≤ rhs; Eq adds the equality.
func (g *GenLP) Le(idx []int, coef []float64, rhs float64) {
	g.G, g.h = append(g.G, sparseRow(idx, coef)), append(g.h, rhs)
}
func (g *GenLP) Eq(idx []int, coef []float64, rhs float64) {
	g.A, g.b = append(g.A, sparseRow(idx, coef)), append(g.b, rhs)
}

func sparseRow(idx []int, coef []float64) []float64 {
	r := make([]float64, 0, len(idx)*2)
	for k, i := range idx {
		r = append(r, float64(i), coef[k])
	}
	return r
}

func (g *GenLP) dense(rows [][]float64) *mat.Dense {
	if len(rows) == 0 {
		return nil
	}
	m := mat.NewDense(len(rows), len(g.c), nil)
	for i, r := range rows {
		for k := 0; k < len(r); k += 2 {
			j := int(r[k])
			m.Set(i, j, m.At(i, j)+r[k+1])
		}
	}
	return m
}

func (g *GenLP) Solve(t *testing.T) float64 {
	t.Helper()
	G, A := g.dense(g.G), g.dense(g.A)
	var Gm, Am mat.Matrix
	if G != nil {
		Gm = G
	}
	if A != nil {
		Am = A
	}
	c, a, b := lp.Convert(g.c, Gm, g.h, Am, g.b)
	opt, _, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		t.Fatalf("lp.Simplex: %v", err)
	}
	return opt
}

// qSetRows adds q ∈ Q = Δ ∩ {‖q − q̂‖_p ≤ θ} for p ∈ {1, ∞}.
func qSetRows(g *GenLP, q []int, qhat []float64, theta, p float64) {
	S := len(q)
	ones := make([]float64, S)
	for s := range ones {
		ones[s] = 1
	}
	g.Eq(q, ones, 1)
	for s := range S {
		g.Le([]int{q[s]}, []float64{-1}, 0)
	}
	if math.IsInf(p, 1) {
		for s := range S {
			g.Le([]int{q[s]}, []float64{1}, qhat[s]+theta)
			g.Le([]int{q[s]}, []float64{-1}, theta-qhat[s])
		}
		return
	}
	// p = 1: a_s ≥ |q_s − q̂_s|, Σa ≤ θ.
	a := make([]int, S)
	for s := range S {
		a[s] = g.NewVar(0)
		g.Le([]int{q[s], a[s]}, []float64{1, -1}, qhat[s])
		g.Le([]int{q[s], a[s]}, []float64{-1, -1}, -qhat[s])
	}
	g.Le(a, ones, theta)
}
