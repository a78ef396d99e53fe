package qp

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// upperCSC returns the upper triangle of the symmetric p as a CSC built by
// NewCSC, zeros left out: the form the dense storage must reproduce.
func upperCSC(t testing.TB, p mat.Matrix) *CSC {
	t.Helper()
	n, _ := p.Dims()
	var r, c []int
	var v []float64
	for j := 0; j < n; j++ {
		for i := 0; i <= j; i++ {
			if x := p.At(i, j); x != 0 {
				r, c, v = append(r, i), append(c, j), append(v, x)
			}
		}
	}
	out, err := NewCSC(n, n, r, c, v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// toCSC returns the non-zeros of a as a CSC built by NewCSC.
func toCSC(t testing.TB, a mat.Matrix) *CSC {
	t.Helper()
	m, n := a.Dims()
	var r, c []int
	var v []float64
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if x := a.At(i, j); x != 0 {
				r, c, v = append(r, i), append(c, j), append(v, x)
			}
		}
	}
	out, err := NewCSC(m, n, r, c, v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// randSym returns a random symmetric n×n matrix; a fraction zero of its
// off-diagonal entries are zero.
func randSym(rng *rand.Rand, n int, zero float64) *mat.SymDense {
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if i == j || rng.Float64() >= zero {
				s.SetSym(i, j, rng.NormFloat64())
			}
		}
	}
	return s
}

// TestSymDenseMatchesCSC: the dense storage's products, Ruiz column norms
// and scaling give the same bits as the CSC of a full upper triangle, at
// sizes around minRun (where both switch to the kernels).
func TestSymDenseMatchesCSC(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 26))
	for _, n := range []int{1, 2, minRun - 1, minRun, minRun + 1, 33, 64} {
		p := randSym(rng, n, 0)
		pd, err := symDenseFrom(p, n)
		if err != nil {
			t.Fatal(err)
		}
		pc := upperCSC(t, p)
		x, d := make([]float64, n), make([]float64, n)
		for j := range x {
			x[j] = rng.NormFloat64()
			d[j] = 0.5 + rng.Float64()
		}
		yd, yc := make([]float64, n), make([]float64, n)
		pd.symMulAdd(yd, x)
		pc.symMulAdd(yc, x)
		cd, cc := make([]float64, n), make([]float64, n)
		pd.colAbsMax(cd, d)
		pc.colAbsMax(cc, d)
		pd.scale(0.7, d)
		pc.scale(0.7, d)
		for j := 0; j < n; j++ {
			if yd[j] != yc[j] || cd[j] != cc[j] {
				t.Fatalf("n = %d, j = %d: P·x %v vs %v, column norm %v vs %v", n, j, yd[j], yc[j], cd[j], cc[j])
			}
			for q := pc.P[j]; q < pc.P[j+1]; q++ {
				i := pc.I[q]
				if v := pc.X[q]; pd.a[i*n+j] != v || pd.a[j*n+i] != v {
					t.Fatalf("n = %d: scaled P[%d][%d] = %v / %v, CSC %v", n, i, j, pd.a[i*n+j], pd.a[j*n+i], v)
				}
			}
		}
		if pd.Nnz() != pc.Nnz() {
			t.Errorf("n = %d: Nnz %d, CSC %d", n, pd.Nnz(), pc.Nnz())
		}
	}
}

// TestDensePStorageOracle: on the dense path a P given as a dense matrix
// (kept in full storage) and an A given as a *mat.Dense (converted row by
// row into Aᵀ first) give the same solution as both given as CSCs: bit for
// bit when P has no zero entry (the same products in the same order), to
// 1e-9 otherwise (the CSC leaves the zeros out, which changes the
// summation order of P·x). All are checked against the KKT conditions.
func TestDensePStorageOracle(t *testing.T) {
	ctx := context.Background()
	zeroP := func(seed uint64) *Problem {
		p := denseQP(seed, 40, 10)
		rng := rand.New(rand.NewPCG(seed, 3))
		s := randSym(rng, 40, 0.6)
		// Diagonally dominant, so positive definite.
		for i := 0; i < 40; i++ {
			var r float64
			for j := 0; j < 40; j++ {
				if j != i {
					r += math.Abs(s.At(i, j))
				}
			}
			s.SetSym(i, i, r+0.1)
		}
		p.P = s
		return p
	}
	cases := []struct {
		name  string
		prob  *Problem
		exact bool
	}{
		{"dense 200", denseQP(1, 200, 50), true},
		{"dense 60", denseQP(2, 60, 20), true},
		{"dense 7", denseQP(3, 7, 3), true},
		{"zeros in P", zeroP(4), false},
	}
	for _, c := range cases {
		forms := map[string]mat.Matrix{
			"SymDense": c.prob.P,
			"Dense":    mat.DenseCopyOf(c.prob.P),
			"other":    mat.Transpose{Matrix: mat.DenseCopyOf(c.prob.P)}, // through At
		}
		ref := *c.prob
		ref.P = upperCSC(t, c.prob.P)
		ref.A = toCSC(t, c.prob.A)
		set := settingsFor(LinearSolverDense)
		want, err := Solve(ctx, &ref, set, nil)
		if err != nil || want.Status != Solved {
			t.Fatalf("%s, CSC: %v %v", c.name, err, want.Status)
		}
		for fname, P := range forms {
			p := *c.prob
			p.P = P
			s, err := NewSolver(&p, set)
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, fname, err)
			}
			if _, ok := s.P.(*symDense); !ok {
				t.Fatalf("%s, %s: P stored as %T, want *symDense", c.name, fname, s.P)
			}
			got, err := s.Solve(ctx, nil)
			if err != nil || got.Status != Solved {
				t.Fatalf("%s, %s: %v %v", c.name, fname, err, got.Status)
			}
			checkInvariants(t, &p, got)
			prim, stat, comp := kktErrors(&p, got.X, got.Y)
			if prim > 1e-7 || stat > 1e-7 || comp > 1e-7 {
				t.Errorf("%s, %s: KKT errors %g %g %g", c.name, fname, prim, stat, comp)
			}
			dx, dy := maxDiff(got.X, want.X), maxDiff(got.Y, want.Y)
			if c.exact && (dx != 0 || dy != 0 || got.Stats.Iterations != want.Stats.Iterations) {
				t.Errorf("%s, %s: differs from the CSC input: x by %g, y by %g, %d vs %d iterations",
					c.name, fname, dx, dy, got.Stats.Iterations, want.Stats.Iterations)
			}
			if dx > 1e-9 || dy > 1e-9 {
				t.Errorf("%s, %s: x differs by %g, y by %g from the CSC input", c.name, fname, dx, dy)
			}
		}
	}
}

