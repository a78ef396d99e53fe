package solver

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Party is one participant's smooth data in eq. (5): an objective f_i and a
// constraint c_i(w) ∈ -K_i. The server is a Party whose objective is zero.
// Implementations must be safe for concurrent Eval calls on distinct buffers
// (clients of different trials share a Party).
type Party interface {
	// Cone returns K_i, or nil when the party has no constraint.
	Cone() Cone
	// Eval returns f(w) and, in one pass over the party's data, writes
	// ∇f(w) into grad (if non-nil), c(w) into c (length Cone().Dim()) and the
	// constraint Jacobian, row-major m×d (row j = ∇c_j(w)ᵀ), into jac (if
	// non-nil). It must not retain w, and its results must depend on w alone
	// (the solvers reuse an evaluation at an identical point). Designed for
	// few constraints (m ≪ d).
	Eval(w, grad, c, jac []float64) float64
}

// Sized is a Party that says how many data rows it holds: its weight
// under weighted participation (Participation.Weights).
type Sized interface {
	Rows() int
}

// PartyRows is p's rows when p is Sized, else 1 (one block of data, as a
// client of the random QP).
func PartyRows(p Party) int {
	if s, ok := p.(Sized); ok {
		return s.Rows()
	}
	return 1
}

// QuadraticParty is a Party with f(w) = ½wᵀQw + qᵀw and c(w) = Cw + d. When
// every party of a (sub)problem is quadratic with a Zero cone (or none), the
// subproblems (18), (19) and Algorithm 3's are solved exactly.
type QuadraticParty interface {
	Party
	// Quadratic returns the data; Q and C may be nil (zero). Callers must not
	// modify them.
	Quadratic() (Q *mat.SymDense, q []float64, C *mat.Dense, d []float64)
}

// Problem is eq. (5) with h = 0: n clients and a server, all on R^Dim.
type Problem struct {
	// Dim is the dimension d of w.
	Dim int
	// Server holds the global constraint c_0 (and its data); nil for none.
	// Its objective must be zero.
	Server Party
	// Clients are the n local parties (f_i, c_i).
	Clients []Party
}

// party returns party i in the paper's numbering: 0 is the server, 1..n the clients.
func (p *Problem) party(i int) Party {
	if i == 0 {
		return p.Server
	}
	return p.Clients[i-1]
}

// validate checks the problem's shape.
func (p *Problem) validate(w0 []float64) error {
	if p.Dim < 1 {
		return fmt.Errorf("solver: problem dimension %d < 1", p.Dim)
	}
	if len(p.Clients) == 0 {
		return fmt.Errorf("solver: problem has no clients")
	}
	for i, c := range p.Clients {
		if c == nil {
			return fmt.Errorf("solver: client %d is nil", i+1)
		}
	}
	if len(w0) != p.Dim {
		return fmt.Errorf("solver: len(w0) = %d, want dimension %d", len(w0), p.Dim)
	}
	return nil
}
