package federation

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fedcon/fedcon/federation/fedpb"
	"github.com/fedcon/fedcon/solver"
)

// TestConvertKnowsEveryField fails when solver.Broadcast or solver.Reply
// gains a field: convert.go must then carry it and this list name it.
func TestConvertKnowsEveryField(t *testing.T) {
	for _, tc := range []struct {
		typ   reflect.Type
		known []string
	}{
		{reflect.TypeFor[solver.Broadcast](), []string{"Kind", "W", "Eps", "NeedEpsTilde", "RhoScale", "Refresh", "Restart", "OuterRelax", "Mu"}},
		{reflect.TypeFor[solver.Reply](), []string{"UTilde", "MUTilde", "EpsTilde", "Primal", "Metric", "Rho", "StepMu", "Value", "LagGrad", "Feas", "Mu", "Jac", "Iterations", "Evals", "Missed", "MetricUpdate"}},
		{reflect.TypeFor[solver.PartyValue](), []string{"F", "C"}},
		{reflect.TypeFor[solver.NodeState](), []string{"Mu", "Center", "U", "Lambda", "UTilde", "Rho", "NewtonFactor", "NewtonIllCond", "WPrev", "HavePrev", "Rho0", "Metric", "MetricActive", "MetricJac", "Cached"}},
		// A new field of ClientNode is state that a checkpoint may have to
		// carry (solver.NodeState, node_state.go): decide, then list it.
		{reflect.TypeFor[solver.ClientNode](), []string{"cfg", "merit", "sub", "quad", "u", "lambda", "g", "ut", "mut", "reply",
			"wprev", "havePrev", "rho0", "target", "useMetric", "metric", "mchol", "metricAct", "metricJac", "scrM", "scrAct", "scr",
			"pp"}}, // ut: NodeState.UTilde; mut (M_i ũ_i, formed per reply), scrM/scrAct (scratch) and pp (MsgPolish's reply buffers): no state
		{reflect.TypeFor[solver.ClientConfig](), []string{"Party", "Dim", "Parties", "Beta", "Rho", "Mu0", "Smooth", "Cache", "MaxIter", "ADMMStart", "Rule", "RhoFromCurvature", "Relax", "MetricShift"}},
	} {
		var fields []string
		for f := range tc.typ.Fields() {
			fields = append(fields, f.Name)
		}
		for _, f := range fields {
			if !slices.Contains(tc.known, f) {
				t.Errorf("%v has field %s that federation/convert.go (and, for node state, solver/node_state.go) does not handle", tc.typ, f)
			}
		}
		for _, f := range tc.known {
			if !slices.Contains(fields, f) {
				t.Errorf("%v lost field %s: update federation/convert.go", tc.typ, f)
			}
		}
	}
}

// TestReplyRoundTrip: every field of a reply arrives bit for bit.
func TestReplyRoundTrip(t *testing.T) {
	in := solver.Reply{UTilde: []float64{1, -0.1, math.Inf(1)}, EpsTilde: 1e-300, Primal: -1, StepMu: 0.5,
		Value: solver.PartyValue{F: math.Pi, C: []float64{-2}}, LagGrad: []float64{3, 4, 5}, Feas: 1e-9,
		Mu: []float64{7}, Iterations: 9, Evals: 11, Missed: true, Rho: 0.25,
		Metric: []float64{2, 0.5, 0, 0.5, 3, 0.1, 0, 0.1, 4}}
	for _, k := range []solver.MsgKind{solver.MsgStart, solver.MsgADMM, solver.MsgOuter, solver.MsgAudit, solver.MsgPolish} {
		var out solver.Reply
		in := in
		if k == solver.MsgPolish {
			in.Jac = []float64{0.5, -1, 2}
		}
		if err := replyFromPB(&out, k, replyToPB(k, &in), 3, 1); err != nil {
			t.Fatalf("kind %d: %v", k, err)
		}
		want := in
		switch k {
		case solver.MsgAudit:
			want.UTilde, want.Metric = nil, nil // not sent: the server ignores them
		case solver.MsgPolish:
			want.UTilde = nil
		}
		if !reflect.DeepEqual(out, want) {
			t.Errorf("kind %d: got %+v, want %+v", k, out, want)
		}
	}
	for _, b := range []solver.Broadcast{
		{Kind: solver.MsgADMM, W: []float64{1, 2}, Eps: 0.3, NeedEpsTilde: true, RhoScale: 2, Refresh: true, Restart: true, OuterRelax: 1.8},
		{Kind: solver.MsgPolish, W: []float64{1, 2}, Mu: [][]float64{{}, {0.5}, {1, -2}}},
		{Kind: solver.MsgAudit, W: []float64{1, 2}, Mu: [][]float64{{3}, {}, {1e-300}}},
	} {
		k, _ := kindToPB(b.Kind)
		got, err := broadcastFromPB(k, broadcastToPB(&b), 2)
		if err != nil || !reflect.DeepEqual(*got, b) {
			t.Errorf("broadcast: got %+v, %v; want %+v", got, err, b)
		}
	}
	for _, bad := range []*fedpb.Broadcast{
		{W: []float64{1, 2}, Mu: []float64{1}},
		{W: []float64{1, 2}, Mu: []float64{1}, MuLen: []int32{2}},
		{W: []float64{1, 2}, Mu: []float64{1, 2}, MuLen: []int32{1}},
		{W: []float64{1, 2}, Mu: []float64{1}, MuLen: []int32{-1, 2}},
		{W: []float64{1, 2}, Mu: []float64{math.NaN()}, MuLen: []int32{1}},
	} {
		if _, err := broadcastFromPB(fedpb.Kind_KIND_POLISH, bad, 2); err == nil {
			t.Errorf("broadcast mu %v, lengths %v accepted", bad.Mu, bad.MuLen)
		}
	}
}

