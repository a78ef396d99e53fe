package stochastic

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// SampleClient is client i of sample-based FL: it owns N_i = Len() samples.
type SampleClient interface {
	Len() int
	// Grad sets g (len d) to Σ_{n ∈ batch} ∇f(w; x_n) over local sample
	// indices batch and returns Σ_{n ∈ batch} f(w; x_n). It may keep g.
	Grad(w []float64, batch []int, g []float64) float64
}

// sampleReply is a client's message: d gradient sums and the loss sum.
type sampleReply struct {
	g    []float64
	loss float64
	n    int // floats sent
}

func minLen(clients []SampleClient) (n, total int) {
	n = clients[0].Len()
	for _, c := range clients {
		n = min(n, c.Len())
		total += c.Len()
	}
	return n, total
}

// SolveSample runs Algorithm 1 (p unconstrained: (27)) or Algorithm 2 (p
// constrained: (37)) from w1 with the clients' data. w1 is not modified.
// It returns the Result at w^T and a non-nil error only if it could not
// proceed (bad settings, canceled context: then with the partial Result).
func SolveSample(ctx context.Context, clients []SampleClient, w1 []float64, p Problem, s *Settings) (*Result, error) {
	if len(clients) == 0 {
		return nil, &SettingError{"clients", 0, "need at least one"}
	}
	st := s.withDefaults()
	nmin, N := minLen(clients)
	if err := st.validate(p, nmin); err != nil {
		return nil, err
	}
	d := len(w1)
	w := slices.Clone(w1)
	res := &Result{W: w}
	f := startFed(len(clients), sampleWorker(clients, d, st.Batch, st.Seed, p.Constrained))
	defer f.stop()
	sv := newServer(p, st, d)
	ghat := make([]float64, d)
	err := loop(ctx, st.Rounds, w, st.Recorder, st.Record, res, func(t int) error {
		reps := f.round(down{t: t, w: w})
		lhat := sampleEstimate(clients, reps, st.Batch, N, ghat)
		for _, r := range reps {
			res.Stats.BytesDown += int64(8 * d)
			res.Stats.BytesUp += int64(8 * r.n)
		}
		sv.step(t, w, ghat, lhat)
		return nil
	})
	res.Nu, res.Slack = sv.nu, sv.sl
	return res, wrapCtx(err)
}

// sampleEstimate sets ghat to the unbiased gradient estimate (33)-(34),
// Σ_i N_i/(BN) Σ_{n ∈ batch_i} ∇f, and returns the loss estimate of (32),
// reducing in client order.
func sampleEstimate(clients []SampleClient, reps []sampleReply, B, N int, ghat []float64) float64 {
	clear(ghat)
	var lhat float64
	for i, r := range reps {
		wt := float64(clients[i].Len()) / float64(B*N)
		for k, g := range r.g {
			ghat[k] += wt * g
		}
		lhat += wt * r.loss
	}
	return lhat
}

// sampleWorker is Step 4 of Algorithms 1-2 at client i: draw B of its
// samples, send the gradient sums (and, Algorithm 2, the loss sum).
func sampleWorker(clients []SampleClient, d, B int, seed uint64, withLoss bool) func(int, down) sampleReply {
	rngs := make([]*rand.Rand, len(clients))
	perms := make([][]int, len(clients))
	gs := make([][]float64, len(clients))
	for i, c := range clients {
		rngs[i], perms[i], gs[i] = newRNG(seed, streamClient+uint64(i)), seq(c.Len()), make([]float64, d)
	}
	return func(i int, m down) sampleReply {
		batch := drawBatch(rngs[i], perms[i], B)
		loss := clients[i].Grad(m.w, batch, gs[i])
		n := d
		if withLoss {
			n++
		}
		return sampleReply{gs[i], loss, n}
	}
}

func wrapCtx(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("stochastic: %w", err)
}

// FedAvg runs federated averaging: each round, client i starts from w^t,
// takes E local SGD steps w ← w - r_t(ĝ + 2λw) with ĝ the mean gradient of
// B of its samples and r_t = LR/t^Beta, and the server averages the local
// models with weights N_i/N.
func FedAvg(ctx context.Context, clients []SampleClient, w1 []float64, s *SGDSettings) (*Result, error) {
	if len(clients) == 0 {
		return nil, &SettingError{"clients", 0, "need at least one"}
	}
	st := *s
	if st.Rounds == 0 {
		st.Rounds = DefaultRounds
	}
	if st.LocalSteps == 0 {
		st.LocalSteps = 1
	}
	nmin, N := minLen(clients)
	if err := st.validate(nmin); err != nil {
		return nil, err
	}
	d := len(w1)
	w := slices.Clone(w1)
	res := &Result{W: w}
	rngs := make([]*rand.Rand, len(clients))
	perms, locals, gs := make([][]int, len(clients)), make([][]float64, len(clients)), make([][]float64, len(clients))
	for i, c := range clients {
		rngs[i], perms[i] = newRNG(st.Seed, streamClient+uint64(i)), seq(c.Len())
		locals[i], gs[i] = make([]float64, d), make([]float64, d)
	}
	f := startFed(len(clients), func(i int, m down) []float64 {
		wl, g := locals[i], gs[i]
		copy(wl, m.w)
		r := st.rate(m.t)
		for e := 0; e < st.LocalSteps; e++ {
			clients[i].Grad(wl, drawBatch(rngs[i], perms[i], st.Batch), g)
			inv := 1 / float64(st.Batch)
			for k := range wl {
				wl[k] -= r * (inv*g[k] + 2*st.Lambda*wl[k])
			}
		}
		return wl
	})
	defer f.stop()
	err := loop(ctx, st.Rounds, w, st.Recorder, st.Record, res, func(t int) error {
		reps := f.round(down{t: t, w: w})
		clear(w)
		for i, wl := range reps {
			wt := float64(clients[i].Len()) / float64(N)
			for k, v := range wl {
				w[k] += wt * v
			}
			res.Stats.BytesDown += int64(8 * d)
			res.Stats.BytesUp += int64(8 * d)
		}
		return nil
	})
	return res, wrapCtx(err)
}

// rate is r_t = LR/t^Beta.
func (s *SGDSettings) rate(t int) float64 { return s.LR / pow(float64(t), s.Beta) }

func (s *SGDSettings) validate(n int) error {
	switch {
	case s.Rounds < 1:
		return &SettingError{"rounds", s.Rounds, "must be >= 1"}
	case s.Batch < 1 || s.Batch > n:
		return &SettingError{"batch", s.Batch, fmt.Sprintf("must be in [1, %d] (samples available)", n)}
	case s.LocalSteps < 1:
		return &SettingError{"local_steps", s.LocalSteps, "must be >= 1"}
	case !finitePos(s.LR):
		return &SettingError{"lr", s.LR, "must be a finite number > 0"}
	case !(s.Beta >= 0 && s.Beta <= 1):
		return &SettingError{"beta", s.Beta, "must be in [0, 1]"}
	case !(s.Lambda >= 0):
		return &SettingError{"lambda", s.Lambda, "must be >= 0"}
	}
	return nil
}
func pow(x, y float64) float64 { return math.Pow(x, y) }
