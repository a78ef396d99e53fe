package federation

import (
	"fmt"
	"math"

	"github.com/fedcon/fedcon/federation/fedpb"
	"github.com/fedcon/fedcon/solver"
)

// This file is the only mapping between solver's messages and the wire:
// convert_test.go fails when solver.Broadcast or solver.Reply gains a field
// that is not listed (and so not handled) here.

func kindToPB(k solver.MsgKind) (fedpb.Kind, error) {
	switch k {
	case solver.MsgStart:
		return fedpb.Kind_KIND_START, nil
	case solver.MsgADMM:
		return fedpb.Kind_KIND_ADMM, nil
	case solver.MsgOuter:
		return fedpb.Kind_KIND_OUTER, nil
	case solver.MsgAudit:
		return fedpb.Kind_KIND_AUDIT, nil
	case solver.MsgPolish:
		return fedpb.Kind_KIND_POLISH, nil
	}
	return 0, fmt.Errorf("federation: unknown message kind %d", k)
}

func kindFromPB(k fedpb.Kind) (solver.MsgKind, error) {
	switch k {
	case fedpb.Kind_KIND_START:
		return solver.MsgStart, nil
	case fedpb.Kind_KIND_ADMM:
		return solver.MsgADMM, nil
	case fedpb.Kind_KIND_OUTER:
		return solver.MsgOuter, nil
	case fedpb.Kind_KIND_AUDIT:
		return solver.MsgAudit, nil
	case fedpb.Kind_KIND_POLISH:
		return solver.MsgPolish, nil
	}
	return 0, fmt.Errorf("federation: message kind %v is not a round", k)
}

func broadcastToPB(b *solver.Broadcast) *fedpb.Broadcast {
	m := &fedpb.Broadcast{W: b.W, Eps: b.Eps, NeedEpsTilde: b.NeedEpsTilde, RhoScale: b.RhoScale, Refresh: b.Refresh, Restart: b.Restart,
		OuterRelax: b.OuterRelax}
	for _, mu := range b.Mu {
		m.Mu = append(m.Mu, mu...)
		m.MuLen = append(m.MuLen, int32(len(mu)))
	}
	return m
}

// muFromPB splits the concatenated multipliers by their lengths.
func muFromPB(mu []float64, lens []int32) ([][]float64, error) {
	if len(lens) == 0 {
		if len(mu) != 0 {
			return nil, fmt.Errorf("federation: broadcast mu without lengths")
		}
		return nil, nil
	}
	out := make([][]float64, len(lens))
	k := 0
	for i, l := range lens {
		if l < 0 || k+int(l) > len(mu) {
			return nil, fmt.Errorf("federation: broadcast mu_len[%d] = %d does not fit %d values", i, l, len(mu))
		}
		out[i] = mu[k : k+int(l)]
		k += int(l)
	}
	if k != len(mu) {
		return nil, fmt.Errorf("federation: broadcast mu has %d values, its lengths sum to %d", len(mu), k)
	}
	if i := firstNaN(mu); i >= 0 {
		return nil, fmt.Errorf("federation: broadcast mu[%d] is NaN", i)
	}
	return out, nil
}

// broadcastFromPB checks what a client is asked: w of length d, finite.
func broadcastFromPB(k fedpb.Kind, m *fedpb.Broadcast, d int) (*solver.Broadcast, error) {
	kind, err := kindFromPB(k)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("federation: round without a broadcast")
	}
	if len(m.W) != d {
		return nil, fmt.Errorf("federation: broadcast w has %d entries, want %d", len(m.W), d)
	}
	if i := firstNaN(m.W); i >= 0 {
		return nil, fmt.Errorf("federation: broadcast w[%d] is NaN", i)
	}
	mu, err := muFromPB(m.Mu, m.MuLen)
	if err != nil {
		return nil, err
	}
	return &solver.Broadcast{Kind: kind, W: m.W, Eps: m.Eps, NeedEpsTilde: m.NeedEpsTilde, RhoScale: m.RhoScale, Refresh: m.Refresh, Restart: m.Restart,
		OuterRelax: m.OuterRelax, Mu: mu}, nil
}