// TestBadReplyRefused: every malformed answer is an error naming what is
// wrong, never a panic, and a good one passes.
func TestBadReplyRefused(t *testing.T) {
	rd := &fedpb.Round{RunId: "r", Round: 5, Kind: fedpb.Kind_KIND_ADMM}
	good := func() *fedpb.Reply {
		return &fedpb.Reply{RunId: "r", Round: 5, Kind: fedpb.Kind_KIND_ADMM, Party: 2,
			Body: &fedpb.ReplyBody{UTilde: []float64{1, 2, 3}, EpsTilde: -1, Primal: -1, C: []float64{0}}}
	}
	for _, tc := range []struct {
		name string
		edit func(r *fedpb.Reply)
		want string // "" = accepted
	}{
		{"good", func(*fedpb.Reply) {}, ""},
		{"replayed", func(r *fedpb.Reply) { r.Round = 4 }, "replayed or out of order"},
		{"ahead", func(r *fedpb.Reply) { r.Round = 6 }, "replayed or out of order"},
		{"other run", func(r *fedpb.Reply) { r.RunId = "x" }, "reply for run"},
		{"other party", func(r *fedpb.Reply) { r.Party = 3 }, "names client 3"},
		{"wrong kind", func(r *fedpb.Reply) { r.Kind = fedpb.Kind_KIND_OUTER }, "kind"},
		{"short u", func(r *fedpb.Reply) { r.Body.UTilde = r.Body.UTilde[:2] }, "u_tilde and m_u_tilde have 2 and 0 entries, want 3"},
		{"NaN u", func(r *fedpb.Reply) { r.Body.UTilde[1] = math.NaN() }, "u_tilde[1] is NaN"},
		{"NaN eps", func(r *fedpb.Reply) { r.Body.EpsTilde = math.NaN() }, "eps_tilde[0] is NaN"},
		{"long c", func(r *fedpb.Reply) { r.Body.C = []float64{1, 2} }, "c has 2 entries, want 1"},
		{"no body", func(r *fedpb.Reply) { r.Body = nil }, "without a body"},
		{"client error", func(r *fedpb.Reply) { r.Error = "boom" }, "local step failed: boom"},
		{"negative count", func(r *fedpb.Reply) { r.Body.Iterations = -1 }, "negative"},
		{"metric size", func(r *fedpb.Reply) { r.Body.Metric = make([]float64, 9) }, "metric has 9 entries, want 6"},
		{"NaN metric", func(r *fedpb.Reply) { r.Body.Metric = []float64{1, 0, 0, 1, 0, math.NaN()} }, "metric[5] is NaN"},
		{"negative rho", func(r *fedpb.Reply) { r.Body.Rho = -1 }, "rho = -1"},
		{"jac in an ADMM reply", func(r *fedpb.Reply) { r.Body.Jac = []float64{1} }, "jac has 1 entries"},
		{"good metric", func(r *fedpb.Reply) { r.Body.Metric = []float64{1, 0, 0, 1, 0, 1}; r.Body.Rho = 2 }, ""},
	} {
		r := good()
		tc.edit(r)
		var dst solver.Reply
		err := checkReply(r, rd, 2, solver.MsgADMM, &dst, 3, 1)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// An audit must carry ∇L_i and μ_i of the right sizes.
	audit := &fedpb.Round{RunId: "r", Round: 5, Kind: fedpb.Kind_KIND_AUDIT}
	r := &fedpb.Reply{RunId: "r", Round: 5, Kind: fedpb.Kind_KIND_AUDIT, Party: 2, Body: &fedpb.ReplyBody{LagGrad: []float64{1}, C: []float64{0}, Mu: []float64{0}}}
	var dst solver.Reply
	if err := checkReply(r, audit, 2, solver.MsgAudit, &dst, 3, 1); err == nil || !strings.Contains(err.Error(), "lag_grad has 1 entries") {
		t.Errorf("short audit: err = %v", err)
	}
}

// FuzzCheckReply: any bytes a client sends are refused or accepted, never
// a panic; an accepted reply has the sizes the server relies on.
func FuzzCheckReply(f *testing.F) {
	good := &fedpb.Reply{RunId: "r", Round: 5, Kind: fedpb.Kind_KIND_ADMM, Party: 2,
		Body: &fedpb.ReplyBody{UTilde: []float64{1, 2, 3}, EpsTilde: -1, Primal: -1, C: []float64{0}}}
	b, _ := proto.Marshal(good)
	f.Add(b)
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x01, 'r', 0x10, 0x05})
	rd := &fedpb.Round{RunId: "r", Round: 5, Kind: fedpb.Kind_KIND_ADMM}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fedpb.Reply{}
		if proto.Unmarshal(data, r) != nil {
			return
		}
		for _, k := range []solver.MsgKind{solver.MsgADMM, solver.MsgAudit} {
			var dst solver.Reply
			if checkReply(r, rd, 2, k, &dst, 3, 1) == nil {
				if k != solver.MsgAudit && len(dst.UTilde) != 3 || k == solver.MsgAudit && (len(dst.LagGrad) != 3 || len(dst.Mu) != 1) {
					t.Fatalf("accepted a reply of the wrong size: %+v", dst)
				}
			}
		}
	})
}

