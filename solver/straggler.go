package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Straggler is a simulated clock for wall-time studies of Algorithm 1 in
// process: the time client i takes to answer a round is
//
//	T_i = s_i·PerRow·rows_i + E,  E ~ Exp(mean Tail),
//
// the shifted exponential of the straggler literature (a deterministic
// part proportional to the client's data, an exponential delay), with a
// per-client slowdown s_i = exp(Spread·Z_i), Z_i ~ N(0, 1), drawn once per
// run (devices differ). A round lasts Latency plus the slowest addressed
// client's T_i; under partial participation a round with a Deadline ends
// at Latency + Deadline, and the sampled clients slower than Deadline miss
// it (absent for that round, as if dropped) and the round lasts
// Latency + Deadline. Full rounds wait for everyone. The clock draws every client's T_i every round, in client
// order, from its own generator, so the draws do not depend on who was
// sampled and a replay sees the same times. It never touches the
// algorithm's arithmetic: without a Deadline the iterates are the run's
// without the clock, bit for bit; Stats.SimWall adds up the rounds.
type Straggler struct {
	// Rows are each client's rows (the deterministic part's scale); nil:
	// one each.
	Rows []float64
	// PerRow is the compute time per row and round, Tail the mean of the
	// exponential delay, Latency the time of one round trip (seconds).
	PerRow, Tail, Latency float64
	// Spread is σ of the log-normal per-client slowdown (0: all alike).
	Spread float64
	// Deadline, if > 0, ends each partial round at Latency + Deadline.
	Deadline float64
	// Seed and Stream seed the clock's own generator (PCG).
	Seed, Stream uint64
}

// validate checks s for n clients.
func (s *Straggler) validate(n int) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"PerRow", s.PerRow}, {"Tail", s.Tail}, {"Latency", s.Latency}, {"Spread", s.Spread}, {"Deadline", s.Deadline}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("solver: Straggler.%s = %v: must be finite and >= 0", f.name, f.v)
		}
	}
	if s.Rows != nil && len(s.Rows) != n {
		return fmt.Errorf("solver: len(Straggler.Rows) = %d, want %d clients", len(s.Rows), n)
	}
	for i, r := range s.Rows {
		if !(r >= 0) || math.IsInf(r, 0) {
			return fmt.Errorf("solver: Straggler.Rows[%d] = %v: must be finite and >= 0", i, r)
		}
	}
	return nil
}

// clock is a run's Straggler state: the slowdowns' deterministic parts and
// the times drawn for the next round.
type clock struct {
	cfg   Straggler
	base  []float64 // s_i·PerRow·rows_i
	t     []float64 // T_i of the round being sent
	rng   *rand.Rand
	drawn bool // t holds the next round's times
}

func newClock(cfg *Straggler, n int) (*clock, error) {
	if err := cfg.validate(n); err != nil {
		return nil, err
	}
	c := &clock{cfg: *cfg, base: make([]float64, n), t: make([]float64, n), rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Stream))}
	for i := range c.base {
		rows := 1.0
		if cfg.Rows != nil {
			rows = cfg.Rows[i]
		}
		c.base[i] = math.Exp(cfg.Spread*c.rng.NormFloat64()) * cfg.PerRow * rows
	}
	return c, nil
}

// draw sets the next round's times, once per round.
func (c *clock) draw() {
	if c.drawn {
		return
	}
	for i := range c.t {
		c.t[i] = c.base[i] + c.cfg.Tail*c.rng.ExpFloat64()
	}
	c.drawn = true
}

// late reports whether client i misses a partial round's deadline.
func (c *clock) late(i int) bool {
	c.draw()
	return c.cfg.Deadline > 0 && c.t[i] > c.cfg.Deadline
}

// tick ends a round and returns how long it took: the latency plus the
// slowest answering client's time (reps[i] != nil), or plus the deadline
// when the server waited for it (a sampled client was late). A client that
// failed to answer (DropProb) is known at once and holds nothing up.
func (c *clock) tick(reps []*Reply, waited bool) float64 {
	c.draw()
	slowest := 0.0
	for i, t := range c.t {
		if reps[i] != nil {
			slowest = max(slowest, t)
		}
	}
	if waited {
		slowest = c.cfg.Deadline
	}
	c.drawn = false
	return c.cfg.Latency + slowest
}
