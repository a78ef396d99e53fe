package fedjob

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/federation"
	"github.com/fedcon/fedcon/solver"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// ServeOptions are how `fedcon serve` runs a job.
type ServeOptions struct {
	Listen   string // host:port
	Certs    string // certificate directory; empty only with Insecure
	Insecure bool   // plaintext, no client authentication (loopback only)
	RunID    string // empty: random
	// RoundTimeout bounds one client's answer to a round; Rejoin is how long
	// a lost client may take to come back (0: the run stops, ClientLost);
	// JoinTimeout bounds the wait for all clients at the start.
	RoundTimeout, Rejoin, JoinTimeout time.Duration
	// RoundDeadline, if positive, ends each partial round of partial
	// participation: clients that have not answered by then are absent
	// from it (federation.ServerConfig.RoundDeadline).
	RoundDeadline time.Duration
	Workers       int
	Log           func(format string, args ...any)
}

// ServeResult is a served run: what the result file holds (no credentials).
type ServeResult struct {
	RunID  string `json:"run_id"`
	Job    *Job   `json:"job"`
	Status string `json:"status"` // solver status (the certificate), or ClientLost
	// TestStatus is what the run's own stopping test said (solver.Result.Test).
	TestStatus string    `json:"test_status,omitempty"`
	Error      string    `json:"error,omitempty"`
	W          []float64 `json:"w"` // the last committed outer iterate
	// Objective is f(w) and Residuals the KKT residuals of Definition 1,
	// both recomputed at w by the final audit round; nil (null) when the
	// run stopped before it (ClientLost, Canceled, Diverged): not computed.
	Objective *float64          `json:"objective"`
	Residuals *solver.Residuals `json:"kkt_residuals"`
	Stats     solver.Stats      `json:"stats"`
	// Participation is who answered each round under partial
	// participation (the trial files' record; --replay reruns it), and
	// DeadlineMisses how many replies missed a round deadline.
	Participation  *solver.ParticipationLog `json:"participation,omitempty"`
	DeadlineMisses int64                    `json:"deadline_misses,omitempty"`
	// AlgBytes is 8 bytes per float the algorithm counts; WireDown/WireUp
	// are the protobuf bytes sent and received (under gRPC/HTTP2/TLS framing).
	AlgBytes int64   `json:"algorithm_bytes"`
	WireDown int64   `json:"wire_bytes_down"`
	WireUp   int64   `json:"wire_bytes_up"`
	Wall     float64 `json:"wall_seconds"`
	// DRFL holds a DRFL run's outcome (W is then v = (w, b)).
	DRFL   *DRFLServed    `json:"drfl,omitempty"`
	Result *solver.Result `json:"-"`
}

// DRFLServed is the part of solver/adlpmm's Result a served run records.
type DRFLServed struct {
	Rounds       int       `json:"rounds"`
	Objective    float64   `json:"objective"`
	WorstCase    float64   `json:"worst_case"`
	QStar        []float64 `json:"q_star"`
	ClientLoss   []float64 `json:"client_loss"`
	Lambda       []float64 `json:"lambda"`
	BytesTotal   int64     `json:"bytes_total"`
	QPIterations int       `json:"inner_iterations"`
}

// StatusClientLost is ServeResult.Status when a client did not come back.
const StatusClientLost = "ClientLost"

