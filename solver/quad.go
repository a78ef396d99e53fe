package solver

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/fedcon/fedcon/internal/kernels"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// QuadCache shares the factorisations of exact quadratic subproblems across
// Solve calls — e.g. the trials of one instance, which differ only in w0. The
// subproblem matrix H = Σ_j (Q_j + βC_jᵀC_j) + αI depends on the parties, β and
// the proximal weight α only, never on the iterate or the multipliers, so one
// factorisation serves every inner and outer iteration of every trial. Safe
// for concurrent use; the zero value is not (use NewQuadCache).
type QuadCache struct {
	mu sync.Mutex
	m  map[string]*quadEntry
}

type quadEntry struct {
	once sync.Once
	f    *quadFactor
	err  error
}

// NewQuadCache returns an empty cache.
func NewQuadCache() *QuadCache { return &QuadCache{m: map[string]*quadEntry{}} }

// Len returns the number of cached factorisations.
func (c *QuadCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// quadFactor holds H⁻¹ for the exact minimiser u = -H⁻¹ g(0). An explicit
// inverse makes each solve one matrix-vector product: at d = 500 that was
// 7x faster than two triangular solves with the Cholesky factor (see
// BenchmarkQuadKernels).
type quadFactor struct {
	d    int
	hinv blas64.General // full storage, for kernels.Gemv

	// Mixed precision for inexact solves (eq. (19) asks only ||∇φ||∞ ≤ ε_{t+1}):
	// u = -P₃₂·fl₃₂(g) with P₃₂ = fl₃₂(H⁻¹) and float64 accumulation reads half
	// the bytes of hinv, and at d = 500 ten clients' P₃₂ fit the cache where
	// their float64 inverses do not. Its residual obeys ||Hu + g||∞ ≤ cert·||g||∞
	// (certBound), so solveTol uses it only where that bound meets the tolerance.
	p32  []float32
	cert float64

	// Low-rank form, used when no party has a Q (the server of eq. (84)):
	// H = αI + βCᵀC with C the stacked constraint rows (m × d), so by
	// Woodbury H⁻¹g = (g - βCᵀK Cg)/α with K = (αI_m + βCCᵀ)⁻¹: O(md), not O(d²).
	lowRank bool
	alpha   float64
	beta    float64
	c       blas64.General // m × d
	k       blas64.General // m × m
	cg, kcg []float64
}

// isQuadratic reports whether every merit's party is quadratic with an
// equality (or no) constraint, so that the subproblem is an unconstrained QP.
func isQuadratic(ms []*merit) bool {
	for _, m := range ms {
		if m.party == nil {
			continue
		}
		if _, ok := m.party.(QuadraticParty); !ok {
			return false
		}
		switch m.cone.(type) {
		case nil, Zero:
		default:
			return false
		}
	}
	return true
}

// quadKey identifies H by its parties, β and α.
func quadKey(ms []*merit, beta, alpha float64) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%p,", m.party)
	}
	fmt.Fprintf(&b, "%x,%x", beta, alpha)
	return b.String()
}

// factor returns the factorisation for the merits with total proximal weight
// alpha (Σ prox_j + σ), from the cache when c is non-nil.
func (c *QuadCache) factor(ms []*merit, d int, beta, alpha float64) (*quadFactor, error) {
	if c == nil {
		return buildQuad(ms, d, beta, alpha)
	}
	key := quadKey(ms, beta, alpha)
	c.mu.Lock()
	e, ok := c.m[key]
	if !ok {
		e = &quadEntry{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.f, e.err = buildQuad(ms, d, beta, alpha) })
	return e.f, e.err
}

