package cmd

import (
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/conic"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/experiments/ssca"
)

// TestConfigHashesKept: the configuration hash and the trial hash of each
// preset, plain and with its enums set to other names by the environment,
// are those recorded when the enums were plain strings: a typed enum
// writes the same JSON, so that stored trials are still found (resume,
// merge) and manifests still match.
func TestConfigHashesKept(t *testing.T) {
	want := [][2]string{ // HashConfig, TrialHash: recorded at the string-typed configuration
		{"921b9f70fc40b9fc", "b7d316af307248ba"},
		{"3b3806bc654e01d0", "72a688409b865bb6"},
		{"b1deb22903d1c6cc", "7ae5eb09c5d2d52b"},
		{"5b13c19333eb07db", "09000630bde84daa"},
		{"f7ca319f59fa269e", "a2bf3a58549f70b1"},
		{"56f819cbbd1f88a2", "c9476424e8fd946e"},
		{"e25514c97f95c0e5", "76ba7050d19b067f"},
		{"7491834aebd979ee", "4a88a67415630578"},
		{"9cd718c2737b2440", "e2bdc4c182163d98"},
		{"e3e06b4f02c18f45", "a50405d3fd2527e2"},
		{"723189eff0940718", "eb27570f2794f4e9"},
		{"c93e352e7312a2ed", "3f158df3818f3f56"},
		{"eafaecdb14a88f8a", "6834da9a6c29d1c4"},
		{"f718f93a2b7ca9b4", "d720c919ae6f2d3c"},
	}
	cases := hashCases()
	if len(cases) != len(want) {
		t.Fatalf("%d cases, %d recorded hashes", len(cases), len(want))
	}
	for i, tc := range cases {
		f, _, _ := testFactory()
		f.Getenv = func(k string) string { return tc.env[k] }
		o := &commonOptions{}
		o.flags = newCmdRoot(f).Flags()
		cfg := tc.newCfg()
		if err := loadConfig(f, o, tc.preset, cfg); err != nil {
			t.Fatalf("%s %v: %v", tc.preset, tc.env, err)
		}
		h, err := experiments.HashConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]string{h, cfg.TrialHash()}; got != want[i] {
			t.Errorf("%s %v: hashes %v, recorded %v", tc.preset, tc.env, got, want[i])
		}
	}
}

// hashCases are embedded presets, some with enums set away from their
// defaults by the environment, whose hashes were recorded before the
// configuration's enums became types.
func hashCases() []struct {
	preset string
	env    map[string]string
	newCfg func() interface{ TrialHash() string }
} {
	np := func() interface{ TrialHash() string } { return &proxal.NPConfig{} }
	fair := func() interface{ TrialHash() string } { return &proxal.FairConfig{} }
	qp := func() interface{ TrialHash() string } { return &proxal.QPConfig{} }
	cqp := func() interface{ TrialHash() string } { return &conic.QPConfig{} }
	sc := func() interface{ TrialHash() string } { return &ssca.Config{} }
	return []struct {
		preset string
		env    map[string]string
		newCfg func() interface{ TrialHash() string }
	}{
		{"table1", nil, np},
		{"table1", map[string]string{"FEDCON_RHO_RULE": "fixed", "FEDCON_INNER_TEST": "paper", "FEDCON_ADMM_START": "w0", "FEDCON_W0": "ones", "FEDCON_SUBSOLVER": "lbfgs"}, np},
		{"table1", map[string]string{"FEDCON_RHO_RULE": "adaptive", "FEDCON_PARTICIPATION": "0.5", "FEDCON_PARTICIPATION_SAMPLING": "weighted", "FEDCON_RNG": "numpy"}, np},
		{"table1", map[string]string{"FEDCON_RHO_RULE": "balance", "FEDCON_PARTICIPATION": "0.5", "FEDCON_PARTICIPATION_SAMPLING": "uniform", "FEDCON_W0": "sphere"}, np},
		{"table2", nil, fair},
		{"table2-authors", nil, fair},
		{"table4", nil, qp},
		{"table4", map[string]string{"FEDCON_INNER_TEST": "measured", "FEDCON_RNG": "numpy"}, qp},
		{"conic-table1", nil, cqp},
		{"conic-table1", map[string]string{"FEDCON_BALL_ROWS": "2", "FEDCON_BALL_PARTIES": "server", "FEDCON_SUBSOLVER": "lbfgs", "FEDCON_W0": "zeros"}, cqp},
		{"conic-table2", nil, np},
		{"conic-table3", nil, fair},
		{"ssca/ssca", nil, sc},
		{"ssca/ssca", map[string]string{"FEDCON_LABELS": "client0", "FEDCON_EVAL_PRECISION": "float64"}, sc},
	}
}
