package solver_test

import (
	"context"
	"math"
	"math/bits"
	"reflect"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/solver"
)

// rounds splits ParticipationLog.Answered of n clients into its rounds.
func rounds(log *solver.ParticipationLog, n int) []string {
	w := (n + 3) / 4
	var out []string
	for j := 0; j+w <= len(log.Answered); j += w {
		out = append(out, log.Answered[j:j+w])
	}
	return out
}

// answered counts the clients of one round's hex mask and reports
// whether client i (0-based) is among them.
func answered(t *testing.T, mask string, i int) (int, bool) {
	t.Helper()
	count, has := 0, false
	for j, c := range mask {
		v, err := strconv.ParseUint(string(c), 16, 8)
		if err != nil {
			t.Fatalf("mask %q: %v", mask, err)
		}
		count += bits.OnesCount64(v)
		if i/4 == j && v&(1<<(i%4)) != 0 {
			has = true
		}
	}
	return count, has
}

// TestParticipationDeterministic: the sampler draws from its own seeded
// stream on the server, so a run is the same for any worker count and
// rerun, and another seed gives other samples; without drops no round has
// fewer clients than the sample size.
func TestParticipationDeterministic(t *testing.T) {
	q, w0 := lcqp(t, 5, 30, 6, 2)
	run := func(workers int, seed uint64) *solver.Result {
		t.Helper()
		m := &solver.ProxAL{Participation: &solver.Participation{Fraction: 0.5, Seed: seed, Stream: 3}}
		res, err := solver.Solve(context.Background(), q.Problem(), w0, &solver.Settings{Workers: workers}, m)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ref := run(1, 11)
	if ref.Participation == nil || len(ref.Participation.Answered) != 2*ref.Stats.Rounds { // ⌈6/4⌉ digits a round
		t.Fatalf("participation log %+v for %d rounds", ref.Participation, ref.Stats.Rounds)
	}
	partial := 0
	for _, m := range rounds(ref.Participation, 6) {
		switch c, _ := answered(t, m, 0); {
		case c < 3: // round(0.5·6), plus any client MaxDelay adds
			t.Fatalf("a round answered by %d of 6 clients without drops", c)
		case c < 6:
			partial++
		}
	}
	if partial > ref.Participation.PartialRounds || partial == 0 || ref.Participation.RetryRounds != 0 {
		t.Fatalf("%d rounds of 3 clients, log %d partial, %d retries", partial, ref.Participation.PartialRounds, ref.Participation.RetryRounds)
	}
	for _, workers := range []int{1, 3, 8} {
		res := run(workers, 11)
		if !reflect.DeepEqual(res.W, ref.W) || !reflect.DeepEqual(res.Participation, ref.Participation) ||
			res.Stats.FloatsUp != ref.Stats.FloatsUp || res.Stats.Evaluations != ref.Stats.Evaluations {
			t.Fatalf("workers=%d: the run differs from workers=1", workers)
		}
	}
	if other := run(2, 12); reflect.DeepEqual(other.Participation.Answered, ref.Participation.Answered) {
		t.Fatal("seeds 11 and 12 drew the same participation")
	}
}

// TestParticipationFullIsThePaper: Fraction 1 without drops is the full
// round of the paper, bit for bit, with no participation log.
func TestParticipationFullIsThePaper(t *testing.T) {
	q, w0 := lcqp(t, 5, 30, 6, 2)
	var ref *solver.Result
	for _, p := range []*solver.Participation{nil, {Fraction: 1, Seed: 9}, {Seed: 9, Weights: []float64{1, 2, 3, 4, 5, 6}}} {
		res, err := solver.Solve(context.Background(), q.Problem(), w0, nil, &solver.ProxAL{Participation: p})
		if err != nil {
			t.Fatal(err)
		}
		res.Stats.Runtime = 0
		if ref == nil {
			ref = res
			continue
		}
		if res.Participation != nil || !reflect.DeepEqual(res.W, ref.W) || !reflect.DeepEqual(res.Mu, ref.Mu) ||
			res.Stats != ref.Stats || !reflect.DeepEqual(res.Trace, ref.Trace) {
			t.Fatalf("%+v: the run differs from full participation", p)
		}
	}
}

// TestParticipationLCQP: on a random QP (eq. (84)), partial participation
// with and without drops reaches the certified optimum of full
// participation: Converged, Definition 1 recomputed from the data within
// ε, and the objective within the KKT bound of the exact optimum.
func TestParticipationLCQP(t *testing.T) {
	testutil.Slow(t)
	const d, n, eps = 30, 10, 1e-6
	q, w0 := lcqp(t, 3, d, n, 2)
	wstar, nu, fstar, err := q.ExactKKT()
	if err != nil {
		t.Fatal(err)
	}
	s := &solver.Settings{Eps1: eps, Eps2: eps}
	for _, c := range []struct {
		name           string
		fraction, drop float64
	}{{"full", 1, 0}, {"half", 0.5, 0}, {"fifth", 0.2, 0}, {"half-drop0.1", 0.5, 0.1}, {"fifth-drop0.1", 0.2, 0.1}} {
		t.Run(c.name, func(t *testing.T) {
			m := &solver.ProxAL{Beta: 10, SBar: 0.1, Rho: 1,
				Participation: &solver.Participation{Fraction: c.fraction, DropProb: c.drop, Seed: 1, Stream: 2}}
			res, err := solver.Solve(context.Background(), q.Problem(), w0, s, m)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != solver.Converged {
				t.Fatalf("status %v (test %v), residuals %+v", res.Status, res.Test, res.Residuals)
			}
			st, fe := kkt(q, res.W, res.Mu)
			if st > eps || fe > eps {
				t.Fatalf("KKT residuals recomputed from the data (%.3g, %.3g) exceed ε = %g", st, fe, eps)
			}
			var muAll []float64
			for _, mi := range res.Mu {
				muAll = append(muAll, mi...)
			}
			// The bound of TestLCQPAgainstKKTSolve: convexity with residuals (st, fe).
			bound := math.Sqrt(d)*st*floats.Distance(res.W, wstar, 2) + math.Max(floats.Norm(muAll, 1), floats.Norm(nu, 1))*fe
			if gap := math.Abs(res.Objective - fstar); gap > bound*(1+1e-9)+1e-12 {
				t.Errorf("|f - f*| = %.3g exceeds the KKT bound %.3g", gap, bound)
			}
			var partial, retries int
			if p := res.Participation; p != nil {
				partial, retries = p.PartialRounds, p.RetryRounds
			}
			t.Logf("fraction %g drop %g: %d rounds (%d partial, %d retries), %d passes, %d outer",
				c.fraction, c.drop, res.Stats.Rounds, partial, retries, res.Stats.Evaluations, res.Stats.OuterIterations)
		})
	}
}

// TestParticipationAbsentClient: a client with a tiny sampling weight is
// absent from every partial round but those MaxDelay forces, yet its local
// constraint holds at the returned point: test (23) and the outer step are
// full rounds.
func TestParticipationAbsentClient(t *testing.T) {
	const n, eps = 5, 1e-6
	q, w0 := lcqp(t, 4, 20, n, 2)
	weights := []float64{1e-9, 1, 1, 1, 1} // client 1: P(sampled) ≈ 1e-9 per draw
	m := &solver.ProxAL{Beta: 10, SBar: 0.1, Rho: 1,
		Participation: &solver.Participation{Fraction: 0.4, Weights: weights, DropProb: 0.1, MaxDelay: 25, Seed: 5, Stream: 1}}
	res, err := solver.Solve(context.Background(), q.Problem(), w0, &solver.Settings{Eps1: eps, Eps2: eps}, m)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Converged {
		t.Fatalf("status %v, residuals %+v", res.Status, res.Residuals)
	}
	in, longest, run := 0, 0, 0
	for _, mask := range rounds(res.Participation, n) {
		if _, has := answered(t, mask, 0); has {
			in, run = in+1, 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	if longest < 20 {
		t.Fatalf("client 1 was absent for at most %d consecutive rounds: the test does not test absence", longest)
	}
	// Client 1's own constraint, C_1 w + d_1 = 0, from the data.
	if v := floats.Norm(res.Parties[1].C, math.Inf(1)); v > eps {
		t.Fatalf("client 1's constraint violated by %.3g > ε2 = %g", v, eps)
	}
	if _, fe := kkt(q, res.W, res.Mu); fe > eps {
		t.Fatalf("feasibility %.3g > ε2", fe)
	}
	t.Logf("client 1 answered %d of %d rounds, absent up to %d in a row", in, res.Stats.Rounds, longest)
}

// TestParticipationBadValues: out-of-range settings are errors naming the field.
func TestParticipationBadValues(t *testing.T) {
	q, w0 := lcqp(t, 5, 10, 3, 1)
	for _, p := range []solver.Participation{{Fraction: -0.1}, {Fraction: 1.5}, {Fraction: math.NaN()},
		{DropProb: 1}, {DropProb: -0.5}, {Fraction: 0.5, Weights: []float64{1, 0, 1}}, {Fraction: 0.5, Weights: []float64{1}}} {
		_, err := solver.Solve(context.Background(), q.Problem(), w0, nil, &solver.ProxAL{Participation: &p})
		if err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

// TestParticipationRuntime: Settings.Runtime stops a run with partial
// participation inside Algorithm 2 as without it (RuntimeLimit, no error),
// and the audit still hears every client: its residuals are Definition 1's
// recomputed from all the data.
func TestParticipationRuntime(t *testing.T) {
	q, w0 := lcqp(t, 4, 20, 3, 1)
	s := &solver.Settings{MaxInner: 10_000_000, Runtime: 50 * time.Millisecond}
	m := &solver.ProxAL{Rho: 1e-6, Participation: &solver.Participation{Fraction: 0.5, DropProb: 0.1, Seed: 1}}
	res, err := solver.Solve(context.Background(), q.Problem(), w0, s, m)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.RuntimeLimit {
		t.Fatalf("status %v, want RuntimeLimit", res.Status)
	}
	stat, feas := kkt(q, res.W, res.Mu)
	if math.Abs(res.Residuals.Stationarity-stat) > 1e-9 || math.Abs(res.Residuals.Feasibility-feas) > 1e-12 {
		t.Errorf("audit %+v, recomputed (%g, %g)", res.Residuals, stat, feas)
	}
	if last := rounds(res.Participation, 3); len(last) == 0 || last[len(last)-1] == "0" {
		t.Fatalf("no round recorded, or the audit's last round heard nobody: %v", res.Participation)
	}
}

// TestParticipationReplay: a run whose rounds are sent to exactly the
// clients of a recorded log (Participation.Replay, with ReplayMissed the
// clients that were sent a round and missed it) is the recorded run, bit
// for bit, drops and retries included, statistics too; a record too
// short, or not hex, is an error.
func TestParticipationReplay(t *testing.T) {
	q, w0 := lcqp(t, 5, 30, 6, 2)
	solve := func(p *solver.Participation) (*solver.Result, error) {
		return solver.Solve(context.Background(), q.Problem(), w0, nil, &solver.ProxAL{Participation: p})
	}
	ref, err := solve(&solver.Participation{Fraction: 0.5, DropProb: 0.2, Seed: 7, Stream: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ref.Participation.RetryRounds == 0 {
		t.Fatal("no retry round: the record tests less than it should")
	}
	if ref.Participation.Missed == "" || len(ref.Participation.Missed) != len(ref.Participation.Answered) {
		t.Fatalf("drops, but the record of missed rounds has %d digits", len(ref.Participation.Missed))
	}
	res, err := solve(&solver.Participation{Replay: ref.Participation.Answered, ReplayMissed: ref.Participation.Missed})
	if err != nil {
		t.Fatal(err)
	}
	res.Stats.Runtime, ref.Stats.Runtime = 0, 0
	if !reflect.DeepEqual(res.W, ref.W) || !reflect.DeepEqual(res.Mu, ref.Mu) || !reflect.DeepEqual(res.Participation, ref.Participation) ||
		res.Stats != ref.Stats || res.Status != ref.Status {
		t.Fatalf("replay differs: status %v/%v, stats %+v, want %+v", res.Status, ref.Status, res.Stats, ref.Stats)
	}
	// Without the record of missed rounds only the floats sent differ.
	res, err = solve(&solver.Participation{Replay: ref.Participation.Answered})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.W, ref.W) || res.Stats.FloatsDown >= ref.Stats.FloatsDown || res.Participation.Missed != "" {
		t.Fatalf("replay without missed rounds: floats down %d (recorded %d), missed %q", res.Stats.FloatsDown, ref.Stats.FloatsDown, res.Participation.Missed)
	}
	short := ref.Participation.Answered[:len(ref.Participation.Answered)-20]
	for _, bad := range []string{short, "x" + ref.Participation.Answered[1:], ref.Participation.Answered[1:]} {
		if _, err := solve(&solver.Participation{Replay: bad}); err == nil {
			t.Errorf("replay of a bad record (%d digits): no error", len(bad))
		}
	}
}
