package federation_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/fedjob"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/federation"
	"github.com/fedcon/fedcon/solver"
)

// testDirs are where the NP tests find monks-1: the real UCI files
// ($FEDCON_DATA_DIR, else ../../shared/datasets beside the repository).
var testDirs = func() []string {
	dir := os.Getenv("FEDCON_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets")
	}
	return []string{dir}
}()

// needData skips a test of a job on a data set when its files are absent.
func needData(t testing.TB, job *fedjob.Job) {
	t.Helper()
	if job.Problem != "np" && job.Problem != "fair" {
		return
	}
	if _, err := os.Stat(filepath.Join(testDirs[0], "adult", "adult.data")); err != nil {
		t.Skipf("the UCI files (adult, monks) not found in %s: set FEDCON_DATA_DIR to run this test", testDirs[0])
	}
}

func qpJob(n, d, m int) *fedjob.Job {
	return &fedjob.Job{Problem: "qp", N: n, Dim: d, M: m, QP: &proxal.QPConfig{
		TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"},
		MethodConfig: proxal.MethodConfig{Beta: 10, SBar: 0.1, Rho: 1, Q: 0.9, Eps1: 1e-3, Eps2: 1e-3,
			MaxOuter: 10000, MaxInner: 10000, InnerTest: solver.InnerTestPaper}}}
}

func npJob(n int, sub proxal.Subsolver, maxOuter int) *fedjob.Job {
	return &fedjob.Job{Problem: "np", N: n, Dataset: "monks-1", NP: &proxal.NPConfig{
		TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"}, R: 0.2, ADMMStart: "wk",
		ALConfig: proxal.ALConfig{Subsolver: sub, RhoRule: solver.RhoFixed, Relax: 1, MethodConfig: proxal.MethodConfig{Beta: 300, SBar: 0.001, Rho: 0.01,
			Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: maxOuter, MaxInner: 300, InnerTest: solver.InnerTestPaper}}}}
}

func fairJob(n, maxOuter int) *fedjob.Job {
	return &fedjob.Job{Problem: "fair", N: n, Dataset: "adult-b", Fair: &proxal.FairConfig{
		TrialConfig: experiments.TrialConfig{Seed: 1, Trials: 1, RNG: "fedcon"}, R: 0.1,
		ALConfig: proxal.ALConfig{Subsolver: "newton", RhoRule: solver.RhoFixed, Relax: 1, MethodConfig: proxal.MethodConfig{Beta: 10, SBar: 0.001, Rho: 1e8,
			Q: 0.9, Eps1: 1e-3, Eps2: 1e-3, MaxOuter: maxOuter, MaxInner: 300, InnerTest: solver.InnerTestPaper}}}}
}

// npRule is a short NP run with Algorithm 2's ρ rule (the presets'
// settings for hessian: σ = 0.01, the measured test).
func npRule(n int, rule solver.RhoRule) *fedjob.Job {
	j := npJob(n, "newton", 3)
	j.NP.RhoRule = rule
	if rule == solver.RhoHessian {
		j.NP.MetricShift, j.NP.InnerTest = 0.01, solver.InnerTestMeasured
	}
	return j
}

