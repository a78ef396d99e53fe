package qp

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// validProblem returns a small valid problem; cases below break one field.
func validProblem() *Problem {
	return &Problem{
		P: mat.NewDense(2, 2, []float64{2, 0.5, 0.5, 1}),
		Q: []float64{1, -1},
		A: mat.NewDense(2, 2, []float64{1, 1, 1, -1}),
		L: []float64{-1, -2},
		U: []float64{1, 2},
	}
}

// TestInputErrors feeds invalid input through Solve and checks for an
// *InputError naming the field, never a panic.
func TestInputErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	lowerOnly, _ := NewCSC(2, 2, []int{0, 1, 1}, []int{0, 0, 1}, []float64{2, 0.5, 1})
	tests := []struct {
		name  string
		mod   func(p *Problem, s *Settings) *Problem
		field string
	}{
		{"nil problem", func(p *Problem, s *Settings) *Problem { return nil }, "Problem"},
		{"P not square", func(p *Problem, s *Settings) *Problem { p.P = mat.NewDense(2, 3, nil); return p }, "P"},
		{"P wrong size", func(p *Problem, s *Settings) *Problem { p.P = eye(3); return p }, "P"},
		{"P not symmetric", func(p *Problem, s *Settings) *Problem {
			p.P = mat.NewDense(2, 2, []float64{2, 0.5, 0.4, 1})
			return p
		}, "P"},
		{"P CSC lower only", func(p *Problem, s *Settings) *Problem { p.P = lowerOnly; return p }, "P"},
		{"P indefinite dense", func(p *Problem, s *Settings) *Problem {
			p.P = mat.NewDense(2, 2, []float64{1, 2, 2, 1}) // eigenvalues 3, −1
			s.LinearSolver = LinearSolverDense
			return p
		}, "P"},
		{"P indefinite sparse", func(p *Problem, s *Settings) *Problem {
			p.P = mat.NewDense(2, 2, []float64{1, 2, 2, 1})
			s.LinearSolver = LinearSolverSparse
			return p
		}, "P"},
		{"P negative diagonal", func(p *Problem, s *Settings) *Problem { p.P = mat.NewDiagDense(2, []float64{1, -1e-3}); return p }, "P"},
		{"P NaN", func(p *Problem, s *Settings) *Problem { p.P = mat.NewDense(2, 2, []float64{nan, 0, 0, 1}); return p }, "P"},
		{"P Inf", func(p *Problem, s *Settings) *Problem { p.P = mat.NewDense(2, 2, []float64{1, inf, inf, 1}); return p }, "P"},
		{"P bad CSC", func(p *Problem, s *Settings) *Problem {
			p.P = &CSC{M: 2, N: 2, P: []int{0, 2, 1}, I: []int{0, 1}, X: []float64{1, 1}}
			return p
		}, "P"},
		{"Q empty", func(p *Problem, s *Settings) *Problem { return &Problem{} }, "Q"},
		{"Q NaN", func(p *Problem, s *Settings) *Problem { p.Q[1] = nan; return p }, "Q"},
		{"Q Inf", func(p *Problem, s *Settings) *Problem { p.Q[0] = -inf; return p }, "Q"},
		{"A wrong columns", func(p *Problem, s *Settings) *Problem { p.A = mat.NewDense(2, 3, nil); return p }, "A"},
		{"A NaN", func(p *Problem, s *Settings) *Problem { p.A = mat.NewDense(2, 2, []float64{1, nan, 0, 1}); return p }, "A"},
		{"A bad CSC row", func(p *Problem, s *Settings) *Problem {
			p.A = &CSC{M: 2, N: 2, P: []int{0, 1, 2}, I: []int{0, 5}, X: []float64{1, 1}}
			return p
		}, "A"},
		{"L short", func(p *Problem, s *Settings) *Problem { p.L = p.L[:1]; return p }, "L"},
		{"U long", func(p *Problem, s *Settings) *Problem { p.U = append(p.U, 1); return p }, "U"},
		{"L > U", func(p *Problem, s *Settings) *Problem { p.L[1] = 3; return p }, "L"},
		{"L NaN", func(p *Problem, s *Settings) *Problem { p.L[0] = nan; return p }, "L"},
		{"U NaN", func(p *Problem, s *Settings) *Problem { p.U[0] = nan; return p }, "U"},
		{"L +Inf", func(p *Problem, s *Settings) *Problem { p.L[0], p.U[0] = inf, inf; return p }, "L"},
		{"U −Inf", func(p *Problem, s *Settings) *Problem { p.L[0], p.U[0] = -inf, -inf; return p }, "U"},
		{"bounds without A", func(p *Problem, s *Settings) *Problem { p.A = nil; return p }, "L"},
		{"Rho zero", func(p *Problem, s *Settings) *Problem { s.Rho = 0; return p }, "Settings.Rho"},
		{"Sigma NaN", func(p *Problem, s *Settings) *Problem { s.Sigma = nan; return p }, "Settings.Sigma"},
		{"Alpha 2", func(p *Problem, s *Settings) *Problem { s.Alpha = 2; return p }, "Settings.Alpha"},
		{"EpsAbs negative", func(p *Problem, s *Settings) *Problem { s.EpsAbs = -1; return p }, "Settings.EpsAbs"},
		{"Eps both zero", func(p *Problem, s *Settings) *Problem { s.EpsAbs, s.EpsRel = 0, 0; return p }, "Settings.EpsAbs"},
		{"CheckInterval zero", func(p *Problem, s *Settings) *Problem { s.CheckInterval = 0; return p }, "Settings.CheckInterval"},
		{"MaxIterations negative", func(p *Problem, s *Settings) *Problem { s.MaxIterations = -1; return p }, "Settings.MaxIterations"},
		{"TimeLimit negative", func(p *Problem, s *Settings) *Problem { s.TimeLimit = -time.Second; return p }, "Settings.TimeLimit"},
		{"LinearSolver unknown", func(p *Problem, s *Settings) *Problem { s.LinearSolver = 7; return p }, "Settings.LinearSolver"},
		{"Ordering short", func(p *Problem, s *Settings) *Problem {
			s.LinearSolver, s.Ordering = LinearSolverSparse, []int{0, 1, 2}
			return p
		}, "Settings.Ordering"},
		{"Ordering repeated", func(p *Problem, s *Settings) *Problem {
			s.LinearSolver, s.Ordering = LinearSolverSparse, []int{0, 1, 2, 2}
			return p
		}, "Settings.Ordering"},
		{"Ordering out of range", func(p *Problem, s *Settings) *Problem {
			s.LinearSolver, s.Ordering = LinearSolverSparse, []int{0, 1, 2, 4}
			return p
		}, "Settings.Ordering"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := DefaultSettings()
			prob := tc.mod(validProblem(), set)
			res, err := Solve(context.Background(), prob, set, nil)
			checkInputError(t, err, tc.field)
			if res != nil {
				t.Errorf("result %v returned with an input error", res.Status)
			}
		})
	}
	// The unmodified problem is valid on both paths.
	for _, ls := range bothPaths {
		if res, err := Solve(context.Background(), validProblem(), settingsFor(ls), nil); err != nil || res.Status != Solved {
			t.Errorf("valid problem (%v): %v %v", ls, err, res.Status)
		}
	}
}

