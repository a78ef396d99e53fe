package proxal

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

// ParticipationConfig holds the keys of partial participation in Algorithm
// 2's rounds (solver.Participation, docs/participation.md). Unset, they are
// full participation, the paper, and are omitted from hashes, so the
// paper's configurations keep their trial files.
type ParticipationConfig struct {
	// Participation is the fraction ∈ (0, 1] of clients sampled per ADMM
	// round; unset (nil) or 1: every client.
	Participation *float64 `mapstructure:"participation" json:"participation,omitempty"`
	// ParticipationSampling is uniform (also when empty; without
	// replacement) or weighted (by each client's rows).
	ParticipationSampling Sampling `mapstructure:"participation_sampling" json:"participation_sampling,omitempty"`
	// DropProb ∈ [0, 1) is the probability that an addressed client fails
	// to answer a round, per client and round.
	DropProb float64 `mapstructure:"drop_prob" json:"drop_prob,omitempty"`
	// MaxDelay bounds staleness in rounds: a client that has not answered
	// for that many rounds joins the next sample (0: the solver's default,
	// solver.DefaultMaxDelay·⌈n/m⌉).
	MaxDelay int `mapstructure:"max_delay" json:"max_delay,omitempty"`
	// The straggler model (solver.Straggler): a simulated clock, seconds.
	// A client's time in a round is s_i·straggler_per_row·rows_i plus an
	// exponential delay of mean straggler_tail, s_i log-normal of σ =
	// straggler_spread; a round adds straggler_latency. With
	// straggler_deadline > 0 the sampled clients slower than it miss the
	// round. All zero: no clock.
	StragglerPerRow   float64 `mapstructure:"straggler_per_row" json:"straggler_per_row,omitempty"`
	StragglerTail     float64 `mapstructure:"straggler_tail" json:"straggler_tail,omitempty"`
	StragglerSpread   float64 `mapstructure:"straggler_spread" json:"straggler_spread,omitempty"`
	StragglerLatency  float64 `mapstructure:"straggler_latency" json:"straggler_latency,omitempty"`
	StragglerDeadline float64 `mapstructure:"straggler_deadline" json:"straggler_deadline,omitempty"`
	// Replay, if set, is a recorded participation (a served run's or a
	// trial's ParticipationLog.Answered) that trial ReplayTrial reruns
	// instead of sampling (solver.Participation.Replay; run --replay).
	Replay      string `mapstructure:"-" json:"replay,omitempty"`
	ReplayTrial int    `mapstructure:"-" json:"replay_trial,omitempty"`
	// ReplayMissed is the record's clients that were sent a round and
	// missed it (ParticipationLog.Missed), counted in the floats sent.
	ReplayMissed string `mapstructure:"-" json:"replay_missed,omitempty"`
}

// ValidateParticipation checks the keys and normalises full participation
// (participation 1, uniform) to unset, so that it hashes as the paper.
func (c *ParticipationConfig) ValidateParticipation() error {
	if p := c.Participation; p != nil {
		if !(*p > 0 && *p <= 1) {
			return &experiments.ConfigError{Field: "participation", Value: *p, Reason: "must be in (0, 1] (the fraction of clients per round; 1: all)"}
		}
	}
	switch {
	case c.ParticipationSampling != "" && c.ParticipationSampling != "uniform" && c.ParticipationSampling != "weighted":
		return &experiments.ConfigError{Field: "participation_sampling", Value: c.ParticipationSampling, Reason: "must be uniform or weighted (by rows)"}
	case !(c.DropProb >= 0 && c.DropProb < 1):
		return &experiments.ConfigError{Field: "drop_prob", Value: c.DropProb, Reason: "must be in [0, 1)"}
	}
	if c.MaxDelay < 0 {
		return &experiments.ConfigError{Field: "max_delay", Value: c.MaxDelay, Reason: "must be >= 0 (rounds; 0: the default, four times the mean gap between a client's rounds)"}
	}
	for _, k := range []struct {
		key string
		v   float64
	}{{"straggler_per_row", c.StragglerPerRow}, {"straggler_tail", c.StragglerTail}, {"straggler_spread", c.StragglerSpread},
		{"straggler_latency", c.StragglerLatency}, {"straggler_deadline", c.StragglerDeadline}} {
		if !(k.v >= 0) || math.IsInf(k.v, 0) {
			return &experiments.ConfigError{Field: k.key, Value: k.v, Reason: "must be finite and >= 0 (seconds of the simulated clock; docs/participation.md)"}
		}
	}
	if c.StragglerDeadline > 0 && c.StragglerPerRow == 0 && c.StragglerTail == 0 {
		return &experiments.ConfigError{Field: "straggler_deadline", Value: c.StragglerDeadline, Reason: "needs a compute time (straggler_per_row or straggler_tail > 0): no client could be late"}
	}
	if c.Participation != nil && *c.Participation == 1 {
		c.Participation = nil
	}
	if c.Participation == nil || c.ParticipationSampling == "uniform" {
		c.ParticipationSampling = ""
	}
	return nil
}

