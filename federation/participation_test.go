package federation_test

import (
	"context"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fedcon/fedcon/experiments/fedjob"
	"github.com/fedcon/fedcon/federation"
	"github.com/fedcon/fedcon/internal/testutil"
	"github.com/fedcon/fedcon/solver"
)

// partialQP is qpJob with partial participation (docs/participation.md).
func partialQP(fraction, drop float64) *fedjob.Job {
	j := qpJob(5, 30, 3)
	j.QP.Participation, j.QP.DropProb = &fraction, drop
	return j
}

// sameRun compares two runs bit for bit: the iterate, multipliers, status,
// the audit, who answered and who missed each round, and the statistics
// but the run time.
func sameRun(t *testing.T, got, want *solver.Result) {
	t.Helper()
	gs, ws := got.Stats, want.Stats
	gs.Runtime, ws.Runtime = 0, 0
	switch {
	case !reflect.DeepEqual(got.W, want.W) || !reflect.DeepEqual(got.Mu, want.Mu):
		t.Errorf("w or μ differ")
	case got.Status != want.Status || got.Objective != want.Objective || got.Residuals != want.Residuals:
		t.Errorf("status %v, objective %v, residuals %+v; want %v, %v, %+v", got.Status, got.Objective, got.Residuals, want.Status, want.Objective, want.Residuals)
	case !reflect.DeepEqual(got.Participation, want.Participation):
		t.Errorf("participation differs: %+v, want %+v", got.Participation, want.Participation)
	case gs != ws:
		t.Errorf("stats %+v, want %+v", gs, ws)
	}
}

// TestPartialSameAnswer: partial participation over gRPC (sampled rounds
// sent to some clients only, drops decided on the server) is the
// in-process run bit for bit when no deadline fires (QP, and NP with Newton,
// uniform and weighted by the rows the clients report when they join).
func TestPartialSameAnswer(t *testing.T) {
	np := npJob(3, "newton", 4)
	fraction := 0.6
	np.NP.Participation, np.NP.DropProb = &fraction, 0.1
	weighted := npJob(3, "newton", 4)
	weighted.NP.Participation, weighted.NP.DropProb, weighted.NP.ParticipationSampling = &fraction, 0.1, "weighted"
	for _, tc := range []struct {
		name string
		job  *fedjob.Job
	}{{"qp", partialQP(0.4, 0.1)}, {"np-newton", np}, {"np-weighted", weighted}} {
		t.Run(tc.name, func(t *testing.T) {
			needData(t, tc.job)
			partialSameAnswer(t, tc.job)
		})
	}
	// The weights are used: weighted and uniform sampling draw other rounds.
	needData(t, np)
	u, err := np.SolveLocal(context.Background(), testDirs, 2)
	if err != nil {
		t.Fatal(err)
	}
	w, err := weighted.SolveLocal(context.Background(), testDirs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if u.Participation.Answered == w.Participation.Answered {
		t.Error("weighted sampling drew the rounds of uniform sampling")
	}
}

func partialSameAnswer(t *testing.T, job *fedjob.Job) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	want, err := job.SolveLocal(ctx, testDirs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want.Participation == nil || want.Participation.PartialRounds == 0 || want.Participation.RetryRounds == 0 {
		t.Fatalf("participation %+v: want partial and retry rounds", want.Participation)
	}
	certs := certDir(t, job.N)
	f := startServer(t, job, certs, federation.ServerConfig{RoundTimeout: 30 * time.Second})
	var clients []<-chan error
	for i := 1; i <= job.N; i++ {
		clients = append(clients, runClient(ctx, t, f.addr, certs, i, i, ""))
	}
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
	sameRun(t, got, want)
}

// TestDeadlineReplay (QP, and NP with Newton): client 2 answers every 40th partial round it gets
// 300 ms late, past the round deadline (150 ms), and client 3 crashes once
// and rejoins from its checkpoint: their late steps are discarded and
// rolled back, the QP run ends Converged, and the in-process run replaying
// the recorded participation (Participation.Replay) is the served run bit
// for bit (but for the floats sent to the clients that missed a round).
func TestDeadlineReplay(t *testing.T) {
	testutil.Slow(t)
	np := npJob(3, "newton", 4) // Newton keeps a factor across calls: rolled back too
	fraction := 0.6
	np.NP.Participation = &fraction
	for _, tc := range []struct {
		name string
		job  *fedjob.Job
	}{{"qp", partialQP(0.6, 0)}, {"np-newton", np}} {
		t.Run(tc.name, func(t *testing.T) {
			needData(t, tc.job)
			deadlineReplay(t, tc.job)
		})
	}
}

func deadlineReplay(t *testing.T, job *fedjob.Job) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	certs := certDir(t, job.N)
	f := startServer(t, job, certs, federation.ServerConfig{RoundTimeout: 30 * time.Second, Rejoin: 30 * time.Second,
		RoundDeadline: 150 * time.Millisecond})
	var clients []<-chan error
	for i := 1; i <= job.N; i++ {
		if i == 2 || i == 3 {
			continue
		}
		clients = append(clients, runClient(ctx, t, f.addr, certs, i, i, ""))
	}
	var partials atomic.Int64
	slow := func(round int64, partial bool) time.Duration {
		if partial && partials.Add(1)%40 == 0 {
			return 300 * time.Millisecond
		}
		return 0
	}
	ended := make(chan error, 3)
	go func() { // client 2: slow
		creds, _ := federation.ClientCredentials(certs, 2, "")
		conn, err := federation.Dial(f.addr, creds)
		if err != nil {
			ended <- err
			return
		}
		defer conn.Close()
		_, err = federation.RunClient(ctx, conn, federation.ClientOptions{Party: 2, Load: loader, Delay: slow})
		ended <- err
	}()
	ckpt := filepath.Join(t.TempDir(), "client-3.ckpt")
	go func() { // client 3: crashes in its 20th round, then rejoins
		for k, stall := range []int64{20, 0} {
			creds, _ := federation.ClientCredentials(certs, 3, "")
			conn, err := federation.Dial(f.addr, creds)
			if err != nil {
				ended <- err
				return
			}
			cctx, ccancel := context.WithCancel(ctx)
			answered := int64(0)
			o := federation.ClientOptions{Party: 3, Load: loader, Checkpoint: ckpt, Delay: func(int64, bool) time.Duration {
				if answered++; stall > 0 && answered == stall {
					ccancel() // killed after its checkpoint, before it replies
				}
				return 0
			}}
			_, err = federation.RunClient(cctx, conn, o)
			ccancel()
			conn.Close()
			if k == 1 {
				ended <- err
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
	for range 2 {
		if err := <-ended; err != nil {
			t.Errorf("client 2 or 3: %v", err)
		}
	}
	if f.srv.Missed() == 0 {
		t.Fatal("no reply missed the deadline: the test tests nothing")
	}
	if job.Problem == "qp" && got.Status != solver.Converged { // NP: 4 outer iterations, capped
		t.Fatalf("status %v", got.Status)
	}
	t.Logf("%d replies missed the deadline; %d rounds, %d partial", f.srv.Missed(), got.Stats.Rounds, got.Participation.PartialRounds)
	job.Replay(got.Participation.Answered, got.Participation.Missed)
	want, err := job.SolveLocal(ctx, testDirs, 2)
	if err != nil {
		t.Fatal(err)
	}
	sameRun(t, got, want)
}