func checkInputError(t *testing.T, err error, field string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T), want *InputError", err, err)
	}
	if ie.Field != field {
		t.Errorf("field %q, want %q (%v)", ie.Field, field, err)
	}
	if !errors.Is(err, ErrInput) {
		t.Errorf("errors.Is(err, ErrInput) = false")
	}
	if ie.Reason == "" {
		t.Errorf("empty reason")
	}
}

// TestStartAndUpdateErrors checks the inputs of Solver.Solve and Update.
func TestStartAndUpdateErrors(t *testing.T) {
	s, err := NewSolver(validProblem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		start *Start
		field string
	}{
		{&Start{X: []float64{1}}, "Start.X"},
		{&Start{X: []float64{1, math.NaN()}}, "Start.X"},
		{&Start{Y: []float64{1, 2, 3}}, "Start.Y"},
		{&Start{Y: []float64{math.Inf(1), 0}}, "Start.Y"},
	} {
		_, err := s.Solve(ctx, tc.start)
		checkInputError(t, err, tc.field)
	}
	for _, tc := range []struct {
		q, l, u []float64
		field   string
	}{
		{q: []float64{1}, field: "Q"},
		{q: []float64{1, math.NaN()}, field: "Q"},
		{l: []float64{0}, field: "L"},
		{u: []float64{0, 0, 0}, field: "U"},
		{l: []float64{5, 5}, field: "L"}, // above the current U
		{u: []float64{math.NaN(), 1}, field: "U"},
	} {
		checkInputError(t, s.Update(tc.q, tc.l, tc.u), tc.field)
	}
	// Failed updates leave the solver unchanged.
	res, err := s.Solve(ctx, nil)
	ref, _ := Solve(ctx, validProblem(), nil, nil)
	if err != nil || res.Status != Solved || maxDiff(res.X, ref.X) != 0 {
		t.Errorf("solver changed by failed updates: %v %v %v vs %v", err, res.Status, res.X, ref.X)
	}
}

// TestNewCSCErrors checks the triplet builder's validation.
func TestNewCSCErrors(t *testing.T) {
	for _, tc := range []struct {
		m, n       int
		rows, cols []int
		vals       []float64
	}{
		{-1, 2, nil, nil, nil},
		{2, 2, []int{0}, []int{0, 1}, []float64{1}},
		{2, 2, []int{2}, []int{0}, []float64{1}},
		{2, 2, []int{0}, []int{-1}, []float64{1}},
	} {
		_, err := NewCSC(tc.m, tc.n, tc.rows, tc.cols, tc.vals)
		checkInputError(t, err, "CSC")
	}
}