// replyToPB copies r into the wire message. ũ_i and M_i are not sent with
// an audit: the server ignores them there.
func replyToPB(k solver.MsgKind, r *solver.Reply) *fedpb.ReplyBody {
	m := &fedpb.ReplyBody{
		EpsTilde: r.EpsTilde, Primal: r.Primal, StepMu: r.StepMu,
		F: r.Value.F, C: r.Value.C, LagGrad: r.LagGrad, Feas: r.Feas, Mu: r.Mu,
		Iterations: int64(r.Iterations), Evals: r.Evals, Missed: r.Missed,
		Rho: r.Rho,
	}
	switch k {
	case solver.MsgAudit:
	case solver.MsgPolish:
		m.Jac, m.Metric = r.Jac, packUpper(r.Metric, len(r.LagGrad))
	default:
		m.UTilde, m.MUTilde, m.Metric = r.UTilde, r.MUTilde, packUpper(r.Metric, len(r.UTilde)+len(r.MUTilde))
		if len(r.MetricUpdate) > 0 {
			m.MetricUpdate = r.MetricUpdate
		}
	}
	return m
}

// packUpper returns the upper triangle of the symmetric d×d matrix a, row
// by row (what the algorithm counts); nil for nil.
func packUpper(a []float64, d int) []float64 {
	if a == nil || len(a) != d*d {
		return nil
	}
	out := make([]float64, 0, d*(d+1)/2)
	for i := range d {
		out = append(out, a[i*d+i:(i+1)*d]...)
	}
	return out
}

// unpackUpper is the inverse of packUpper.
func unpackUpper(p []float64, d int) []float64 {
	a := make([]float64, d*d)
	k := 0
	for i := range d {
		for j := i; j < d; j++ {
			a[i*d+j], a[j*d+i] = p[k], p[k]
			k++
		}
	}
	return a
}

