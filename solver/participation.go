package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Participation makes Algorithm 2's rounds partial: each ADMM round only a
// sample of the clients is addressed, and each addressed client may fail to
// answer. Absent clients keep (u_i, λ_i) and the server reuses their last
// ũ_i in (18): randomized block-coordinate ADMM. Test (23), the outer step
// of Algorithm 1, restarts, penalty changes, the polish and the audit are
// full rounds: every client answers the same broadcast, a dropped client is
// asked again in a retry round (counted), so the certificate and every
// client's local constraint are those of the paper (docs/participation.md).
// The zero value and Fraction 1 with DropProb 0 are full participation:
// the paper's method, bit for bit.
type Participation struct {
	// Fraction ∈ (0, 1] of the clients sampled per ADMM round, without
	// replacement: max(1, round(Fraction·n)) clients (0: 1, all).
	Fraction float64
	// Weights, if non-nil, samples clients with probability proportional
	// to their weights (successive sampling without replacement; e.g.
	// their rows); nil: uniform. Every weight must be > 0, so that every
	// client is sampled with positive probability.
	Weights []float64
	// DropProb ∈ [0, 1) is the probability that an addressed client fails
	// to answer a round, independently per client and round. A dropped
	// client does not act: its state and the server's copy of ũ_i agree.
	DropProb float64
	// MaxDelay bounds staleness: a client that has not answered for
	// MaxDelay rounds is added to the next round's sample (the bounded
	// delay of asynchronous ADMM; docs/participation.md). Zero means
	// DefaultMaxDelay·⌈n/m⌉ for m clients sampled per round.
	MaxDelay int
	// Seed and Stream seed the sampler's own generator (PCG): every draw
	// comes from it, on the server's goroutine, so a run is a function of
	// (problem, settings, Seed, Stream), whatever Settings.Workers.
	Seed, Stream uint64
	// Replay, if set, is a recorded ParticipationLog.Answered: round t is
	// sent to exactly the clients that answered round t of the recorded
	// run (a partial round, or each attempt of a full one), instead of
	// sampling and dropping. The run is then the recorded run's, bit for
	// bit, when the problem and settings are (a served run whose round
	// deadline fired replays in-process). The other fields are ignored.
	Replay string
	// ReplayMissed is the record's ParticipationLog.Missed (empty: no
	// client missed a round it was sent): with it a replay also counts the
	// floats sent to them, so Stats are the recorded run's too.
	ReplayMissed string
}

// active reports whether p asks for anything but full participation.
func (p *Participation) active() bool {
	if p == nil {
		return false
	}
	return !(p.Fraction == 0 || p.Fraction == 1) || p.DropProb != 0 || p.Replay != ""
}

// validate checks p for n clients.
func (p *Participation) validate(n int) error {
	switch {
	case !(p.Fraction >= 0 && p.Fraction <= 1):
		return fmt.Errorf("solver: Participation.Fraction = %v: must be in (0, 1]", p.Fraction)
	case !(p.DropProb >= 0 && p.DropProb < 1):
		return fmt.Errorf("solver: Participation.DropProb = %v: must be in [0, 1)", p.DropProb)
	case p.MaxDelay < 0:
		return fmt.Errorf("solver: Participation.MaxDelay = %d: must be >= 0", p.MaxDelay)
	case p.Weights != nil && len(p.Weights) != n:
		return fmt.Errorf("solver: len(Participation.Weights) = %d, want %d clients", len(p.Weights), n)
	}
	if p.Replay != "" {
		if k := (n + 3) / 4; len(p.Replay)%k != 0 {
			return fmt.Errorf("solver: Participation.Replay has %d hex digits, not a whole number of rounds of %d clients (%d digits each)", len(p.Replay), n, k)
		}
		for i, c := range p.Replay + p.ReplayMissed {
			if !strings.ContainsRune("0123456789abcdef", c) {
				return fmt.Errorf("solver: Participation.Replay[%d] = %q: not a lower-case hex digit", i, c)
			}
		}
	}
	if p.ReplayMissed != "" && len(p.ReplayMissed) != len(p.Replay) {
		return fmt.Errorf("solver: Participation.ReplayMissed has %d hex digits, Replay %d", len(p.ReplayMissed), len(p.Replay))
	}
	for i, w := range p.Weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("solver: Participation.Weights[%d] = %v: must be finite and > 0", i, w)
		}
	}
	return nil
}

// SubsetTransport is a Transport that can address some clients only.
// Partial participation needs it; clients left out do nothing.
type SubsetTransport interface {
	Transport
	// ExchangeSubset runs b on the clients with active[i] (nil: all) and
	// returns the replies in client order, nil for clients left out.
	ExchangeSubset(ctx context.Context, b *Broadcast, active []bool) ([]*Reply, error)
}

