package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/solver"
)

// stragglerTimes replays the clock's draws independently: the per-client
// deterministic parts, then for each of rounds rounds every client's time.
func stragglerTimes(st solver.Straggler, n, rounds int) [][]float64 {
	rng := rand.New(rand.NewPCG(st.Seed, st.Stream))
	base := make([]float64, n)
	for i := range base {
		rows := 1.0
		if st.Rows != nil {
			rows = st.Rows[i]
		}
		base[i] = math.Exp(st.Spread*rng.NormFloat64()) * st.PerRow * rows
	}
	out := make([][]float64, rounds)
	for k := range out {
		out[k] = make([]float64, n)
		for i := range out[k] {
			out[k][i] = base[i] + st.Tail*rng.ExpFloat64()
		}
	}
	return out
}

// maskBit reports whether client i (0-based) is in round k of a hex mask
// of n clients.
func maskBit(t *testing.T, mask string, n, k, i int) bool {
	t.Helper()
	w := (n + 3) / 4
	_, has := answered(t, mask[k*w:(k+1)*w], i)
	return has
}

// TestStragglerClockOnly: without a deadline the clock only measures: the
// run is the run without it, bit for bit, and Stats.SimWall is the sum over
// rounds of the latency plus the slowest client's time, recomputed from
// the same draws.
func TestStragglerClockOnly(t *testing.T) {
	const n = 6
	q, w0 := lcqp(t, 5, 30, n, 2)
	st := solver.Straggler{Rows: []float64{10, 20, 30, 40, 50, 60}, PerRow: 0.01, Tail: 0.3, Latency: 0.05, Spread: 0.5, Seed: 3, Stream: 4}
	ref, err := solver.Solve(context.Background(), q.Problem(), w0, nil, &solver.ProxAL{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := solver.Solve(context.Background(), q.Problem(), w0, nil, &solver.ProxAL{Straggler: &st})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.W, ref.W) || !reflect.DeepEqual(res.Mu, ref.Mu) || res.Stats.Rounds != ref.Stats.Rounds || res.Participation != nil {
		t.Fatal("the clock changed the run")
	}
	var want float64
	for _, ts := range stragglerTimes(st, n, res.Stats.Rounds) {
		slowest := 0.0
		for _, x := range ts {
			slowest = max(slowest, x)
		}
		want += st.Latency + slowest
	}
	if res.Stats.SimWall != want || want <= 0 {
		t.Fatalf("SimWall = %v, recomputed %v", res.Stats.SimWall, want)
	}
	if ref.Stats.SimWall != 0 {
		t.Fatalf("SimWall = %v without a clock", ref.Stats.SimWall)
	}
}

// TestStragglerDeadline: with a deadline the sampled clients slower than it
// miss exactly the partial rounds the draws say, a round the server waited
// for lasts the deadline, and the run still ends certified with every
// client's constraint met (the full rounds hear everyone). A replay of the
// record under the same clock is the same run, SimWall included.
func TestStragglerDeadline(t *testing.T) {
	testutil.Slow(t)
	const n, eps = 6, 1e-6
	q, w0 := lcqp(t, 5, 30, n, 2)
	st := solver.Straggler{PerRow: 0.2, Tail: 0.2, Latency: 0.01, Spread: 0.3, Deadline: 0.6, Seed: 8, Stream: 1}
	for _, part := range []*solver.Participation{nil, {Fraction: 0.5, Seed: 2, Stream: 2}} {
		m := &solver.ProxAL{Straggler: &st, Participation: part}
		s := &solver.Settings{Eps1: eps, Eps2: eps}
		res, err := solver.Solve(context.Background(), q.Problem(), w0, s, m)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != solver.Converged {
			t.Fatalf("status %v, residuals %+v", res.Status, res.Residuals)
		}
		if stat, fe := kkt(q, res.W, res.Mu); stat > eps || fe > eps {
			t.Fatalf("KKT residuals recomputed from the data (%.3g, %.3g) exceed ε", stat, fe)
		}
		log := res.Participation
		if log == nil || log.PartialRounds == 0 || log.Missed == "" {
			t.Fatalf("participation %+v: no partial round missed", log)
		}
		times := stragglerTimes(st, n, res.Stats.Rounds)
		var want float64
		late := 0
		for k, ts := range times {
			slowest, waited := 0.0, false
			for i, x := range ts {
				got, missed := maskBit(t, log.Answered, n, k, i), maskBit(t, log.Missed, n, k, i)
				switch {
				case got && x > st.Deadline && missed:
					t.Fatalf("round %d: client %d both answered and missed", k+1, i+1)
				case missed && x <= st.Deadline:
					t.Fatalf("round %d: client %d took %.3g <= deadline %g and missed the round", k+1, i+1, x, st.Deadline)
				case missed:
					waited = true
					late++
				case got:
					slowest = max(slowest, x)
				}
			}
			if waited {
				slowest = st.Deadline
			}
			want += st.Latency + slowest
		}
		if math.Abs(res.Stats.SimWall-want) > 1e-9*want || late == 0 {
			t.Fatalf("SimWall = %v, recomputed %v (%d late answers)", res.Stats.SimWall, want, late)
		}
		rep, err := solver.Solve(context.Background(), q.Problem(), w0, s, &solver.ProxAL{Straggler: &st,
			Participation: &solver.Participation{Replay: log.Answered, ReplayMissed: log.Missed}})
		if err != nil {
			t.Fatal(err)
		}
		rep.Stats.Runtime, res.Stats.Runtime = 0, 0
		if !reflect.DeepEqual(rep.W, res.W) || rep.Stats != res.Stats {
			t.Fatalf("replay differs: %+v, want %+v", rep.Stats, res.Stats)
		}
		t.Logf("participation %+v: %d rounds (%d partial), %d late answers, simulated %.1f s", part, res.Stats.Rounds, log.PartialRounds, late, res.Stats.SimWall)
	}
}

// TestStragglerBadValues: out-of-range settings are errors naming the field.
func TestStragglerBadValues(t *testing.T) {
	q, w0 := lcqp(t, 5, 10, 3, 1)
	for _, st := range []solver.Straggler{{Tail: -1}, {Deadline: math.NaN()}, {PerRow: math.Inf(1)}, {Rows: []float64{1, 2}}, {Rows: []float64{1, -2, 3}}} {
		if _, err := solver.Solve(context.Background(), q.Problem(), w0, nil, &solver.ProxAL{Straggler: &st}); err == nil {
			t.Errorf("%+v: no error", st)
		}
	}
}
