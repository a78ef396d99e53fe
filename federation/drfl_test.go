package federation_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/fedcon/fedcon/experiments/drfl"
	"github.com/fedcon/fedcon/experiments/fedjob"
	"github.com/fedcon/fedcon/federation"
	"github.com/fedcon/fedcon/problems/wdro"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

func drflJob(model string) *fedjob.Job {
	def := drfl.DefaultConfig()
	p := drfl.Params{Model: model, Rho: 0.01, Kappa: 0.5, Theta: 0.01, P: 1, Support: wdro.Box, Loss: "hinge"}
	return fedjob.NewFedDRFL("heart", def.Data("heart", false), def.Seed, p, &adlpmm.Settings{C: def.C, Tol: def.Tol, MaxRounds: 300})
}

// TestDRFLLoopbackSameAnswer: DRFL's AD-LPMM with its 3 clients over gRPC
// and mutual TLS gives the in-process result bit for bit (the paper's
// model and AFL).
func TestDRFLLoopbackSameAnswer(t *testing.T) {
	for _, model := range []string{drfl.ModelDRFL, drfl.ModelAFL} {
		t.Run(model, func(t *testing.T) {
			job := drflJob(model)
			needData(t, &fedjob.Job{Problem: "np"})
			if testing.Short() && model == drfl.ModelDRFL {
				t.Skip("the model's client QPs take seconds (a minute with -race); AFL covers -short")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			want, err := job.SolveDRFLLocal(ctx, testDirs, 2)
			if err != nil {
				t.Fatal(err)
			}
			set, err := job.DRFLServer(2)
			if err != nil {
				t.Fatal(err)
			}
			jb, _ := job.Marshal()
			certs := certDir(t, job.N)
			srv, addr := serveRaw(t, federation.ServerConfig{RunID: "drfl", Job: jb, Identify: federation.PeerParty,
				DRFL: &federation.DRFLConfig{C: set.C, Tol: set.Tol, Clients: job.N}}, certs)
			var done []<-chan error
			for i := 1; i <= job.N; i++ {
				done = append(done, runDRFLClient(ctx, t, addr, certs, i))
			}
			if err := srv.WaitJoined(ctx); err != nil {
				t.Fatal(err)
			}
			clients, d, err := srv.DRFLClients()
			if err != nil {
				t.Fatal(err)
			}
			prob, err := job.DRFLProblem(clients, d-1)
			if err != nil {
				t.Fatal(err)
			}
			got, err := adlpmm.Solve(ctx, prob, set)
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.DRFLErr(); err != nil {
				t.Fatal(err)
			}
			srv.Close()
			for i, c := range done {
				if err := <-c; err != nil {
					t.Errorf("client %d: %v", i+1, err)
				}
			}
			g, w := *got, *want
			g.Runtime, w.Runtime = 0, 0
			g.State, w.State = nil, nil // compared below, by value
			if fmt.Sprintf("%+v", g) != fmt.Sprintf("%+v", w) || fmt.Sprintf("%+v", *got.State) != fmt.Sprintf("%+v", *want.State) {
				t.Errorf("federated DRFL differs from in-process:\n got %+v\nwant %+v", g, w)
			}
			if got.Rounds < 2 || math.IsNaN(got.WorstCase) {
				t.Errorf("degenerate run: %d rounds, worst case %v", got.Rounds, got.WorstCase)
			}
			down, up := srv.WireBytes()
			t.Logf("%s: %s in %d rounds; algorithm %d B, protobuf %d B", model, got.Status, got.Rounds, got.BytesTotal, down+up)
		})
	}
}

func runDRFLClient(ctx context.Context, t testing.TB, addr, certs string, party int) <-chan error {
	creds, err := federation.ClientCredentials(certs, party, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := federation.Dial(addr, creds)
	if err != nil {
		t.Fatal(err)
	}
	load := func(b []byte, party int) (adlpmm.Client, int, error) {
		j, err := fedjob.UnmarshalJob(b)
		if err != nil {
			return nil, 0, err
		}
		return j.DRFLParty(testDirs, party)
	}
	done := make(chan error, 1)
	go func() {
		defer conn.Close()
		_, err := federation.RunClient(ctx, conn, federation.ClientOptions{Party: party, LoadDRFL: load})
		done <- err
	}()
	return done
}