var _ SubsetTransport = (*LocalTransport)(nil)

// PartialTransport is a SubsetTransport whose partial rounds may end
// before every addressed client answered (a round deadline over the
// network). A client left out of the replies must not have acted: its
// state and the server's copy of ũ_i still agree (federation discards a
// late answer and rolls the client back).
type PartialTransport interface {
	SubsetTransport
	// ExchangePartial is ExchangeSubset for an ADMM round of partial
	// participation: the replies of clients that missed the round are nil.
	ExchangePartial(ctx context.Context, b *Broadcast, active []bool) ([]*Reply, error)
}

// ParticipationLog records who answered each round (Result.Participation).
type ParticipationLog struct {
	// Answered holds, for each round of the run in turn (Stats.Rounds,
	// the audit's included), the clients that answered as a hex mask of
	// ⌈n/4⌉ digits: bit b of the round's digit j is client 4j+b+1.
	Answered string `json:"answered"`
	// PartialRounds counts ADMM rounds addressed to a sample; RetryRounds
	// counts rounds that re-sent a full round's broadcast to the clients
	// that had not answered it.
	PartialRounds int `json:"partial_rounds"`
	RetryRounds   int `json:"retry_rounds"`
	// Missed holds, in the same form, the clients that were sent each
	// round and did not answer it (dropped, or past a served run's round
	// deadline); omitted while none did. Stats.FloatsDown counts them.
	Missed string `json:"missed,omitempty"`
}

// DefaultMaxDelay·⌈n/m⌉ is Participation.MaxDelay's default: four times
// the mean gap between a client's rounds under uniform sampling, so that
// the bound rarely adds a client there (at most (1 - m/n)^(4n/m) ≤ e^-4 of
// the time) while a client of tiny weight still acts regularly.
const DefaultMaxDelay = 4

// maxAttempts bounds the rounds of one full round: at DropProb < 1 a
// client misses them all with probability DropProb^maxAttempts.
const maxAttempts = 10000

// participation is the server's sampler and its per-round state.
type participation struct {
	cfg    Participation
	n, m   int // clients, sampled per partial round
	delay  int // Participation.MaxDelay or its default
	rounds int
	last   []int // the round each client last answered
	rng    *rand.Rand
	active []bool
	reps   []*Reply
	idx    []int
	// eps is each client's last ε̃_i of the current Algorithm 2 call (-1:
	// none yet); their scaled sum estimates (23) between full rounds.
	eps  []float64
	log  ParticipationLog
	mask strings.Builder // log.Answered
	// digits of a round's mask; replay is Participation.Replay read so far
	digits int
	replay string
	// addressed are the clients sent the round (before drops); missed
	// builds log.Missed once a client missed one.
	addressed    []bool
	missed       strings.Builder
	replayMissed string
}

// initParticipation sets r.part when m.Participation is partial.
func (r *proxALRun) initParticipation() error {
	if st := r.m.Straggler; st != nil {
		c, err := newClock(st, r.n)
		if err != nil {
			return err
		}
		r.clock = c
	}
	cfg := r.m.Participation
	deadline := r.clock != nil && r.clock.cfg.Deadline > 0
	if cfg == nil && deadline {
		// Every client is sent every ADMM round; the slow ones miss it.
		cfg = &Participation{Fraction: 1}
	}
	if cfg == nil {
		return nil
	}
	if err := cfg.validate(r.n); err != nil {
		return err
	}
	if !cfg.active() && !deadline {
		return nil
	}
	if _, ok := r.tr.(SubsetTransport); !ok {
		return fmt.Errorf("solver: partial participation needs a transport that can address some clients (SubsetTransport)")
	}
	f := cfg.Fraction
	if f == 0 {
		f = 1
	}
	p := &participation{
		cfg: *cfg, n: r.n, m: min(r.n, max(1, int(math.Round(f*float64(r.n))))),
		rng:    rand.New(rand.NewPCG(cfg.Seed, cfg.Stream)),
		active: make([]bool, r.n), reps: make([]*Reply, r.n), idx: make([]int, r.n), eps: make([]float64, r.n),
	}
	p.delay = cfg.MaxDelay
	if p.delay == 0 {
		p.delay = DefaultMaxDelay * ((r.n + p.m - 1) / p.m)
	}
	p.last = make([]int, r.n)
	p.digits, p.replay, p.replayMissed = (r.n+3)/4, cfg.Replay, cfg.ReplayMissed
	p.addressed = make([]bool, r.n)
	r.part = p
	r.res.Participation = &p.log
	return nil
}