// FuzzSymDenseFrom: the dense storage accepts exactly what upperFrom
// accepts, with the same error message, and then holds the same upper
// triangle, mirrored. The bytes give n and the entries of a Dense (not
// necessarily symmetric), a SymDense or a transposed Dense matrix, NaN and ±Inf included.
func FuzzSymDenseFrom(f *testing.F) {
	f.Add([]byte{3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{2, 1, 0xff, 0xf0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{4, 0, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 {
			return
		}
		n := int(b[0])%12 + 1
		kind := b[1] % 3
		b = b[2:]
		vals := make([]float64, n*n)
		for k := range vals {
			switch {
			case len(b) >= 8 && b[0]&1 == 1:
				vals[k] = math.Float64frombits(binary.LittleEndian.Uint64(b))
				b = b[8:]
			case len(b) >= 1:
				vals[k] = float64(int8(b[0])) / 4
				b = b[1:]
			}
		}
		var p mat.Matrix
		switch kind {
		case 0:
			p = mat.NewDense(n, n, vals)
		case 1:
			p = mat.NewSymDense(n, vals) // upper storage
		default:
			p = mat.Transpose{Matrix: mat.NewDense(n, n, vals)}
		}
		want, werr := upperFrom(p, n)
		got, gerr := symDenseFrom(p, n)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("errors differ: upperFrom %v, symDenseFrom %v", werr, gerr)
		}
		if werr != nil {
			return
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				a, c := got.a[i*n+j], want.At(min(i, j), max(i, j))
				if a != c {
					t.Fatalf("entry (%d, %d) = %v, upperFrom %v", i, j, a, c)
				}
			}
		}
	})
}

// TestOneEntryRuns: the tight loops over runs of one-entry columns give
// the same bits as the general loops (the runs switched off), on matrices
// mixing runs of every length around minOneRun with full, empty and
// scattered columns, x with zeros.
func TestOneEntryRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	for trial := 0; trial < 20; trial++ {
		m := 1 + rng.IntN(40)
		var r, c []int
		var v []float64
		n := 0
		for n < 120 {
			switch k := rng.IntN(4); k {
			case 0: // a run of one-entry columns
				for l := rng.IntN(2 * minOneRun); l > 0; l-- {
					r, c, v = append(r, rng.IntN(m)), append(c, n), append(v, rng.NormFloat64())
					n++
				}
			case 1: // a full column
				for i := 0; i < m; i++ {
					r, c, v = append(r, i), append(c, n), append(v, rng.NormFloat64())
				}
				n++
			case 2: // empty
				n++
			default: // scattered
				for i := 0; i < m; i++ {
					if rng.IntN(3) == 0 {
						r, c, v = append(r, i), append(c, n), append(v, rng.NormFloat64())
					}
				}
				n++
			}
		}
		a, err := NewCSC(m, n, r, c, v)
		if err != nil {
			t.Fatal(err)
		}
		if trial == 0 && len(a.oneEntryRuns()) == 0 {
			t.Fatal("no run of one-entry columns to test")
		}
		b := a.clone()
		b.oneRuns = []int{} // general loops only
		xn, xm := make([]float64, n), make([]float64, m)
		for j := range xn {
			if rng.IntN(4) > 0 {
				xn[j] = rng.NormFloat64()
			}
		}
		for i := range xm {
			xm[i] = rng.NormFloat64()
		}
		ya, yb := make([]float64, m), make([]float64, m)
		a.mulAdd(ya, xn)
		b.mulAdd(yb, xn)
		za, zb := make([]float64, n), make([]float64, n)
		for j := range za {
			za[j] = rng.NormFloat64()
			zb[j] = za[j]
		}
		a.mulTAdd(za, xm)
		b.mulTAdd(zb, xm)
		for i := range ya {
			if math.Float64bits(ya[i]) != math.Float64bits(yb[i]) {
				t.Fatalf("trial %d: (A x)[%d] = %v, general loop %v", trial, i, ya[i], yb[i])
			}
		}
		for j := range za {
			if math.Float64bits(za[j]) != math.Float64bits(zb[j]) {
				t.Fatalf("trial %d: (Aᵀx)[%d] = %v, general loop %v", trial, j, za[j], zb[j])
			}
		}
	}
}