// TestBadBroadcastRefused: a client refuses a round it cannot run, and a
// setup it cannot build from.
func TestBadBroadcastRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind fedpb.Kind
		b    *fedpb.Broadcast
		want string
	}{
		{"short w", fedpb.Kind_KIND_ADMM, &fedpb.Broadcast{W: []float64{1}}, "w has 1 entries, want 2"},
		{"NaN w", fedpb.Kind_KIND_OUTER, &fedpb.Broadcast{W: []float64{1, math.NaN()}}, "w[1] is NaN"},
		{"no broadcast", fedpb.Kind_KIND_START, nil, "without a broadcast"},
		{"done is no round", fedpb.Kind_KIND_DONE, &fedpb.Broadcast{W: []float64{1, 2}}, "not a round"},
		{"unknown kind", fedpb.Kind(42), &fedpb.Broadcast{W: []float64{1, 2}}, "not a round"},
	} {
		if _, err := broadcastFromPB(tc.kind, tc.b, 2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	good := func() *fedpb.NodeConfig {
		return &fedpb.NodeConfig{Dim: 2, Parties: 3, Beta: 1, Rho: 1, MaxIter: 5, Smooth: "newton", Rule: "fixed", Relax: 1}
	}
	if _, err := nodeConfigFromPB(good()); err != nil {
		t.Fatalf("good setup refused: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*fedpb.NodeConfig)
		want string
	}{
		{"no config", nil, "without a node configuration"},
		{"smooth", func(c *fedpb.NodeConfig) { c.Smooth = "sgd" }, `unknown smooth solver "sgd"`},
		{"beta", func(c *fedpb.NodeConfig) { c.Beta = 0 }, "β = 0"},
		{"rho", func(c *fedpb.NodeConfig) { c.Rho = math.Inf(1) }, "ρ = +Inf"},
		{"dim", func(c *fedpb.NodeConfig) { c.Dim = 0 }, "dim 0"},
		{"admm start", func(c *fedpb.NodeConfig) { c.AdmmStart = []float64{1} }, "admm_start has 1 entries, want 2"},
		{"rule", func(c *fedpb.NodeConfig) { c.Rule = "magic" }, `unknown rho rule "magic"`},
		{"relax", func(c *fedpb.NodeConfig) { c.Relax = 2 }, "relax = 2"},
	} {
		var c *fedpb.NodeConfig
		if tc.edit != nil {
			c = good()
			tc.edit(c)
		}
		if _, err := nodeConfigFromPB(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