// sample marks m clients in p.active: uniform (a partial Fisher-Yates
// shuffle) or by weight (successive sampling); then every client that has
// not answered for p.delay rounds.
func (p *participation) sample() {
	p.draw()
	for i, l := range p.last {
		if p.rounds-l >= p.delay {
			p.active[i] = true
		}
	}
}

func (p *participation) draw() {
	clear(p.active)
	for i := range p.idx {
		p.idx[i] = i
	}
	if p.m == p.n {
		for i := range p.active {
			p.active[i] = true
		}
		return
	}
	if p.cfg.Weights == nil {
		for k := 0; k < p.m; k++ {
			j := k + p.rng.IntN(p.n-k)
			p.idx[k], p.idx[j] = p.idx[j], p.idx[k]
			p.active[p.idx[k]] = true
		}
		return
	}
	for k := 0; k < p.m; k++ {
		var total float64
		for _, i := range p.idx[k:] {
			total += p.cfg.Weights[i]
		}
		u, j := p.rng.Float64()*total, p.n-1
		for l := k; l < p.n; l++ {
			u -= p.cfg.Weights[p.idx[l]]
			if u < 0 {
				j = l
				break
			}
		}
		p.idx[k], p.idx[j] = p.idx[j], p.idx[k]
		p.active[p.idx[k]] = true
	}
}

// replayed sets p.active to the clients that answered the next recorded
// round, and returns how many they are; an error when the record ends.
func (p *participation) replayed() (int, error) {
	if p.rounds >= len(p.replay)/p.digits {
		return 0, fmt.Errorf("solver: the replayed participation has %d rounds, the run needs more", len(p.replay)/p.digits)
	}
	bit := func(rec string, i int) bool {
		d := strings.IndexByte("0123456789abcdef", rec[p.rounds*p.digits+i/4])
		return d>>(i%4)&1 == 1
	}
	sent := 0
	for i := range p.active {
		p.active[i] = bit(p.replay, i)
		p.addressed[i] = p.active[i] || (p.replayMissed != "" && bit(p.replayMissed, i))
		if p.addressed[i] {
			sent++
		}
	}
	return sent, nil
}

// mark notes p.active as the round's addressed clients, before drops.
func (p *participation) mark() { copy(p.addressed, p.active) }

// drop clears p.active[i] for each addressed client that fails to answer
// and returns how many were addressed.
func (p *participation) drop() int {
	sent := 0
	for i, a := range p.active { // client order
		if !a {
			continue
		}
		sent++
		if p.cfg.DropProb > 0 && p.rng.Float64() < p.cfg.DropProb {
			p.active[i] = false
		}
	}
	return sent
}

// late clears p.active[i] for each sampled client slower than the
// clock's deadline and returns how many (0 without a clock).
func (p *participation) late(c *clock) int {
	if c == nil {
		return 0
	}
	n := 0
	for i, a := range p.active {
		if a && c.late(i) {
			p.active[i] = false
			n++
		}
	}
	return n
}

// round sends b to the clients in p.active (sent of them addressed, the
// dropped included) and counts and logs it.
func (p *participation) round(ctx context.Context, r *proxALRun, b *Broadcast, sent int, partial bool) ([]*Reply, error) {
	var reps []*Reply
	var err error
	if pt, ok := r.tr.(PartialTransport); ok && partial {
		reps, err = pt.ExchangePartial(ctx, b, p.active)
	} else {
		reps, err = r.tr.(SubsetTransport).ExchangeSubset(ctx, b, p.active)
	}
	if err != nil {
		return nil, err
	}
	if err := r.count(b, reps, sent); err != nil {
		return nil, err
	}
	if c := r.clock; c != nil {
		// The server waited for the deadline when a sampled client that
		// did not answer was late (not one that failed).
		waited := false
		for i, a := range p.addressed {
			waited = waited || (partial && a && reps[i] == nil && c.late(i))
		}
		r.res.Stats.SimWall += c.tick(reps, waited)
	}
	p.rounds++
	for i, rep := range reps {
		if rep != nil {
			p.last[i] = p.rounds
		}
	}
	for j := 0; j < p.n; j += 4 {
		var digit int
		for b := 0; b < 4 && j+b < p.n; b++ {
			if reps[j+b] != nil {
				digit |= 1 << b
			}
		}
		p.mask.WriteByte("0123456789abcdef"[digit])
	}
	p.log.Answered = p.mask.String() // shares the builder's bytes: no copy
	missed := false
	for i, a := range p.addressed {
		missed = missed || (a && reps[i] == nil)
	}
	if missed && p.missed.Len() == 0 {
		p.missed.WriteString(strings.Repeat("0", (p.rounds-1)*p.digits))
	}
	if p.missed.Len() > 0 {
		for j := 0; j < p.n; j += 4 {
			var digit int
			for b := 0; b < 4 && j+b < p.n; b++ {
				if p.addressed[j+b] && reps[j+b] == nil {
					digit |= 1 << b
				}
			}
			p.missed.WriteByte("0123456789abcdef"[digit])
		}
		p.log.Missed = p.missed.String()
	}
	return reps, nil
}