// Serve listens, waits for the job's n clients, runs Algorithm 1 through
// them and ends their sessions. A lost client ends the run with status
// ClientLost, the last committed iterate and an error naming the client.
func Serve(ctx context.Context, job *Job, dirs []string, o ServeOptions) (*ServeResult, error) {
	if o.Insecure && !federation.IsLoopback(o.Listen) {
		return nil, &experiments.ConfigError{Field: "listen", Value: o.Listen, Reason: "--insecure is allowed on a loopback address only (127.0.0.1:PORT)"}
	}
	if !o.Insecure && o.Certs == "" {
		return nil, &experiments.ConfigError{Field: "certs", Value: "", Reason: "need a certificate directory (fedcon certs init/issue), or --insecure on loopback"}
	}
	if o.RunID == "" {
		b := make([]byte, 8)
		rand.Read(b)
		o.RunID = hex.EncodeToString(b)
	}
	log := o.Log
	if log == nil {
		log = func(string, ...any) {}
	}
	jb, err := job.Marshal()
	if err != nil {
		return nil, err
	}
	if o.RoundDeadline < 0 {
		return nil, &experiments.ConfigError{Field: "round_deadline", Value: o.RoundDeadline, Reason: "must be >= 0 (0: none)"}
	}
	cfg := federation.ServerConfig{RunID: o.RunID, Job: jb, RoundTimeout: o.RoundTimeout, Rejoin: o.Rejoin,
		RoundDeadline: o.RoundDeadline, Log: o.Log}
	var run *FedRun
	var dset *adlpmm.Settings
	if job.Problem == "drfl" {
		if dset, err = job.DRFLServer(o.Workers); err != nil {
			return nil, err
		}
		cfg.DRFL = &federation.DRFLConfig{C: dset.C, Tol: dset.Tol, Clients: job.N}
	} else {
		if run, err = job.Server(dirs, o.Workers); err != nil {
			return nil, err
		}
		if cfg.Nodes, err = run.Nodes(); err != nil {
			return nil, err
		}
	}
	if !o.Insecure {
		cfg.Identify = federation.PeerParty
	}
	srv, err := federation.NewServer(cfg)
	if err != nil {
		return nil, err
	}
	certs := o.Certs
	if o.Insecure {
		certs = ""
	}
	creds, err := federation.ServerCredentials(certs)
	var ce *federation.CertError
	if errors.As(err, &ce) {
		return nil, err
	}
	if err != nil {
		return nil, &experiments.ConfigError{Field: "certs", Value: o.Certs, Reason: err.Error()}
	}
	lis, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	g := federation.NewGRPCServer(srv, creds)
	go g.Serve(lis)
	defer g.Stop()
	log("run %s: listening on %s for %d clients", o.RunID, lis.Addr(), job.N)

	jctx := ctx
	if o.JoinTimeout > 0 {
		var cancel context.CancelFunc
		jctx, cancel = context.WithTimeout(ctx, o.JoinTimeout)
		defer cancel()
	}
	if err := srv.WaitJoined(jctx); err != nil {
		srv.Abort(err)
		return nil, err
	}
	log("run %s: %d clients joined", o.RunID, job.N)
	start := time.Now()
	out := &ServeResult{RunID: o.RunID, Job: job}
	var res *solver.Result
	if dset != nil {
		err = serveDRFL(ctx, job, srv, dset, out)
	} else {
		res, err = run.Solve(ctx, srv)
	}
	out.Wall, out.Result = time.Since(start).Seconds(), res
	out.WireDown, out.WireUp = srv.WireBytes()
	out.DeadlineMisses = srv.Missed()
	if res != nil {
		out.Status, out.W, out.Stats = res.Status.String(), res.W, res.Stats
		out.TestStatus = res.Test.String()
		out.Participation = res.Participation
		out.SetAudit(res)
		out.AlgBytes = 8 * (res.Stats.FloatsDown + res.Stats.FloatsUp + res.Stats.DiagFloatsUp)
	}
	if errors.Is(err, federation.ErrClientLost) {
		out.Status = StatusClientLost
	}
	if err != nil {
		out.Error = err.Error()
	}
	if err != nil {
		srv.Abort(err) // the clients exit non-zero too
	} else {
		srv.Close()
	}
	// Let the clients read the end of the run, but not wait on a hung one.
	stopped := make(chan struct{})
	go func() { g.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
	}
	return out, err
}

// SetAudit records r's objective and KKT residuals when its final audit
// round ran (it fills Parties); otherwise they stay not computed.
func (out *ServeResult) SetAudit(r *solver.Result) {
	if r == nil || r.Parties == nil {
		return
	}
	obj, res := r.Objective, r.Residuals
	out.Objective, out.Residuals = &obj, &res
}

// serveDRFL runs AD-LPMM through the joined clients into out.
func serveDRFL(ctx context.Context, job *Job, srv *federation.Server, set *adlpmm.Settings, out *ServeResult) error {
	clients, d, err := srv.DRFLClients()
	if err != nil {
		return err
	}
	prob, err := job.DRFLProblem(clients, d-1)
	if err != nil {
		return err
	}
	res, err := adlpmm.Solve(ctx, prob, set)
	if err == nil {
		err = srv.DRFLErr()
	}
	if res != nil {
		out.Status, out.W = res.Status.String(), res.V
		out.AlgBytes = res.BytesTotal
		out.DRFL = &DRFLServed{Rounds: res.Rounds, Objective: res.Objective, WorstCase: res.WorstCase, QStar: res.QStar,
			ClientLoss: res.ClientLoss, Lambda: res.Lambda, BytesTotal: res.BytesTotal, QPIterations: res.QPIterations}
		out.Stats.Rounds = res.Rounds
	}
	return err
}

