package fedjob

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// TestFedJobPartyFromExport: an NP client keeps exactly its own rows of a
// `data export` file, in file order, and refuses a file of another run.
func TestFedJobPartyFromExport(t *testing.T) {
	job := &Job{Problem: "np", Dataset: "monks-1", N: 2, NP: &proxal.NPConfig{TrialConfig: experiments.TrialConfig{Seed: 7, Trials: 1, RNG: "fedcon"},
		R: 0.2, ADMMStart: "wk", ALConfig: proxal.ALConfig{Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1, MethodConfig: proxal.MethodConfig{Beta: 1, SBar: 1, Rho: 1,
			Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 1, MaxInner: 1, InnerTest: solver.InnerTestPaper}}}}
	if err := job.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"dataset":"monks-1","clients":2,"seed":7,"rows":[
{"row":0,"client":1,"x":[1,0],"y":0},
{"row":1,"client":2,"x":[9,9],"y":1},
{"row":2,"client":1,"x":[0,1],"y":1},
{"row":3,"client":1,"x":[2,3],"y":0}]}`)
	p, d, err := job.Party(nil, good, 1)
	if err != nil {
		t.Fatal(err)
	}
	np := p.(*problems.NPClient)
	if d != 2 || np.Class0.N != 2 || np.Class1.N != 1 || np.Scale != 0.5 || np.R != 0.2 {
		t.Errorf("client 1: d %d, %d class-0 and %d class-1 rows, scale %v, r %v; want 2, 2, 1, 0.5, 0.2", d, np.Class0.N, np.Class1.N, np.Scale, np.R)
	}
	if got := np.Class0.X; len(got) != 4 || got[0] != 1 || got[2] != 2 || got[3] != 3 {
		t.Errorf("client 1's class-0 rows %v, want [1 0 2 3] (file order)", got)
	}
	for _, tc := range []struct {
		name, body string
		party      int
		want       string
	}{
		{"other seed", `{"dataset":"monks-1","clients":2,"seed":8,"rows":[]}`, 1, "--clients 2 --seed 7"},
		{"other data set", `{"dataset":"adult-a","clients":2,"seed":7,"rows":[]}`, 1, "holds adult-a"},
		{"no partition", `{"dataset":"monks-1","clients":0,"rows":[]}`, 1, "seed none"},
		{"no rows of the party", `{"dataset":"monks-1","clients":2,"seed":7,"rows":[{"client":1,"x":[1],"y":0}]}`, 2, "no rows of client 2"},
		{"ragged rows", `{"dataset":"monks-1","clients":2,"seed":7,"rows":[{"client":1,"x":[1],"y":0},{"client":1,"x":[1,2],"y":0}]}`, 1, "features"},
		{"not JSON", `{"dataset":`, 1, "data "},
		{"party out of range", `{}`, 3, "party = 3"},
	} {
		_, _, err := job.Party(nil, write(strings.ReplaceAll(tc.name, " ", "-")+".json", tc.body), tc.party)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestFedJobRoundTrip: a job survives its trip to the clients, and bad jobs
// are refused with the key at fault.
func TestFedJobRoundTrip(t *testing.T) {
	qp := &Job{Problem: "qp", N: 2, Dim: 5, M: 1, QP: &proxal.QPConfig{TrialConfig: experiments.TrialConfig{Seed: 3, Trials: 1, RNG: "fedcon"},
		MethodConfig: proxal.MethodConfig{Beta: 10, SBar: 0.1, Rho: 1, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: 5, MaxInner: 5, InnerTest: solver.InnerTestPaper}}}
	b, err := qp.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalJob(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := back.Marshal()
	if string(b) != string(b2) {
		t.Errorf("job changed on its way:\n%s\n%s", b, b2)
	}
	bad := *qp
	bad.M = 5
	badJSON, _ := bad.Marshal()
	for _, tc := range []struct {
		body, want string
	}{
		{`{"problem":"lp"}`, "problem = lp"},
		{string(badJSON), "constraints = 5"},
		{`{"problem":"np","n":2}`, "np = <nil>"},
		{`[1,2]`, "job"},
	} {
		if _, err := UnmarshalJob([]byte(tc.body)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.body, err, tc.want)
		}
	}
}
