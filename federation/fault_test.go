package federation_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/fedcon/fedcon/experiments/fedjob"
	"github.com/fedcon/fedcon/federation"
	"github.com/fedcon/fedcon/federation/fedpb"
	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// crash cancels a session at the at-th evaluation of its party: a crash in
// the middle of a run.
type crash struct {
	evals  atomic.Int64
	at     int64
	cancel context.CancelFunc
}

func (c *crash) tick() {
	if c.evals.Add(1) == c.at {
		c.cancel()
	}
}

// crashingQP and crashingNP keep their party's Quadratic and Hessian
// methods, so that the local solvers are the same as without the wrapper.
type crashingQP struct {
	*problems.QPParty
	*crash
}

func (p crashingQP) Eval(w, grad, c, jac []float64) float64 {
	p.tick()
	return p.QPParty.Eval(w, grad, c, jac)
}

type crashingNP struct {
	*problems.NPClient
	*crash
}

func (p crashingNP) Eval(w, grad, c, jac []float64) float64 {
	p.tick()
	return p.NPClient.Eval(w, grad, c, jac)
}

// TestRejoinSameAnswer: client 3 crashes twice mid-run and restarts from
// its checkpoint; the run still gives the in-process answer bit for bit
// (for NP, the checkpoint carries the Newton solver's kept Hessian).
func TestRejoinSameAnswer(t *testing.T) {
	testutil.Slow(t)
	for _, tc := range []struct {
		name    string
		job     *fedjob.Job
		crashes []int64 // evaluations of client 3 at which it crashes
	}{
		{"qp", qpJob(5, 30, 3), []int64{5, 12}},
		{"np-newton", npJob(3, "newton", 4), []int64{40, 300}},
		{"np-rho-hessian", npRule(3, solver.RhoHessian), []int64{40, 200}},
		{"np-rho-adaptive", npRule(3, solver.RhoAdaptive), []int64{40, 300}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needData(t, tc.job)
			rejoin(t, tc.job, tc.crashes)
		})
	}
}

func rejoin(t *testing.T, job *fedjob.Job, crashes []int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	want, err := job.SolveLocal(ctx, testDirs, 2)
	if err != nil {
		t.Fatal(err)
	}
	certs := certDir(t, job.N)
	f := startServer(t, job, certs, federation.ServerConfig{RoundTimeout: 30 * time.Second, Rejoin: 30 * time.Second})
	var clients []<-chan error
	for i := 1; i <= job.N; i++ {
		if i != 3 {
			clients = append(clients, runClient(ctx, t, f.addr, certs, i, i, ""))
		}
	}
	ckpt := filepath.Join(t.TempDir(), "client-3.ckpt")
	runs := append(append([]int64(nil), crashes...), 0) // then a clean run
	ended := make(chan error, len(runs))
	go func() {
		for _, at := range runs {
			cctx, ccancel := context.WithCancel(ctx)
			cr := &crash{at: at, cancel: ccancel}
			load := func(b []byte, party int) (solver.Party, int, error) {
				j, err := fedjob.UnmarshalJob(b)
				if err != nil {
					return nil, 0, err
				}
				p, d, err := j.Party(testDirs, "", party)
				if err != nil {
					return nil, 0, err
				}
				switch p := p.(type) {
				case *problems.QPParty:
					return crashingQP{p, cr}, d, nil
				case *problems.NPClient:
					return crashingNP{p, cr}, d, nil
				}
				return nil, 0, fmt.Errorf("no crashing wrapper for %T", p)
			}
			creds, _ := federation.ClientCredentials(certs, 3, "")
			conn, err := federation.Dial(f.addr, creds)
			if err != nil {
				ended <- err
				return
			}
			_, err = federation.RunClient(cctx, conn, federation.ClientOptions{Party: 3, Load: load, Checkpoint: ckpt})
			conn.Close()
			ccancel()
			ended <- err
			if at == 0 {
				return
			}
		}
	}()
	if err := f.srv.WaitJoined(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := f.run.Solve(ctx, f.srv)
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Close()
	for i, c := range clients {
		if err := <-c; err != nil {
			t.Errorf("client %d: %v", i+1, err)
		}
	}
	for k := range runs {
		err := <-ended
		if k < len(crashes) && status.Code(err) != codes.Canceled {
			t.Errorf("crash %d: err = %v, want a canceled session", k+1, err)
		}
		if k == len(crashes) && err != nil {
			t.Errorf("client 3 after its restarts: %v", err)
		}
	}
	// Evaluations too: the checkpoint carries where the node's cached
	// evaluations were, so a restored node counts as the uninterrupted one.
	if !same(got, want) {
		t.Errorf("run with restarts differs from in-process:\n got %+v\nwant %+v", got.Stats, want.Stats)
	}
}

// hungClient joins with client party's certificate and never answers.
func hungClient(ctx context.Context, t *testing.T, addr, certs string, party int) {
	t.Helper()
	creds, _ := federation.ClientCredentials(certs, party, "")
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	st, err := fedpb.NewFederationClient(conn).Session(ctx, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Hello{Hello: &fedpb.Hello{Protocol: federation.Protocol, Party: int32(party)}}})
	m, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	s := m.GetSetup()
	st.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Ready{Ready: &fedpb.Ready{RunId: s.RunId, Party: s.Party, Dim: s.Config.Dim, Constraints: 3, Rows: 1}}})
}

// TestClientLost: a hung client (no reply within the round timeout) and a
// client that disconnects are named, and the run stops with ErrClientLost
// and the last committed iterate.
func TestClientLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  federation.ServerConfig
		lose func(ctx context.Context, t *testing.T, f *fed, certs string) context.CancelFunc
		want string
	}{
		{"hung", federation.ServerConfig{RoundTimeout: 200 * time.Millisecond},
			func(ctx context.Context, t *testing.T, f *fed, certs string) context.CancelFunc {
				hungClient(ctx, t, f.addr, certs, 2)
				return func() {}
			}, "no reply within 200ms"},
		{"disconnected", federation.ServerConfig{RoundTimeout: time.Minute},
			func(ctx context.Context, t *testing.T, f *fed, certs string) context.CancelFunc {
				cctx, cancel := context.WithCancel(ctx)
				runClient(cctx, t, f.addr, certs, 2, 2, "")
				return cancel
			}, "disconnected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := qpJob(2, 10, 3)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			certs := certDir(t, 2)
			f := startServer(t, job, certs, tc.cfg)
			c1 := runClient(ctx, t, f.addr, certs, 1, 1, "")
			kill := tc.lose(ctx, t, f, certs)
			if err := f.srv.WaitJoined(ctx); err != nil {
				t.Fatal(err)
			}
			kill()
			res, err := f.run.Solve(ctx, f.srv)
			var ce *federation.ClientError
			if !errors.Is(err, federation.ErrClientLost) || !errors.As(err, &ce) || ce.Party != 2 || !contains(err, tc.want) {
				t.Fatalf("err = %v, want client 2 lost: %s", err, tc.want)
			}
			if res == nil && ce.Round > 1 || res != nil && len(res.W) != job.Dim {
				t.Errorf("result %+v: want the last committed iterate", res)
			}
			// The surviving client must not take the run for a success.
			f.srv.Abort(err)
			if cerr := <-c1; !errors.Is(cerr, federation.ErrRunFailed) || !contains(cerr, "client 2") {
				t.Errorf("surviving client: %v, want ErrRunFailed naming client 2", cerr)
			}
		})
	}
}