func buildQuad(ms []*merit, d int, beta, alpha float64) (*quadFactor, error) {
	if f, ok := buildLowRank(ms, d, beta, alpha); ok {
		return f, nil
	}
	h := mat.NewSymDense(d, nil)
	var cc mat.SymDense
	for _, m := range ms {
		if m.party == nil {
			continue
		}
		Q, _, C, _ := m.party.(QuadraticParty).Quadratic()
		if Q != nil {
			h.AddSym(h, Q)
		}
		if C != nil && m.m > 0 {
			cc.SymOuterK(beta, C.T()) // βCᵀC
			h.AddSym(h, &cc)
		}
	}
	for j := 0; j < d; j++ {
		h.SetSym(j, j, h.At(j, j)+alpha)
	}
	var chol mat.Cholesky
	if ok := chol.Factorize(h); !ok {
		return nil, fmt.Errorf("solver: quadratic subproblem matrix is not positive definite (a party's Q is not PSD?)")
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("solver: invert subproblem matrix: %w", err)
	}
	full := mat.DenseCopyOf(&inv)
	f := &quadFactor{d: d, hinv: full.RawMatrix()}
	if d >= mixedMinDim {
		f.p32, f.cert = certBound(h, full)
	}
	return f, nil
}

// mixedMinDim is the dimension from which the float32 inverse pays: below it
// the float64 inverse stays in cache anyway.
const mixedMinDim = 200

// certBound rounds P = H⁻¹ to float32 and returns it with cert such that
// u = -fl(P₃₂·fl₃₂(g)), summed in float64, has ||Hu + g||∞ ≤ cert·||g||∞:
// Hu + g = (I - HP)g - HΔP·g - HP₃₂δ₂ - Hδ₁ with ΔP = P₃₂ - P (known),
// |δ₂| ≤ 2⁻²⁴|g| (rounding g) and |δ₁| ≤ γ_d|P₃₂||g₃₂| (float64 dot products,
// γ_d = d·2⁻⁵³/(1 - d·2⁻⁵³)). The exact path rests on ||I - HP||∞ being
// negligible too; here it is bounded by 4·d·2⁻⁵³·||H||∞||P||∞, the textbook
// residual of a Cholesky-based inverse (Higham, Accuracy and Stability, §14.3).
// All terms are O(d²) to compute; the whole is doubled for safety.
func certBound(h *mat.SymDense, p *mat.Dense) ([]float32, float64) {
	d, _ := p.Dims()
	p32 := make([]float32, d*d)
	raw := p.RawMatrix()
	var hn, pn, dpn, p32n float64
	for i := 0; i < d; i++ {
		var rh, rp, rdp, rp32 float64
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		for j, x := range row {
			v := float32(x)
			p32[i*d+j] = v
			rp += math.Abs(x)
			rp32 += math.Abs(float64(v))
			rdp += math.Abs(float64(v) - x)
			rh += math.Abs(h.At(i, j))
		}
		hn, pn, dpn, p32n = max(hn, rh), max(pn, rp), max(dpn, rdp), max(p32n, rp32)
	}
	u := 0x1p-53 * float64(d)
	gamma := u / (1 - u)
	return p32, 2 * (4*u*hn*pn + hn*dpn + (0x1p-24+gamma)*(1+0x1p-24)*hn*p32n)
}

// buildLowRank builds the Woodbury form when no party has a quadratic Q.
func buildLowRank(ms []*merit, d int, beta, alpha float64) (*quadFactor, bool) {
	var rows [][]float64
	for _, m := range ms {
		if m.party == nil {
			continue
		}
		Q, _, C, _ := m.party.(QuadraticParty).Quadratic()
		if Q != nil {
			return nil, false
		}
		if C != nil && m.m > 0 {
			for j := 0; j < m.m; j++ {
				rows = append(rows, C.RawRowView(j))
			}
		}
	}
	mr := len(rows)
	if mr == 0 || mr*4 > d {
		return nil, false // the dense form is as cheap
	}
	c := mat.NewDense(mr, d, nil)
	for j, r := range rows {
		c.SetRow(j, r)
	}
	var kk mat.SymDense
	kk.SymOuterK(beta, c) // βCCᵀ
	for j := 0; j < mr; j++ {
		kk.SetSym(j, j, kk.At(j, j)+alpha)
	}
	var ch mat.Cholesky
	if !ch.Factorize(&kk) {
		return nil, false
	}
	var kinv mat.SymDense
	if ch.InverseTo(&kinv) != nil {
		return nil, false
	}
	return &quadFactor{d: d, lowRank: true, alpha: alpha, beta: beta,
		c: c.RawMatrix(), k: mat.DenseCopyOf(&kinv).RawMatrix()}, true
}

