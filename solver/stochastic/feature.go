package stochastic

import (
	"context"
	"fmt"
	"slices"
)

// FeatureClient is client i of feature-based FL: it owns a block of every
// sample's features (and the labels, unless only client 0 has them).
// Sizes are per sample: h the length of a partial pre-activation, r of a
// residual. Slices passed in are read-only; outputs are overwritten.
type FeatureClient interface {
	Len() int
	Sizes() (h, r int)
	// Partial sets h (B×h) to the client's shares h_{0,i}(w_i, x_{n,i}) (Step 4).
	Partial(wi []float64, batch []int, h []float64)
	// Activate prepares the nonlinearity of the summed z for the calls below.
	Activate(z []float64)
	// Residual sets r (B×r) from the summed pre-activations z and w_0 and
	// returns the loss sum Σ f(w; x_n); it reads the labels.
	Residual(w0 []float64, batch []int, z, r []float64) float64
	// Block sets gi to Σ_n ∇_{w_i} f (17) (Step 5).
	Block(w0 []float64, batch []int, z, r, gi []float64)
	// Top sets g0 to Σ_n ∇_{w_0} f (16) (Step 6).
	Top(batch []int, z, r, g0 []float64)
}

// FeatureProblem is feature-based FL's data layout: w_i = w[Blocks[i][0]:Blocks[i][1]],
// w_0 = w[Top[0]:Top[1]]; the blocks and w_0 partition w.
type FeatureProblem struct {
	Clients []FeatureClient
	Blocks  [][2]int
	Top     [2]int
	// LabelsAtClient0: only client 0 holds labels and sends the residuals
	// (B×r floats) to the others (counted as client-to-client bytes). Otherwise every
	// client holds the labels, as the paper's messages require.
	LabelsAtClient0 bool
}

func (fp *FeatureProblem) check(d int) error {
	if len(fp.Clients) == 0 || len(fp.Blocks) != len(fp.Clients) {
		return &SettingError{"clients", len(fp.Clients), fmt.Sprintf("need >= 1 client and one block each (%d blocks)", len(fp.Blocks))}
	}
	cover := make([]bool, d)
	for _, b := range append(slices.Clone(fp.Blocks), fp.Top) {
		if b[0] < 0 || b[1] > d || b[0] >= b[1] {
			return &SettingError{"blocks", b, fmt.Sprintf("must be a non-empty range in [0, %d]", d)}
		}
		for k := b[0]; k < b[1]; k++ {
			if cover[k] {
				return &SettingError{"blocks", b, "overlaps another block"}
			}
			cover[k] = true
		}
	}
	if !slices.Equal(cover, slices.Repeat([]bool{true}, d)) {
		return &SettingError{"blocks", fp.Blocks, "do not cover w"}
	}
	return nil
}

// featureReply is client i's upload.
type featureReply struct {
	g, g0 []float64 // its block; client 0 also w_0's block
	loss  float64
	c2c   int64 // bytes it sent to other clients
}

// featureFed runs Steps 3-6 of Algorithm 3 over goroutine clients.
type featureFed struct {
	fp   *FeatureProblem
	fed  *fed[featureReply]
	rng  []int // server's index permutation
	B, d int
	ghat []float64
}

func newFeatureFed(fp *FeatureProblem, d, B int) *featureFed {
	I := len(fp.Clients)
	hsz, rsz := fp.Clients[0].Sizes()
	type peerMsg struct {
		from int
		h    []float64
	}
	peers := make([]chan peerMsg, I)
	resid := make([]chan []float64, I)
	for i := range peers {
		peers[i] = make(chan peerMsg, I)
		resid[i] = make(chan []float64, 1)
	}
	type state struct {
		h, z, r, g, g0 []float64
		hs             [][]float64
	}
	sts := make([]*state, I)
	for i := range sts {
		b := fp.Blocks[i]
		sts[i] = &state{h: make([]float64, B*hsz), z: make([]float64, B*hsz), r: make([]float64, B*rsz),
			g: make([]float64, b[1]-b[0]), hs: make([][]float64, I)}
		if i == 0 {
			sts[i].g0 = make([]float64, fp.Top[1]-fp.Top[0])
		}
	}
	work := func(i int, m down) featureReply {
		c, s := fp.Clients[i], sts[i]
		w0 := m.w[fp.Top[0]:fp.Top[1]]
		c.Partial(m.w[fp.Blocks[i][0]:fp.Blocks[i][1]], m.batch, s.h) // Step 4
		var sent int64
		for j := range peers {
			if j != i {
				peers[j] <- peerMsg{i, s.h}
				sent += int64(8 * len(s.h))
			}
		}
		s.hs[i] = s.h
		for range I - 1 {
			pm := <-peers[i]
			s.hs[pm.from] = pm.h
		}
		clear(s.z)
		for _, h := range s.hs { // in client order: every client gets the same z
			for k, v := range h {
				s.z[k] += v
			}
		}
		c.Activate(s.z)
		rep := featureReply{g: s.g, c2c: sent}
		r := s.r
		switch {
		case !fp.LabelsAtClient0:
			rep.loss = c.Residual(w0, m.batch, s.z, r)
		case i == 0:
			rep.loss = c.Residual(w0, m.batch, s.z, r)
			for j := 1; j < I; j++ {
				resid[j] <- r
				rep.c2c += int64(8 * len(r))
			}
		default:
			r = <-resid[i]
		}
		c.Block(w0, m.batch, s.z, r, s.g) // Step 5
		if i == 0 {
			c.Top(m.batch, s.z, r, s.g0) // Step 6
			rep.g0 = s.g0
		}
		return rep
	}
	return &featureFed{fp: fp, fed: startFed(I, work), rng: seq(fp.Clients[0].Len()), B: B, d: d, ghat: make([]float64, d)}
}

