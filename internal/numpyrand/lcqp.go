package numpyrand

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// LCQPSeed is the seed the authors pass to numpy.random.seed before
// generate_data for every (d, n, m) cell of Table 4.
const LCQPSeed = 10

// LCQPInstance is one linearly constrained QP of eq. (84), laid out as the
// authors' generate_data(d, n+1, m) returns it: blocks 0..N-1 are the
// clients and block N (the last) is the server, whose A, B and Dv are zero,
// so the server's constraint is C[N] w = 0.
type LCQPInstance struct {
	// D is the dimension of w, N the number of clients and M the number of
	// constraint rows per block.
	D, N, M int
	// A holds N+1 blocks, each D*D row-major and symmetric:
	// A_i = U_i diag(eig_i) U_iᵀ with eig_i uniform in [0.5, 1).
	A [][]float64
	// B holds N+1 vectors of length D, each of unit Euclidean norm
	// (the server's is zero).
	B [][]float64
	// C holds N+1 blocks, each M*D row-major, entries N(0, 1/D).
	C [][]float64
	// Dv holds N+1 vectors of length M, each of unit Euclidean norm
	// (the server's is zero).
	Dv [][]float64
}

// GenerateLCQP returns the instance the authors' generate_data(d, n+1, m)
// produces after numpy.random.seed(10), replicating every draw:
//
//  1. for each of the n+1 blocks i (the server's included, zeroed later):
//     eig = rand(d)*0.5 + 0.5; shuffle(list(range(d))) (result unused, but
//     it advances the stream); G = randn(d, d); A_i = U diag(eig) Uᵀ with U
//     the left singular vectors of G (independent of their signs);
//  2. b = randn(d, n+1), each column scaled to unit norm;
//  3. C = normal(0, 1/sqrt(d), (m, d, n+1)), block i being C[:, :, i];
//  4. dv = randn(m, n+1), each column scaled to unit norm;
//  5. the server block n has A, b and dv set to zero.
//
// It panics if d, n or m is not positive or if an SVD fails to converge,
// neither of which user data can cause once the sizes are validated.
func GenerateLCQP(d, n, m int) *LCQPInstance {
	if d <= 0 || n <= 0 || m <= 0 {
		panic(fmt.Sprintf("numpyrand: GenerateLCQP(%d, %d, %d): sizes must be positive", d, n, m))
	}
	r := New(LCQPSeed)
	nb := n + 1
	p := &LCQPInstance{D: d, N: n, M: m,
		A: make([][]float64, nb), B: make([][]float64, nb),
		C: make([][]float64, nb), Dv: make([][]float64, nb),
	}

	// Draw every block's eigenvalues, shuffle and Gaussian matrix in stream
	// order first; the SVDs are independent, so they run in parallel. The
	// server block's draws move the stream but its A is zeroed: no SVD.
	perm := make([]int, d)
	eigs := make([][]float64, nb)
	gs := make([]*mat.Dense, n)
	for i := 0; i < nb; i++ {
		eigs[i] = r.Rand(d)
		for k := range eigs[i] {
			eigs[i][k] = eigs[i][k]*0.5 + 0.5
		}
		for k := range perm {
			perm[k] = k
		}
		r.Shuffle(perm)
		g := mat.NewDense(d, d, nil)
		r.FillNormalDense(g)
		if i < n {
			gs[i] = g
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var svd mat.SVD
			if !svd.Factorize(gs[i], mat.SVDThinU) {
				panic("numpyrand: SVD of a Gaussian matrix did not converge")
			}
			var u mat.Dense
			svd.UTo(&u)
			p.A[i] = rotate(&u, eigs[i])
		}()
	}
	wg.Wait()
	p.A[n] = make([]float64, d*d)

	bAll := r.Randn(d * nb) // shape (d, n+1), C order
	cAll := r.Normal(0, 1/math.Sqrt(float64(d)), m*d*nb)
	dAll := r.Randn(m * nb) // shape (m, n+1), C order
	for i := 0; i < nb; i++ {
		p.B[i] = unitColumn(bAll, d, nb, i)
		p.Dv[i] = unitColumn(dAll, m, nb, i)
		ci := make([]float64, m*d)
		for k := 0; k < m; k++ {
			for j := 0; j < d; j++ {
				ci[k*d+j] = cAll[(k*d+j)*nb+i]
			}
		}
		p.C[i] = ci
	}

	clear(p.B[n])
	clear(p.Dv[n])
	return p
}