// quadLinear writes g(0) = Σ_j (q_j + C_jᵀ(μ_j + βd_j) - prox_j·center_j) - σz,
// the gradient of the subproblem at u = 0, into g.
func quadLinear(g []float64, s *subproblem) {
	clear(g)
	for _, m := range s.merits {
		if m.prox != 0 {
			for j := range g {
				g[j] -= m.prox * m.center[j]
			}
		}
		if m.party == nil {
			continue
		}
		_, q, C, dv := m.party.(QuadraticParty).Quadratic()
		if q != nil {
			for j := range g {
				g[j] += q[j]
			}
		}
		if C != nil && m.m > 0 {
			for j := range m.y {
				m.y[j] = m.mu[j] + m.beta*dv[j]
			}
			raw := C.RawMatrix()
			blas64.Gemv(blas.Trans, 1, raw, blas64.Vector{N: m.m, Inc: 1, Data: m.y}, 1, blas64.Vector{N: len(g), Inc: 1, Data: g})
		}
	}
	if s.sigma != 0 {
		for j := range g {
			g[j] -= s.sigma * s.z[j]
		}
	}
}

// solveTol writes into u a minimiser of s to ||∇φ(u)||∞ ≤ tol: the
// mixed-precision product when its certificate allows, else the exact solve.
// It reports whether it used the mixed-precision product.
func (f *quadFactor) solveTol(u, g []float64, s *subproblem, tol float64) bool {
	if f.p32 == nil || !(tol > 0) {
		f.solve(u, g, s)
		return false
	}
	quadLinear(g, s)
	var gn float64
	for _, x := range g {
		gn = max(gn, math.Abs(x))
	}
	if f.cert*gn > tol {
		f.solveLinear(u, g, s)
		return false
	}
	if len(s.g32) < f.d {
		s.g32 = make([]float64, f.d)
	}
	g32 := s.g32[:f.d]
	for j, x := range g {
		g32[j] = float64(float32(x))
	}
	// Exact products of float32 values, summed in float64 (δ₁ above holds
	// for any summation order).
	for i := range u {
		u[i] = -kernels.DotF32(f.p32[i*f.d:(i+1)*f.d], g32)
	}
	return true
}

// solve writes the exact minimiser of s into u; g is scratch of length d.
func (f *quadFactor) solve(u, g []float64, s *subproblem) {
	quadLinear(g, s)
	f.solveLinear(u, g, s)
}

// solveLinear writes -H⁻¹g into u.
func (f *quadFactor) solveLinear(u, g []float64, s *subproblem) {
	if f.lowRank {
		mr := f.c.Rows
		if len(s.small) < 2*mr {
			s.small = make([]float64, 2*mr)
		}
		cg := blas64.Vector{N: mr, Inc: 1, Data: s.small[:mr]}
		kcg := blas64.Vector{N: mr, Inc: 1, Data: s.small[mr : 2*mr]}
		blas64.Gemv(blas.NoTrans, 1, f.c, blas64.Vector{N: f.d, Inc: 1, Data: g}, 0, cg)
		blas64.Gemv(blas.NoTrans, 1, f.k, cg, 0, kcg)
		copy(u, g)
		blas64.Gemv(blas.Trans, -f.beta, f.c, kcg, 1, blas64.Vector{N: f.d, Inc: 1, Data: u})
		for j := range u {
			u[j] /= -f.alpha
		}
		return
	}
	clear(u[:f.d])
	kernels.Gemv(-1, f.hinv.Data, f.hinv.Stride, g[:f.d], u[:f.d])
}

// subAlpha is the total proximal weight Σ prox_j + σ of s.
func subAlpha(s *subproblem) float64 {
	a := s.sigma
	for _, m := range s.merits {
		a += m.prox
	}
	return a
}