// ClientOptions are how `fedcon client` joins a run.
type ClientOptions struct {
	Server     string // host:port
	ServerName string // name in the server's certificate, if not the host dialled
	Party      int
	Certs      string
	Insecure   bool
	Data       string // a `fedcon data export` JSON file; empty: the data set by name
	Checkpoint string
	StallAt    int64 // fault drills: hang after checkpointing this round
	// ConnectTimeout bounds the wait for the server to answer (0: none).
	ConnectTimeout time.Duration
	Log            func(format string, args ...any)
}

// RunClient joins a run as one client and answers its rounds until the
// server ends it.
func RunClient(ctx context.Context, dirs []string, o ClientOptions) (*federation.ClientSummary, error) {
	if o.Insecure && !federation.IsLoopback(o.Server) {
		return nil, &experiments.ConfigError{Field: "server", Value: o.Server, Reason: "--insecure is allowed on a loopback address only (127.0.0.1:PORT)"}
	}
	if !o.Insecure && o.Certs == "" {
		return nil, &experiments.ConfigError{Field: "certs", Value: "", Reason: "need a certificate directory with ca.pem and client-N.pem, or --insecure on loopback"}
	}
	if o.Party < 1 {
		return nil, &experiments.ConfigError{Field: "party", Value: o.Party, Reason: "must be >= 1"}
	}
	certs := o.Certs
	if o.Insecure {
		certs = ""
	}
	tlsCfg, err := federation.ClientTLSConfig(certs, o.Party, o.ServerName)
	var ce *federation.CertError
	if errors.As(err, &ce) {
		return nil, err
	}
	if err != nil {
		return nil, &experiments.ConfigError{Field: "certs", Value: o.Certs, Reason: err.Error()}
	}
	creds := insecure.NewCredentials()
	if tlsCfg != nil {
		creds = credentials.NewTLS(tlsCfg)
	}
	// A refused certificate or a transport mismatch is reported at once,
	// not after the connect timeout.
	start := time.Now()
	if err := awaitServer(ctx, o.Server, tlsCfg, o.ConnectTimeout); err != nil {
		return nil, err
	}
	if o.ConnectTimeout > 0 {
		o.ConnectTimeout = max(o.ConnectTimeout-time.Since(start), time.Millisecond)
	}
	conn, err := federation.Dial(o.Server, creds)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	load := func(b []byte, party int) (solver.Party, int, error) {
		job, err := UnmarshalJob(b)
		if err != nil {
			return nil, 0, err
		}
		return job.Party(dirs, o.Data, party)
	}
	joined := func(run string, round int64) {
		if o.Log == nil {
			return
		}
		if round > 0 {
			o.Log("client %d: rejoined run %s from checkpoint at round %d", o.Party, run, round)
		} else {
			o.Log("client %d: joined run %s", o.Party, run)
		}
	}
	loadDRFL := func(b []byte, party int) (adlpmm.Client, int, error) {
		job, err := UnmarshalJob(b)
		if err != nil {
			return nil, 0, err
		}
		if o.Data != "" {
			return nil, 0, &experiments.ConfigError{Field: "data", Value: o.Data, Reason: "a DRFL client draws its split from the data set; no file"}
		}
		return job.DRFLParty(dirs, party)
	}
	return federation.RunClient(ctx, conn, federation.ClientOptions{Party: o.Party, Load: load, LoadDRFL: loadDRFL,
		Checkpoint: o.Checkpoint, Joined: joined, StallAt: o.StallAt, ConnectTimeout: o.ConnectTimeout})
}

// awaitServer probes the server until it answers (it may start after its
// clients), for up to timeout (0: no bound). A refusal ends the wait: it
// will not change.
func awaitServer(ctx context.Context, addr string, cfg *tls.Config, timeout time.Duration) error {
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		err := federation.Probe(ctx, addr, cfg)
		var he *federation.HandshakeError
		if err == nil || errors.As(err, &he) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("federation: no server answered within %v (%w)", timeout, err)
		case <-time.After(300 * time.Millisecond):
		}
	}
}