// FillNormalDense overwrites every entry of g with a standard normal value
// in C order (row by row), as numpy's randn(rows, cols).
func (r *RandomState) FillNormalDense(g *mat.Dense) {
	rows, cols := g.Dims()
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			g.Set(i, j, r.Gauss())
		}
	}
}

// rotate returns U diag(eig) Uᵀ as a row-major slice; the result does not
// depend on the signs of U's columns.
func rotate(u *mat.Dense, eig []float64) []float64 {
	d := len(eig)
	var ue mat.Dense
	ue.CloneFrom(u)
	for j, e := range eig {
		for i := 0; i < d; i++ {
			ue.Set(i, j, ue.At(i, j)*e)
		}
	}
	out := make([]float64, d*d)
	a := mat.NewDense(d, d, out)
	a.Mul(&ue, u.T())
	// Symmetrise exactly so that downstream Cholesky or symmetric solvers
	// see a symmetric matrix; the asymmetry removed is rounding only.
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			v := 0.5 * (out[i*d+j] + out[j*d+i])
			out[i*d+j], out[j*d+i] = v, v
		}
	}
	return out
}

// unitColumn returns column col of the rows×cols C-order matrix all, scaled
// to unit Euclidean norm.
func unitColumn(all []float64, rows, cols, col int) []float64 {
	v := make([]float64, rows)
	var ss float64
	for k := range v {
		v[k] = all[k*cols+col]
		ss += v[k] * v[k]
	}
	nrm := math.Sqrt(ss)
	for k := range v {
		v[k] /= nrm
	}
	return v
}

// TrialStart returns the starting point of trial t as the authors draw it:
// numpy.random.seed(t), w0 = rand(d), scaled to unit Euclidean norm. It
// panics if d is negative.
func TrialStart(t, d int) []float64 {
	w := New(uint32(t)).Rand(d)
	var ss float64
	for _, v := range w {
		ss += v * v
	}
	nrm := math.Sqrt(ss)
	for i := range w {
		w[i] /= nrm
	}
	return w
}

// ErrSingularKKT signifies that the KKT matrix of an LCQPInstance is
// numerically singular (for example, dependent constraint rows), so
// KKTOptimum has no unique answer.
var ErrSingularKKT = errors.New("numpyrand: singular KKT system")

// Objective returns f(w) = Σ_{i<N} ½ wᵀA_i w + b_iᵀw, the objective of
// eq. (84); the server block contributes nothing.
func (p *LCQPInstance) Objective(w []float64) float64 {
	d := p.D
	var f float64
	for i := 0; i < p.N; i++ {
		a, b := p.A[i], p.B[i]
		for r := 0; r < d; r++ {
			var s float64
			for c := 0; c < d; c++ {
				s += a[r*d+c] * w[c]
			}
			f += 0.5*w[r]*s + b[r]*w[r]
		}
	}
	return f
}

// KKTOptimum returns the exact minimiser w* of eq. (84) and f(w*) by one LU
// solve of the KKT system
//
//	[ Σ A_i  Cᵀ ] [w]   [ -Σ b_i ]
//	[ C      0  ] [ν] = [ -dv    ]
//
// where C stacks C_0..C_N (the server's included) and dv stacks Dv_0..Dv_N.
// It returns an error wrapping ErrSingularKKT if the system is singular.
func (p *LCQPInstance) KKTOptimum() (w []float64, f float64, err error) {
	d, nb, m := p.D, p.N+1, p.M
	size := d + nb*m
	k := mat.NewDense(size, size, nil)
	rhs := mat.NewVecDense(size, nil)
	for i := 0; i < nb; i++ {
		a, b := p.A[i], p.B[i]
		for r := 0; r < d; r++ {
			for c := 0; c < d; c++ {
				k.Set(r, c, k.At(r, c)+a[r*d+c])
			}
			rhs.SetVec(r, rhs.AtVec(r)-b[r])
		}
		for q := 0; q < m; q++ {
			row := d + i*m + q
			for c := 0; c < d; c++ {
				v := p.C[i][q*d+c]
				k.Set(row, c, v)
				k.Set(c, row, v)
			}
			rhs.SetVec(row, -p.Dv[i][q])
		}
	}
	var sol mat.VecDense
	if err := sol.SolveVec(k, rhs); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrSingularKKT, err)
	}
	w = make([]float64, d)
	for i := range w {
		w[i] = sol.AtVec(i)
	}
	return w, p.Objective(w), nil
}