// replyFromPB checks a client's answer to a round of kind k (sizes against
// dimension d and m constraints, no NaN) and copies it into dst.
func replyFromPB(dst *solver.Reply, k solver.MsgKind, m *fedpb.ReplyBody, d, mc int) error {
	if m == nil {
		return fmt.Errorf("reply without a body")
	}
	if k != solver.MsgAudit && k != solver.MsgPolish && len(m.UTilde)+len(m.MUTilde) != d {
		return fmt.Errorf("u_tilde and m_u_tilde have %d and %d entries, want %d in one of them", len(m.UTilde), len(m.MUTilde), d)
	}
	if k == solver.MsgPolish {
		noHessian := len(m.LagGrad) == 0 && len(m.Jac) == 0 && len(m.Metric) == 0 // the client cannot polish
		if !noHessian && (len(m.LagGrad) != d || len(m.Jac) != mc*d || len(m.Metric) != d*(d+1)/2) {
			return fmt.Errorf("polish reply: lag_grad %d, jac %d, metric %d entries, want %d, %d, %d",
				len(m.LagGrad), len(m.Jac), len(m.Metric), d, mc*d, d*(d+1)/2)
		}
		if len(m.Mu) != 0 && len(m.Mu) != mc {
			return fmt.Errorf("mu has %d entries, want %d or none", len(m.Mu), mc)
		}
	} else if len(m.Jac) != 0 {
		return fmt.Errorf("jac has %d entries in a %v reply", len(m.Jac), k)
	}
	if k == solver.MsgAudit {
		if len(m.LagGrad) != d {
			return fmt.Errorf("lag_grad has %d entries, want %d", len(m.LagGrad), d)
		}
		if len(m.Mu) != mc {
			return fmt.Errorf("mu has %d entries, want %d", len(m.Mu), mc)
		}
	}
	if len(m.C) != mc && (len(m.C) != 0 || (k != solver.MsgADMM && k != solver.MsgPolish)) {
		return fmt.Errorf("c has %d entries, want %d", len(m.C), mc)
	}
	if m.Iterations < 0 || m.Evals < 0 {
		return fmt.Errorf("negative iteration or evaluation count")
	}
	if len(m.Metric) != 0 && (k == solver.MsgAudit || len(m.Metric) != d*(d+1)/2) {
		return fmt.Errorf("metric has %d entries, want %d (the upper triangle of M_i) or none", len(m.Metric), d*(d+1)/2)
	}
	if len(m.MetricUpdate) != 0 && (k != solver.MsgADMM || len(m.MetricUpdate)%(d+1) != 0) {
		return fmt.Errorf("metric_update has %d entries in a %v reply, want blocks of 1+%d in an ADMM reply", len(m.MetricUpdate), k, d)
	}
	if !(m.Rho >= 0) || math.IsInf(m.Rho, 0) {
		return fmt.Errorf("rho = %v: want a finite number >= 0", m.Rho)
	}
	for _, v := range []struct {
		name string
		x    []float64
	}{{"u_tilde", m.UTilde}, {"m_u_tilde", m.MUTilde}, {"c", m.C}, {"lag_grad", m.LagGrad}, {"mu", m.Mu}, {"metric", m.Metric}, {"jac", m.Jac}, {"metric_update", m.MetricUpdate},
		{"eps_tilde", []float64{m.EpsTilde}}, {"primal", []float64{m.Primal}}, {"step_mu", []float64{m.StepMu}},
		{"f", []float64{m.F}}, {"feas", []float64{m.Feas}}} {
		if i := firstNaN(v.x); i >= 0 {
			return fmt.Errorf("%s[%d] is NaN", v.name, i)
		}
	}
	*dst = solver.Reply{
		UTilde: m.UTilde, MUTilde: m.MUTilde, EpsTilde: m.EpsTilde, Primal: m.Primal, StepMu: m.StepMu,
		Value:   solver.PartyValue{F: m.F, C: m.C},
		LagGrad: m.LagGrad, Feas: m.Feas, Mu: m.Mu, Jac: m.Jac,
		Iterations: int(m.Iterations), Evals: m.Evals, Missed: m.Missed, Rho: m.Rho,
		MetricUpdate: m.MetricUpdate,
	}
	if len(m.Metric) != 0 {
		dst.Metric = unpackUpper(m.Metric, d)
	}
	return nil
}

func firstNaN(x []float64) int {
	for i, v := range x {
		if math.IsNaN(v) {
			return i
		}
	}
	return -1
}

func nodeConfigToPB(c solver.ClientConfig) (*fedpb.NodeConfig, error) {
	sm, err := smoothName(c.Smooth)
	if err != nil {
		return nil, err
	}
	rule, err := c.Rule.MarshalText()
	if err != nil {
		return nil, fmt.Errorf("federation: %w", err)
	}
	return &fedpb.NodeConfig{Dim: int32(c.Dim), Parties: int32(c.Parties), Beta: c.Beta, Rho: c.Rho,
		Mu0: c.Mu0, MaxIter: int32(c.MaxIter), AdmmStart: c.ADMMStart, Smooth: sm,
		Rule: string(rule), RhoFromCurvature: c.RhoFromCurvature, Relax: c.Relax, MetricShift: c.MetricShift}, nil
}

