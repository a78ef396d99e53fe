package qp

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// arrowQP generates a feasible, bounded QP shaped like a DRFL client
// problem: ns per-sample blocks of nb local variables, each with nb box
// rows and nb coupling rows touching three local and two shared variables,
// plus s shared variables with box rows. Half of the local variables
// have no quadratic cost (LP-like, as hinge-loss epigraph variables); the
// shared block of P is dense and positive definite. It also returns the KKT
// indices of the shared variables, for ArrowOrdering.
func arrowQP(seed uint64, ns, nb, s int) (*Problem, []int) { return arrowQPlp(seed, ns, nb, s, 0.5) }

func arrowQPlp(seed uint64, ns, nb, s int, lpFrac float64) (*Problem, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := ns*nb + s
	var pr, pc []int
	var pv []float64
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = rng.Float64() - 0.5
	}
	for j := 0; j < ns*nb; j++ {
		if rng.Float64() >= lpFrac {
			pr, pc, pv = append(pr, j), append(pc, j), append(pv, 0.1+rng.Float64())
		}
	}
	sh := ns * nb
	rowAbs := make([]float64, s)
	for a := 0; a < s; a++ {
		for b := a + 1; b < s; b++ {
			v := 0.1 * rng.NormFloat64()
			pr, pc, pv = append(pr, sh+a), append(pc, sh+b), append(pv, v)
			rowAbs[a] += math.Abs(v)
			rowAbs[b] += math.Abs(v)
		}
	}
	for a := 0; a < s; a++ {
		// Diagonally dominant, hence positive definite.
		pr, pc, pv = append(pr, sh+a), append(pc, sh+a), append(pv, 0.5+rowAbs[a])
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

// drflQP generates the client subproblem of a Wasserstein distributionally
// robust SVM in federated learning, shaped like a heart-disease client:
// ns samples with d features in [0, 1]ᵈ, labels ±1 from a noisy random
// hyperplane. Variables, per sample i: the hinge epigraph sᵢ and the
// support multipliers pᵢ, rᵢ ∈ ℝ²ᵈ₊ of the box [0, 1]ᵈ (1 + 4d per sample);
// shared: w ∈ ℝᵈ, b, λ (d + 2). Rows per sample: two hinge rows
// 1 ∓ yᵢ(wᵀxᵢ + b) + pᵀ(e − Cxᵢ) − [κλ] ≤ sᵢ, the dual-norm rows
// |(Cᵀp)ⱼ ± yᵢwⱼ| ≤ λ (4d), and sign constraints (1 + 4d); plus λ ≥ 0.
// Objective: ελ + (1/ns)Σsᵢ + (γ/2)‖θ − θ̂‖² on the shared θ = (w, b, λ),
// the proximal term of the federated method. All per-sample variables are
// linear (LP-like), which is what makes the problem hard for ADMM. It
// returns the problem and the KKT indices of the shared variables.
func drflQP(seed uint64, ns, d int) (*Problem, []int) {
	rng := rand.New(rand.NewPCG(seed, 13))
	const eps, kappa, gamma = 0.1, 1.0, 1.0
	nb := 1 + 4*d
	n := ns*nb + d + 2
	w0 := make([]float64, d)
	for j := range w0 {
		w0[j] = rng.NormFloat64()
	}
	sh := ns * nb
	iw, ib, il := sh, sh+d, sh+d+1
	var ar, ac []int
	var av, l, u []float64
	row := 0
	add := func(c int, v float64) {
		ar, ac, av = append(ar, row), append(ac, c), append(av, v)
	}
	end := func(lo, hi float64) {
		l, u = append(l, lo), append(u, hi)
		row++
	}
	inf := math.Inf(1)
	for i := 0; i < ns; i++ {
		x := make([]float64, d)
		var m float64
		for j := range x {
			x[j] = rng.Float64()
			m += w0[j] * (x[j] - 0.5)
		}
		y := 1.0
		if m+0.3*rng.NormFloat64() < 0 {
			y = -1
		}
		base := i * nb
		is, ip, ir := base, base+1, base+1+2*d
		// support slack e − Cx for C = [I; −I], e = [1; 0]
		slack := make([]float64, 2*d)
		for j := 0; j < d; j++ {
			slack[j], slack[d+j] = 1-x[j], x[j]
		}
		for sgn, mult := range []int{ip, ir} {
			ys := y
			if sgn == 1 {
				ys = -y
			}
			// 1 − ys(wᵀx + b) + multᵀslack − sgn·κλ − s ≤ 0
			add(is, -1)
			for j := 0; j < d; j++ {
				add(iw+j, -ys*x[j])
			}
			add(ib, -ys)
			for k := 0; k < 2*d; k++ {
				add(mult+k, slack[k])
			}
			if sgn == 1 {
				add(il, -kappa)
			}
			end(math.Inf(-1), -1)
		}
		for sgn, mult := range []int{ip, ir} {
			ys := y
			if sgn == 1 {
				ys = -y
			}
			for j := 0; j < d; j++ {
				// ±((Cᵀmult)ⱼ + ys·wⱼ) − λ ≤ 0
				for _, pm := range []float64{1, -1} {
					add(mult+j, pm)
					add(mult+d+j, -pm)
					add(iw+j, pm*ys)
					add(il, -1)
					end(math.Inf(-1), 0)
				}
			}
		}
		for k := 0; k < nb; k++ {
			add(base+k, 1)
			end(0, inf)
		}
	}
	add(il, 1)
	end(0, inf)
	A, _ := NewCSC(row, n, ar, ac, av)
	q := make([]float64, n)
	var pr, pc []int
	var pv []float64
	for i := 0; i < ns; i++ {
		q[i*nb] = 1 / float64(ns)
	}
	for j := sh; j < n; j++ {
		c := 0.1 * rng.NormFloat64() // centre θ̂ of the proximal term
		pr, pc, pv = append(pr, j), append(pc, j), append(pv, gamma)
		q[j] = -gamma * c
	}
	q[il] += eps
	P, _ := NewCSC(n, n, pr, pc, pv)
	shared := make([]int, 0, d+2)
	for j := sh; j < n; j++ {
		shared = append(shared, j)
	}
	return &Problem{P: P, Q: q, A: A, L: l, U: u}, shared
}