// round runs one exchange at w on batch and returns ĝ = (1/B) Σ ∇f and the
// loss estimate (1/B) Σ f, counting bytes into st.
func (ff *featureFed) round(t int, w []float64, batch []int, st *Stats, withLoss bool) ([]float64, float64) {
	reps := ff.fed.round(down{t: t, w: w, batch: batch})
	inv := 1 / float64(ff.B)
	var loss float64
	for i, r := range reps {
		b := ff.fp.Blocks[i]
		for k, v := range r.g {
			ff.ghat[b[0]+k] = inv * v
		}
		st.BytesDown += int64(4*len(batch) + 8*(b[1]-b[0]) + 8*(ff.fp.Top[1]-ff.fp.Top[0]))
		st.BytesUp += int64(8 * len(r.g))
		st.BytesClient += r.c2c
		if i == 0 {
			for k, v := range r.g0 {
				ff.ghat[ff.fp.Top[0]+k] = inv * v
			}
			st.BytesUp += int64(8 * len(r.g0))
			loss = inv * r.loss
			if withLoss {
				st.BytesUp += 8
			}
		}
	}
	return ff.ghat, loss
}

// SolveFeature runs Algorithm 3 (p unconstrained, (27)) or Algorithm 4 (p
// constrained, (37)) from w1: the server draws B of the N samples, weights
// 1/B (19). w1 is not modified.
func SolveFeature(ctx context.Context, fp *FeatureProblem, w1 []float64, p Problem, s *Settings) (*Result, error) {
	d := len(w1)
	if err := fp.check(d); err != nil {
		return nil, err
	}
	st := s.withDefaults()
	if err := st.validate(p, fp.Clients[0].Len()); err != nil {
		return nil, err
	}
	w := slices.Clone(w1)
	res := &Result{W: w}
	ff := newFeatureFed(fp, d, st.Batch)
	defer ff.fed.stop()
	rng := newRNG(st.Seed, streamServer)
	sv := newServer(p, st, d)
	err := loop(ctx, st.Rounds, w, st.Recorder, st.Record, res, func(t int) error {
		batch := drawBatch(rng, ff.rng, st.Batch) // Step 3
		ghat, lhat := ff.round(t, w, batch, &res.Stats, p.Constrained)
		sv.step(t, w, ghat, lhat) // Step 7
		return nil
	})
	res.Nu, res.Slack = sv.nu, sv.sl
	return res, wrapCtx(err)
}

// FeatureSGD is the feature-based SGD baseline of Remark 2: Algorithm 3's
// messages, then the server step w ← w - r_t(ĝ + 2λw).
func FeatureSGD(ctx context.Context, fp *FeatureProblem, w1 []float64, s *SGDSettings) (*Result, error) {
	d := len(w1)
	if err := fp.check(d); err != nil {
		return nil, err
	}
	st := *s
	if st.Rounds == 0 {
		st.Rounds = DefaultRounds
	}
	st.LocalSteps = 1
	if err := st.validate(fp.Clients[0].Len()); err != nil {
		return nil, err
	}
	w := slices.Clone(w1)
	res := &Result{W: w}
	ff := newFeatureFed(fp, d, st.Batch)
	defer ff.fed.stop()
	rng := newRNG(st.Seed, streamServer)
	err := loop(ctx, st.Rounds, w, st.Recorder, st.Record, res, func(t int) error {
		ghat, _ := ff.round(t, w, drawBatch(rng, ff.rng, st.Batch), &res.Stats, false)
		r := st.rate(t)
		for k := range w {
			w[k] -= r * (ghat[k] + 2*st.Lambda*w[k])
		}
		return nil
	})
	return res, wrapCtx(err)
}