// Partial reports whether any client may be absent from a round.
func (c *ParticipationConfig) Partial() bool {
	return c.Participation != nil || c.DropProb != 0 || c.Replay != "" || c.StragglerDeadline > 0
}

// Clocked reports whether the run keeps the straggler model's clock.
func (c *ParticipationConfig) Clocked() bool {
	return c.StragglerPerRow > 0 || c.StragglerTail > 0 || c.StragglerLatency > 0
}

// StragglerStream is the PCG stream of trial t's straggler clock, apart
// from the participation draws.
func StragglerStream(t int) uint64 { return 0x7374<<48 | uint64(t) }

// StragglerFor is trial t's solver.Straggler under seed, rows being each
// client's rows; nil without the model.
func (c *ParticipationConfig) StragglerFor(seed uint64, t int, rows []float64) *solver.Straggler {
	if !c.Clocked() {
		return nil
	}
	return &solver.Straggler{Rows: rows, PerRow: c.StragglerPerRow, Tail: c.StragglerTail, Spread: c.StragglerSpread,
		Latency: c.StragglerLatency, Deadline: c.StragglerDeadline, Seed: seed, Stream: StragglerStream(t)}
}

// ParticipationStream is the PCG stream of trial t's participation draws:
// its own, apart from the partitions' and w0's (1<<62 | t).
func ParticipationStream(t int) uint64 { return 0x7061<<48 | uint64(t) }

// ParticipationFor is trial t's solver.Participation under seed, rows
// being each client's rows (the weights of weighted sampling); nil under
// full participation.
func (c *ParticipationConfig) ParticipationFor(seed uint64, t int, rows []float64) *solver.Participation {
	if !c.Partial() {
		return nil
	}
	if c.Replay != "" && t == c.ReplayTrial {
		return &solver.Participation{Replay: c.Replay, ReplayMissed: c.ReplayMissed}
	}
	if c.Participation == nil && c.DropProb == 0 && c.StragglerDeadline == 0 {
		return nil
	}
	p := &solver.Participation{Fraction: 1, DropProb: c.DropProb, MaxDelay: c.MaxDelay, Seed: seed, Stream: ParticipationStream(t)}
	if c.Participation != nil {
		p.Fraction = *c.Participation
	}
	if c.ParticipationSampling == "weighted" {
		p.Weights = rows
	}
	return p
}

// ParticipationNote says how the clients took part, for a table's notes;
// "" under full participation.
func (c *ParticipationConfig) ParticipationNote() string {
	clock := ""
	if c.Clocked() {
		clock = fmt.Sprintf(" Simulated clock (straggler model): a client takes s_i·%g s per row plus an exponential delay of mean %g s, s_i log-normal with σ = %g, a round %g s more", c.StragglerPerRow, c.StragglerTail, c.StragglerSpread, c.StragglerLatency)
		if c.StragglerDeadline > 0 {
			clock += fmt.Sprintf("; a sampled client slower than %g s misses the round", c.StragglerDeadline)
		}
		clock += "."
	}
	if !c.Partial() {
		return strings.TrimSpace(clock)
	}
	if c.Replay != "" {
		return fmt.Sprintf("Partial participation: trial %d replays a recorded participation (each round sent to the clients that answered it in the record); test (23), the outer steps and the audit hear every client (docs/participation.md).", c.ReplayTrial) + clock
	}
	how := "every client"
	if c.Participation != nil {
		how = fmt.Sprintf("a fraction %g of the clients (%s)", *c.Participation, map[Sampling]string{"": "uniform", SamplingWeighted: "weighted by rows"}[c.ParticipationSampling])
	}
	return fmt.Sprintf("Partial participation: %s per ADMM round of Algorithm 1, each failing to answer with probability %g; test (23), the outer steps and the audit hear every client (docs/participation.md).", how, c.DropProb) + clock
}

