package qp

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// arrowQP generates a feasible, bounded QP shaped like a DRFL client
// problem: ns per-sample blocks of nb local variables, each with nb box
// rows and nb coupling rows touching three local and two shared variables,
// plus ns·0 + s shared variables with box rows. Half of the local variables
// have no quadratic cost (LP-like, as hinge-loss epigraph variables); the
// shared block of P is dense and positive definite. It also returns the KKT
// indices of the shared variables, for ArrowOrdering.
func arrowQP(seed uint64, ns, nb, s int) (*Problem, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := ns*nb + s
	var pr, pc []int
	var pv []float64
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = rng.Float64() - 0.5
	}
	for j := 0; j < ns*nb; j++ {
		if rng.IntN(2) == 0 {
			pr, pc, pv = append(pr, j), append(pc, j), append(pv, 0.1+rng.Float64())
		}
	}
	sh := ns * nb
	for a := 0; a < s; a++ {
		for b := a; b < s; b++ {
			v := 0.1 * rng.NormFloat64()
			if a == b {
				v = float64(s) * 0.1
			}
			pr, pc, pv = append(pr, sh+a), append(pc, sh+b), append(pv, v)
		}
	}
	P, _ := NewCSC(n, n, pr, pc, pv)
	var ar, ac []int
	var av, l, u []float64
	row := 0
	addRow := func(cols []int, vals []float64, kind int) {
		var v float64
		for k, c := range cols {
			ar, ac, av = append(ar, row), append(ac, c), append(av, vals[k])
			v += vals[k] * x0[c]
		}
		lo, hi := v-rng.Float64(), v+rng.Float64()
		switch kind {
		case 1:
			lo, hi = v, v
		case 2:
			hi = math.Inf(1)
		}
		l, u = append(l, lo), append(u, hi)
		row++
	}
	for b := 0; b < ns; b++ {
		base := b * nb
		for k := 0; k < nb; k++ {
			addRow([]int{base + k}, []float64{1}, 0)
		}
		for k := 0; k < nb; k++ {
			cols := []int{base + k, base + rng.IntN(nb), base + rng.IntN(nb), sh + rng.IntN(s), sh + rng.IntN(s)}
			vals := make([]float64, len(cols))
			for t := range vals {
				vals[t] = rng.NormFloat64()
			}
			kind := 0
			switch r := rng.Float64(); {
			case r < 0.1:
				kind = 1
			case r < 0.3:
				kind = 2
			}
			addRow(cols, vals, kind)
		}
	}
	for a := 0; a < s; a++ {
		addRow([]int{sh + a}, []float64{1}, 0)
	}
	A, _ := NewCSC(row, n, ar, ac, av)
	q := make([]float64, n)
	for j := range q {
		q[j] = rng.NormFloat64()
	}
	shared := make([]int, s)
	for a := range shared {
		shared[a] = sh + a
	}
	return &Problem{P: P, Q: q, A: A, L: l, U: u}, shared
}

// denseQP generates a feasible, bounded QP with a dense P = MᵀM/n + 0.01·I,
// md dense inequality rows Gx ≤ h and box constraints −1 ≤ x ≤ 1.
func denseQP(seed uint64, n, md int) *Problem {
	rng := rand.New(rand.NewPCG(seed, 11))
	M := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			M.Set(i, j, rng.NormFloat64())
		}
	}
	P := mat.NewSymDense(n, nil)
	P.SymOuterK(1/float64(n), M.T())
	for j := 0; j < n; j++ {
		P.SetSym(j, j, P.At(j, j)+0.01)
	}
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = 0.8 * (2*rng.Float64() - 1)
	}
	A := mat.NewDense(md+n, n, nil)
	l := make([]float64, md+n)
	u := make([]float64, md+n)
	for i := 0; i < md; i++ {
		var v float64
		for j := 0; j < n; j++ {
			a := rng.NormFloat64()
			A.Set(i, j, a)
			v += a * x0[j]
		}
		l[i] = math.Inf(-1)
		u[i] = v + rng.Float64()
	}
	for j := 0; j < n; j++ {
		A.Set(md+j, j, 1)
		l[md+j], u[md+j] = -1, 1
	}
	q := make([]float64, n)
	for j := range q {
		q[j] = 10 * rng.NormFloat64()
	}
	return &Problem{P: P, Q: q, A: A, L: l, U: u}
}