func nodeConfigFromPB(m *fedpb.NodeConfig) (solver.ClientConfig, error) {
	if m == nil {
		return solver.ClientConfig{}, fmt.Errorf("federation: setup without a node configuration")
	}
	var sm solver.SmoothSolver
	switch m.Smooth {
	case "lbfgs":
		sm = solver.LBFGS{}
	case "newton":
		sm = &solver.Newton{}
	default:
		return solver.ClientConfig{}, fmt.Errorf("federation: unknown smooth solver %q", m.Smooth)
	}
	for _, v := range []float64{m.Beta, m.Rho} {
		if !(v > 0) || math.IsInf(v, 0) {
			return solver.ClientConfig{}, fmt.Errorf("federation: node configuration β = %v, ρ = %v: want finite numbers > 0", m.Beta, m.Rho)
		}
	}
	if m.Dim < 1 || m.Parties < 2 || m.MaxIter < 1 {
		return solver.ClientConfig{}, fmt.Errorf("federation: node configuration dim %d, parties %d, max_iter %d: out of range", m.Dim, m.Parties, m.MaxIter)
	}
	if m.AdmmStart != nil && len(m.AdmmStart) != int(m.Dim) {
		return solver.ClientConfig{}, fmt.Errorf("federation: admm_start has %d entries, want %d", len(m.AdmmStart), m.Dim)
	}
	var rule solver.RhoRule
	if err := rule.UnmarshalText([]byte(m.Rule)); err != nil {
		return solver.ClientConfig{}, fmt.Errorf("federation: node configuration rule: %w", err)
	}
	if !(m.Relax >= 0 && m.Relax < 2) || !(m.MetricShift >= 0) || math.IsInf(m.MetricShift, 0) {
		return solver.ClientConfig{}, fmt.Errorf("federation: node configuration relax = %v, metric_shift = %v: out of range", m.Relax, m.MetricShift)
	}
	return solver.ClientConfig{Dim: int(m.Dim), Parties: int(m.Parties), Beta: m.Beta, Rho: m.Rho,
		Mu0: m.Mu0, MaxIter: int(m.MaxIter), ADMMStart: m.AdmmStart, Smooth: sm,
		Rule: rule, RhoFromCurvature: m.RhoFromCurvature, Relax: m.Relax, MetricShift: m.MetricShift}, nil
}

// smoothName names a smooth solver that can travel: only the defaults do,
// since a client rebuilds it from its name.
func smoothName(s solver.SmoothSolver) (string, error) {
	switch v := s.(type) {
	case nil:
		return "lbfgs", nil
	case solver.LBFGS:
		if v == (solver.LBFGS{}) {
			return "lbfgs", nil
		}
	case *solver.Newton:
		if v.Contraction == 0 { // its only setting; the rest is its state
			return "newton", nil
		}
	}
	return "", fmt.Errorf("federation: smooth solver %T with non-default settings cannot be sent to clients", s)
}

func stateToPB(s solver.NodeState) *fedpb.NodeState {
	cached := func(c solver.CachedEval) *fedpb.CachedEval {
		if c.W == nil {
			return nil
		}
		return &fedpb.CachedEval{W: c.W, Grad: c.Grad}
	}
	return &fedpb.NodeState{Mu: s.Mu, Center: s.Center, U: s.U, Lambda: s.Lambda, UTilde: s.UTilde, Rho: s.Rho, NewtonFactor: s.NewtonFactor, NewtonIllCond: s.NewtonIllCond,
		Wprev: s.WPrev, HavePrev: s.HavePrev, Rho0: s.Rho0, Metric: s.Metric, MetricActive: s.MetricActive, MetricJac: s.MetricJac,
		Cached: cached(s.Cached[0]), CachedPrev: cached(s.Cached[1])}
}

func stateFromPB(m *fedpb.NodeState) solver.NodeState {
	cached := func(c *fedpb.CachedEval) solver.CachedEval {
		if c == nil || len(c.W) == 0 {
			return solver.CachedEval{}
		}
		return solver.CachedEval{W: c.W, Grad: c.Grad}
	}
	return solver.NodeState{Mu: m.GetMu(), Center: m.GetCenter(), U: m.GetU(), Lambda: m.GetLambda(), UTilde: m.GetUTilde(), Rho: m.GetRho(), NewtonFactor: m.GetNewtonFactor(), NewtonIllCond: m.GetNewtonIllCond(),
		WPrev: m.GetWprev(), HavePrev: m.GetHavePrev(), Rho0: m.GetRho0(), Metric: m.GetMetric(),
		MetricActive: m.GetMetricActive(), MetricJac: m.GetMetricJac(),
		Cached: [2]solver.CachedEval{cached(m.GetCached()), cached(m.GetCachedPrev())}}
}