// Recorded is the participation a run recorded: who answered each of its
// rounds, for n clients, in trial Trial.
type Recorded struct {
	Answered, Missed string // ParticipationLog.Answered and Missed
	N, Trial         int
}

// ReadRecorded reads the participation recorded in path: a `fedcon serve`
// result file (-o; its job names n and the trial) or a trial file of `run
// np|fair|qp` (Algorithm 1's record). A file without one is a ConfigError
// naming the key replay.
func ReadRecorded(path string) (*Recorded, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &experiments.ConfigError{Field: "replay", Value: path, Reason: err.Error()}
	}
	type log struct {
		Answered *string `json:"answered"`
		Missed   string  `json:"missed"`
	}
	type trial struct {
		N     int `json:"n"`
		Trial int `json:"trial"`
		Alg1  *struct {
			Participation *log `json:"participation"`
		} `json:"alg1"`
	}
	var doc struct {
		// serve -o
		Job *struct {
			N     int `json:"n"`
			Trial int `json:"trial"`
		} `json:"job"`
		Participation *log `json:"participation"`
		// a stored trial, or the trial itself
		Stored *trial `json:"trial"`
		trial
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		// A stored trial's "trial" is an object, a bare trial's a number.
		var bare trial
		if err2 := json.Unmarshal(b, &bare); err2 != nil {
			return nil, &experiments.ConfigError{Field: "replay", Value: path, Reason: "not a serve result or trial file: " + err.Error()}
		}
		doc.trial, doc.Stored = bare, nil
	}
	switch {
	case doc.Job != nil && doc.Participation != nil && doc.Participation.Answered != nil:
		return &Recorded{*doc.Participation.Answered, doc.Participation.Missed, doc.Job.N, doc.Job.Trial}, nil
	case doc.Stored != nil && doc.Stored.Alg1 != nil && doc.Stored.Alg1.Participation != nil && doc.Stored.Alg1.Participation.Answered != nil:
		p := doc.Stored.Alg1.Participation
		return &Recorded{*p.Answered, p.Missed, doc.Stored.N, doc.Stored.Trial}, nil
	case doc.Alg1 != nil && doc.Alg1.Participation != nil && doc.Alg1.Participation.Answered != nil:
		p := doc.Alg1.Participation
		return &Recorded{*p.Answered, p.Missed, doc.N, doc.Trial}, nil
	}
	return nil, &experiments.ConfigError{Field: "replay", Value: path, Reason: "records no participation (participation.answered): a run with participation < 1 or drop_prob > 0 records it"}
}

// SetReplay makes trial rec.Trial replay rec (the other trials sample as
// configured), for a run of n clients and trials trials.
func (c *ParticipationConfig) SetReplay(rec *Recorded, path string, n, trials int) error {
	switch {
	case rec.N != n:
		return &experiments.ConfigError{Field: "replay", Value: path, Reason: fmt.Sprintf("records %d clients, the run has %d", rec.N, n)}
	case rec.Trial >= trials:
		return &experiments.ConfigError{Field: "replay", Value: path, Reason: fmt.Sprintf("records trial %d, the run has trials 0..%d (--trials %d)", rec.Trial, trials-1, rec.Trial+1)}
	}
	c.Replay, c.ReplayMissed, c.ReplayTrial = rec.Answered, rec.Missed, rec.Trial
	return nil
}