// all runs b as a full round: every client answers the same broadcast,
// those that dropped are asked again until they do.
func (p *participation) all(ctx context.Context, r *proxALRun, b *Broadcast) ([]*Reply, error) {
	if b.Kind == MsgStart || b.Kind == MsgOuter || b.Restart {
		for i := range p.eps { // a new Algorithm 2 call
			p.eps[i] = -1
		}
	}
	clear(p.reps)
	missing := p.n
	for attempt := 0; missing > 0; attempt++ {
		if attempt == maxAttempts {
			return nil, fmt.Errorf("solver: %d clients did not answer in %d rounds", missing, maxAttempts)
		}
		var sent int
		if p.replay != "" {
			var err error
			if sent, err = p.replayed(); err != nil {
				return nil, err
			}
			for i, a := range p.active {
				if a && p.reps[i] != nil {
					return nil, fmt.Errorf("solver: replayed round %d: client %d answers a full round twice", p.rounds+1, i+1)
				}
			}
		} else {
			for i := range p.active {
				p.active[i] = p.reps[i] == nil
			}
			p.mark()
			sent = p.drop()
		}
		if attempt > 0 {
			p.log.RetryRounds++
		}
		reps, err := p.round(ctx, r, b, sent, false)
		if err != nil {
			return nil, err
		}
		for i, rep := range reps {
			if rep != nil {
				p.reps[i] = rep
				missing--
			}
		}
	}
	return p.reps, nil
}

// some runs b on a sample of the clients, less those that drop.
func (p *participation) some(ctx context.Context, r *proxALRun, b *Broadcast) ([]*Reply, error) {
	var sent int
	if p.replay != "" {
		var err error
		if sent, err = p.replayed(); err != nil {
			return nil, err
		}
	} else {
		p.sample()
		p.mark()
		late := p.late(r.clock)
		sent = p.drop() + late
	}
	p.log.PartialRounds++
	return p.round(ctx, r, b, sent, true)
}

// estimate is test (23)'s left-hand side from the last ε̃_i known in this
// call, their sum scaled to n clients; +Inf while none is known.
func (p *participation) estimate(lhs float64) float64 {
	var sum float64
	known := 0
	for _, e := range p.eps { // client order
		if e >= 0 {
			sum += e
			known++
		}
	}
	if known == 0 {
		return math.Inf(1)
	}
	return lhs + sum*float64(p.n)/float64(known)
}

// note keeps the ε̃_i that came back.
func (p *participation) note(reps []*Reply) {
	for i, rep := range reps {
		if rep != nil && rep.EpsTilde >= 0 {
			p.eps[i] = rep.EpsTilde
		}
	}
}

// admmExchange runs an ADMM round of Algorithm 2 and reports whether it
// was full, so that test (23) may be read from its replies. Partial
// participation makes it full when every client must apply it (a penalty
// change or refresh) or when the estimate of (23) passes: a certificate
// read from some clients only would bound nothing.
func (r *proxALRun) admmExchange(ctx context.Context, b *Broadcast, tau, lhs float64) ([]*Reply, bool, error) {
	p := r.part
	if p == nil {
		reps, err := r.exchange(ctx, b)
		return reps, true, err
	}
	full := b.Refresh || b.Restart || (b.RhoScale != 0 && b.RhoScale != 1) || (b.NeedEpsTilde && p.estimate(lhs) <= tau)
	var reps []*Reply
	var err error
	if full {
		reps, err = p.all(ctx, r, b)
	} else {
		reps, err = p.some(ctx, r, b)
	}
	if err != nil {
		return nil, false, err
	}
	p.note(reps)
	if est := p.estimate(lhs); !full && !math.IsInf(est, 1) {
		// Between full rounds the estimate stands in for Σ_i ε̃_i where
		// it only steers: ProxAL.EpsRel's pace of ε_{t+1} and RhoHessian's
		// refresh of M_i when it stalls (never test (23)).
		r.lastCert = est - lhs
		r.certs = append(r.certs, est-lhs)
	}
	return reps, full, nil
}
