package solver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/solver"
)

// TestNodeStateRestore: a node restored from another's state answers the
// next broadcast bit for bit as that node does; malformed states are errors.
func TestNodeStateRestore(t *testing.T) {
	const d = 6
	party := &meanSq{a: []float64{1, -2, 3, 0.5, -1, 2}, n: 2, box: &boxParty{sign: 1, bound: 1}}
	m := &solver.ProxAL{Beta: 10, Rho: 0.5}
	cfg, err := m.ClientConfig(1, 2, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Parties != 3 || cfg.Beta != 10 || cfg.Rho != 0.5 || cfg.MaxIter != solver.DefaultMaxInner || cfg.Dim != d {
		t.Fatalf("ClientConfig = %+v: want the values Solve uses", cfg)
	}
	if _, err := m.ClientConfig(2, 2, d, nil); err == nil {
		t.Error("client index 2 of 2 accepted")
	}
	a, err := solver.NewClientNode(party, cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	steps := []*solver.Broadcast{{Kind: solver.MsgStart, W: w}, {Kind: solver.MsgADMM, W: w, Eps: 0.5, NeedEpsTilde: true, RhoScale: 2},
		{Kind: solver.MsgOuter, W: w}}
	for _, b := range steps {
		if _, err := a.Handle(b); err != nil {
			t.Fatal(err)
		}
	}
	b, err := solver.NewClientNode(party, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := a.State()
	if err := b.Restore(st); err != nil {
		t.Fatal(err)
	}
	next := &solver.Broadcast{Kind: solver.MsgADMM, W: []float64{0.2, 0, 0.1, 0.3, 0.9, 1}, Eps: 0.1, NeedEpsTilde: true, RhoScale: 0.5}
	// An ADMM reply answers with ũ_i, ε̃_i, the primal residual and the
	// local cost; the restored node also counts the passes the original
	// counts (its cached evaluations' points are in the state).
	answer := func(r *solver.Reply) string {
		return fmt.Sprintf("%v %v %v %v %v evals %d", r.UTilde, r.EpsTilde, r.Primal, r.Iterations, r.Missed, r.Evals)
	}
	ra, err := a.Handle(next)
	if err != nil {
		t.Fatal(err)
	}
	got := answer(ra)
	rb, err := b.Handle(next)
	if err != nil {
		t.Fatal(err)
	}
	if want := answer(rb); got != want {
		t.Errorf("restored node answers %s, the original %s", want, got)
	}
	for _, tc := range []struct {
		name string
		edit func(s *solver.NodeState)
		want string
	}{
		{"short mu", func(s *solver.NodeState) { s.Mu = s.Mu[:1] }, "μ_i has length 1"},
		{"short u", func(s *solver.NodeState) { s.U = s.U[:2] }, "lengths"},
		{"rho", func(s *solver.NodeState) { s.Rho = 0 }, "ρ_i = 0"},
		{"newton factor for L-BFGS", func(s *solver.NodeState) { s.NewtonFactor = make([]float64, d*d) }, "Newton factor"},
		{"short cached point", func(s *solver.NodeState) { s.Cached[1].W = []float64{1} }, "cached evaluation point of length 1"},
	} {
		s := a.State()
		tc.edit(&s)
		if err := b.Restore(s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
