package qp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomKKT returns the data of a random quasi-definite KKT matrix
// [P+σI, Aᵀ; A, −diag(1/ρ)] with sparse A and P.
func randomKKT(rng *rand.Rand, n, m int, density float64) (P, A *CSC, rho []float64) {
	var pr, pc []int
	var pv []float64
	for j := 0; j < n; j++ {
		pr, pc, pv = append(pr, j), append(pc, j), append(pv, 1+rng.Float64())
		for i := 0; i < j; i++ {
			if rng.Float64() < density {
				pr, pc, pv = append(pr, i), append(pc, j), append(pv, 0.1*rng.NormFloat64())
			}
		}
	}
	P = fromTriplets(n, n, pr, pc, pv)
	var ar, ac []int
	var av []float64
	for i := 0; i < m; i++ {
		ar, ac, av = append(ar, i), append(ac, rng.IntN(n)), append(av, 1)
		for j := 0; j < n; j++ {
			if rng.Float64() < density {
				ar, ac, av = append(ar, i), append(ac, j), append(av, rng.NormFloat64())
			}
		}
	}
	A = fromTriplets(m, n, ar, ac, av)
	rho = make([]float64, m)
	for i := range rho {
		rho[i] = math.Pow(10, 3*rng.Float64()-1)
	}
	return P, A, rho
}

// denseKKTMatrix builds the same KKT matrix densely, as the oracle.
func denseKKTMatrix(P, A *CSC, sigma float64, rho []float64) *mat.Dense {
	n, m := P.N, A.M
	K := mat.NewDense(n+m, n+m, nil)
	for j := 0; j < n; j++ {
		for p := P.P[j]; p < P.P[j+1]; p++ {
			i := P.I[p]
			K.Set(i, j, K.At(i, j)+P.X[p])
			if i != j {
				K.Set(j, i, K.At(j, i)+P.X[p])
			}
		}
		K.Set(j, j, K.At(j, j)+sigma)
		for p := A.P[j]; p < A.P[j+1]; p++ {
			K.Set(n+A.I[p], j, A.X[p])
			K.Set(j, n+A.I[p], A.X[p])
		}
	}
	for i := 0; i < m; i++ {
		K.Set(n+i, n+i, -1/rho[i])
	}
	return K
}

// TestLDLSolve checks the sparse LDLᵀ against gonum's dense LU on random
// quasi-definite systems, under the natural, a random, the automatic and an
// arrow ordering, and checks the inertia (n positive pivots).
func TestLDLSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for k := 0; k < 20; k++ {
		n, m := 5+rng.IntN(30), 3+rng.IntN(30)
		P, A, rho := randomKKT(rng, n, m, 0.1)
		N := n + m
		K := denseKKTMatrix(P, A, 1e-6, rho)
		b := make([]float64, N)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		var want mat.VecDense
		if err := want.SolveVec(K, mat.NewVecDense(N, b)); err != nil {
			t.Fatal(err)
		}
		natural := make([]int, N)
		for i := range natural {
			natural[i] = i
		}
		shared := []int{0, n}
		arrow := append(minDegree(kktGraph(P, A), boolSet(N, shared)), shared...)
		for name, perm := range map[string][]int{
			"natural": natural,
			"random":  rng.Perm(N),
			"auto":    autoOrdering(P, A),
			"arrow":   arrow,
		} {
			if err := checkPermutation(perm, N); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			kk := newSparseKKT(P, A, 1e-6, rho, perm)
			if !kk.setRho(rho) {
				t.Fatalf("%s: factorisation failed or wrong inertia", name)
			}
			// Evaluate the solve through step's layout: solve b directly.
			x := make([]float64, N)
			for pos, idx := range kk.loc {
				x[pos] = b[idx]
			}
			kk.f.solve(x)
			got := make([]float64, N)
			for pos, idx := range kk.loc {
				got[idx] = x[pos]
			}
			// The matrix has condition number up to ~1e3·(1 + ‖A‖²) for ρ
			// in [0.1, 100]; a backward-stable factorisation gives relative
			// errors ~1e-16·cond, and 1e-9 relative leaves a wide margin.
			scale := mat.Norm(&want, math.Inf(1))
			if d := maxDiff(got, want.RawVector().Data); d > 1e-9*scale {
				t.Errorf("case %d, %s ordering: error %g (scale %g)", k, name, d, scale)
			}
		}
	}
}

func boolSet(n int, idx []int) []bool {
	b := make([]bool, n)
	for _, i := range idx {
		b[i] = true
	}
	return b
}

// TestOrderings checks that the orderings are permutations, that
// ArrowOrdering puts the shared indices last in the given order, and that
// on a block problem the arrow and automatic orderings keep the fill of the
// factor far below that of a dense factor.
func TestOrderings(t *testing.T) {
	prob, shared := drflQP(1, 12, 5)
	n, m := len(prob.Q), len(prob.L)
	N := n + m
	arrow, err := ArrowOrdering(prob, shared)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPermutation(arrow, N); err != nil {
		t.Fatal(err)
	}
	for k, v := range shared {
		if arrow[N-len(shared)+k] != v {
			t.Fatalf("shared index %d not at position %d", v, N-len(shared)+k)
		}
	}
	d, _ := newData(prob)
	auto := autoOrdering(d.P, d.A)
	if err := checkPermutation(auto, N); err != nil {
		t.Fatal(err)
	}
	rho := make([]float64, m)
	for i := range rho {
		rho[i] = 1
	}
	for name, perm := range map[string][]int{"arrow": arrow, "auto": auto} {
		kk := newSparseKKT(d.P, d.A, 1e-6, rho, perm)
		// Arrow structure: each block fills within itself (at most
		// (1+4d)+(8d+3) ≈ 70 indices here) and towards the d+2 shared
		// indices, so nnz(L) ≤ N·(70+d+2); a dense factor has N²/2.
		if nz := kk.f.nnz(); nz > N*(70+len(shared)) {
			t.Errorf("%s ordering: nnz(L) = %d, more than the arrow bound %d", name, nz, N*(70+len(shared)))
		}
	}
	for _, bad := range [][]int{{-1}, {N}, {shared[0], shared[0]}} {
		_, err := ArrowOrdering(prob, bad)
		checkInputError(t, err, "shared")
	}
	if _, err := ArrowOrdering(nil, nil); err == nil {
		t.Error("nil problem accepted")
	}
}

// TestCSC checks NewCSC (sorting, duplicate summation), At and the
// products used by the solver against dense arithmetic.
func TestCSC(t *testing.T) {
	c, err := NewCSC(3, 2, []int{2, 0, 2, 1}, []int{0, 0, 0, 1}, []float64{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 2, []float64{2, 0, 0, 4, 4, 0})
	if !mat.Equal(c, want) {
		t.Errorf("NewCSC = %v, want %v", mat.Formatted(c), mat.Formatted(want))
	}
	if c.Nnz() != 3 || !mat.Equal(c.T(), want.T()) {
		t.Errorf("Nnz %d or transpose wrong", c.Nnz())
	}
	if !mat.Equal(c.transpose(), want.T()) {
		t.Errorf("transpose wrong")
	}
	x := []float64{1, -2}
	y := make([]float64, 3)
	c.mulAdd(y, x)
	var ref mat.VecDense
	ref.MulVec(want, mat.NewVecDense(2, x))
	if maxDiff(y, ref.RawVector().Data) != 0 {
		t.Errorf("mulAdd = %v", y)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("At out of range did not panic (mat.Matrix contract)")
			}
		}()
		c.At(3, 0)
	}()
}