// certDir writes a CA, a server certificate for 127.0.0.1 and clients 1..n.
func certDir(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	if err := federation.InitCA(dir, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := federation.Issue(dir, "server", []string{"127.0.0.1"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if err := federation.Issue(dir, federation.ClientName(i), nil, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fed is a server on 127.0.0.1 and its gRPC plumbing.
type fed struct {
	srv  *federation.Server
	run  *fedjob.FedRun
	addr string
	g    *grpc.Server
}

func startServer(t testing.TB, job *fedjob.Job, certs string, cfg federation.ServerConfig) *fed {
	t.Helper()
	run, err := job.Server(testDirs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Nodes, err = run.Nodes(); err != nil {
		t.Fatal(err)
	}
	if cfg.Job, err = job.Marshal(); err != nil {
		t.Fatal(err)
	}
	if cfg.RunID == "" {
		cfg.RunID = "test-run"
	}
	if certs != "" {
		cfg.Identify = federation.PeerParty
	}
	srv, addr, g := serveGRPC(t, cfg, certs)
	return &fed{srv: srv, run: run, addr: addr, g: g}
}

// serveRaw serves cfg on 127.0.0.1 with the certificates in certs.
func serveRaw(t testing.TB, cfg federation.ServerConfig, certs string) (*federation.Server, string) {
	srv, addr, _ := serveGRPC(t, cfg, certs)
	return srv, addr
}

func serveGRPC(t testing.TB, cfg federation.ServerConfig, certs string) (*federation.Server, string, *grpc.Server) {
	t.Helper()
	srv, err := federation.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := federation.ServerCredentials(certs)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := federation.NewGRPCServer(srv, creds)
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	return srv, lis.Addr().String(), g
}

func loader(job []byte, party int) (solver.Party, int, error) {
	j, err := fedjob.UnmarshalJob(job)
	if err != nil {
		return nil, 0, err
	}
	return j.Party(testDirs, "", party)
}

// runClient runs client party as a goroutine; its error arrives on the channel.
func runClient(ctx context.Context, t testing.TB, addr, certs string, party int, as int, ckpt string) <-chan error {
	t.Helper()
	creds, err := federation.ClientCredentials(certs, as, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := federation.Dial(addr, creds)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		defer conn.Close()
		_, err := federation.RunClient(ctx, conn, federation.ClientOptions{Party: party, Load: loader, Checkpoint: ckpt})
		done <- err
	}()
	return done
}

// same reports whether two results agree bit for bit (but for wall time):
// %v prints a float64 in its shortest round-trip form.
func same(a, b *solver.Result) bool {
	x, y := *a, *b
	x.Stats.Runtime, y.Stats.Runtime = 0, 0
	return fmt.Sprintf("%+v", x) == fmt.Sprintf("%+v", y)
}

// TestLoopbackSameAnswer: 5 clients over gRPC with mutual TLS on
// 127.0.0.1 reproduce the in-process run bit for bit.
func TestLoopbackSameAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		job  *fedjob.Job
	}{
		{"qp", qpJob(5, 30, 3)},
		{"np-newton", npJob(5, "newton", 10)},
		{"np-lbfgs", npJob(3, "lbfgs", 2)},
		{"fair", fairJob(5, 2)},
		{"np-rho-balance", npRule(3, solver.RhoBalance)},
		{"np-rho-adaptive", npRule(3, solver.RhoAdaptive)},
		{"np-rho-hessian", npRule(3, solver.RhoHessian)},
		{"fair-rho-hessian", func() *fedjob.Job {
			j := fairJob(3, 2)
			j.Fair.RhoRule, j.Fair.MetricShift, j.Fair.InnerTest, j.Fair.Relax = solver.RhoHessian, 0.01, solver.InnerTestMeasured, 1.5
			return j
		}()},
		{"np-admm-start-w0", func() *fedjob.Job { j := npJob(3, "newton", 3); j.NP.ADMMStart = "w0"; return j }()},
		{"qp-measured-test", func() *fedjob.Job { j := qpJob(3, 20, 2); j.QP.InnerTest = solver.InnerTestMeasured; return j }()},
		// The KKT polish: its rounds (evaluation only) and the audit that
		// commits the polished multipliers cross the wire like any other.
		{"qp-polish", func() *fedjob.Job {
			j := qpJob(3, 20, 2)
			j.QP.Polish, j.QP.Eps1, j.QP.Eps2 = true, 1e-9, 1e-9
			return j
		}()},
		{"np-hessian-polish", func() *fedjob.Job {
			j := npRule(3, solver.RhoHessian)
			j.NP.MaxOuter, j.NP.Polish, j.NP.Eps1, j.NP.Eps2 = 100, true, 1e-8, 1e-8
			return j
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needData(t, tc.job)
			if testing.Short() && tc.job.Problem != "qp" {
				t.Skip("NP runs take seconds (minutes with -race); the QP case covers -short")
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			want, err := tc.job.SolveLocal(ctx, testDirs, 2)
			if err != nil {
				t.Fatal(err)
			}
			certs := certDir(t, tc.job.N)
			f := startServer(t, tc.job, certs, federation.ServerConfig{RoundTimeout: 30 * time.Second})
			var clients []<-chan error
			for i := 1; i <= tc.job.N; i++ {
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
			if !same(got, want) {
				t.Errorf("federated result differs from in-process:\n got %+v\nwant %+v", got.Stats, want.Stats)
			}
			down, up := f.srv.WireBytes()
			st := got.Stats
			alg := 8 * (st.FloatsDown + st.FloatsUp + st.DiagFloatsUp)
			t.Logf("%s: %d rounds, algorithm %d B (down %d, up %d, diag %d floats), protobuf %d B (down %d, up %d)",
				tc.name, st.Rounds, alg, st.FloatsDown, st.FloatsUp, st.DiagFloatsUp, down+up, down, up)
			// The wire carries what the algorithm counts plus framing: a
			// header and a few scalars per message, under 96 bytes.
			msgs := 2 * int64(tc.job.N) * int64(st.Rounds)
			if down+up < alg || down+up-alg > 96*msgs {
				t.Errorf("wire bytes %d for the algorithm's %d bytes in %d messages: want at most 96 more per message", down+up, alg, msgs)
			}
		})
	}
}

// TestAdmission: a client may answer only for the identity in its
// certificate, and a client without a certificate is refused.
func TestAdmission(t *testing.T) {
	job := qpJob(2, 10, 1)
	certs := certDir(t, 2)
	f := startServer(t, job, certs, federation.ServerConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// client-1's certificate claiming party 2.
	if err := <-runClient(ctx, t, f.addr, certs, 2, 1, ""); err == nil || !contains(err, "certificate is for client 1") {
		t.Errorf("impersonation: err = %v", err)
	}
	// A certificate of another CA: the TLS handshake fails.
	other := certDir(t, 2)
	creds, err := federation.ClientCredentials(other, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := federation.Dial(f.addr, creds)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	foreign, cancel3 := context.WithTimeout(ctx, 3*time.Second)
	defer cancel3()
	if _, err := federation.RunClient(foreign, conn, federation.ClientOptions{Party: 1, Load: loader}); err == nil {
		t.Error("a client of another CA was admitted")
	}
	// No certificate at all: the TLS handshake fails.
	short, cancel2 := context.WithTimeout(ctx, 3*time.Second)
	defer cancel2()
	if err := <-runClient(short, t, f.addr, "", 1, 1, ""); err == nil {
		t.Error("a plaintext client was admitted")
	}
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// TestSessionReplaced: a second session for a party (same certificate)
// replaces the first, which hung; the run is unaffected.
func TestSessionReplaced(t *testing.T) {
	job := qpJob(2, 10, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	want, err := job.SolveLocal(ctx, testDirs, 2)
	if err != nil {
		t.Fatal(err)
	}
	certs := certDir(t, 2)
	f := startServer(t, job, certs, federation.ServerConfig{RoundTimeout: 30 * time.Second})
	hungClient(ctx, t, f.addr, certs, 2)
	for !f.srv.Connected()[1] { // the hung session first, then its replacement
		if ctx.Err() != nil {
			t.Fatal("the hung session never joined")
		}
		time.Sleep(time.Millisecond)
	}
	// Client 2 joins (replacing the hung session) before client 1, so the
	// run cannot start with the hung one.
	creds, err := federation.ClientCredentials(certs, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := federation.Dial(f.addr, creds)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	joined, c2 := make(chan struct{}), make(chan error, 1)
	go func() {
		_, err := federation.RunClient(ctx, conn, federation.ClientOptions{Party: 2, Load: loader,
			Joined: func(string, int64) { close(joined) }})
		c2 <- err
	}()
	select {
	case <-joined:
	case err := <-c2:
		t.Fatalf("client 2: %v", err)
	}
	c1 := runClient(ctx, t, f.addr, certs, 1, 1, "")
	if err := f.srv.WaitJoined(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := f.run.Solve(ctx, f.srv)
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Close()
	for _, c := range []<-chan error{c1, c2} {
		if err := <-c; err != nil {
			t.Error(err)
		}
	}
	if !same(got, want) {
		t.Errorf("run with a replaced session differs from in-process")
	}
}
