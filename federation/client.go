package federation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/fedcon/fedcon/federation/fedpb"
	"github.com/fedcon/fedcon/solver"
)

// ErrRunFailed signifies that the server ended a run that did not succeed
// (a client lost, the server interrupted, a failed step): the clients fail
// with it.
var ErrRunFailed = errors.New("the run failed on the server")

// LoadFunc returns client party's data for the job the server sent, and the
// dimension of its problem. It loads that party only.
type LoadFunc func(job []byte, party int) (p solver.Party, dim int, err error)

// ClientOptions configure one client process.
type ClientOptions struct {
	Party int // 1..n
	Load  LoadFunc
	// LoadDRFL loads the party of a DRFL run (nil: this client serves
	// proximal AL runs only).
	LoadDRFL DRFLLoadFunc
	// Checkpoint, if set, is the state file written after every round: a
	// restarted client resumes the run from it. It is removed when the
	// run ends.
	Checkpoint string
	// Joined, if set, is called once the node is built (for logs).
	Joined func(runID string, round int64)
	// ConnectTimeout, if positive, bounds the wait for the server (it may
	// start after its clients) until the run's setup arrives.
	ConnectTimeout time.Duration
	// StallAt, if positive, hangs the client after it checkpointed its
	// first round numbered StallAt or later (under partial participation a
	// client is not sent every round), before it replies: fault drills
	// (kill it, restart it).
	StallAt int64
	// Delay, if set, is how long the client waits before it replies to a
	// round (after its step and checkpoint): a slow client, for drills of
	// the round deadline of partial participation.
	Delay func(round int64, partial bool) time.Duration
}

// ClientSummary is what a client did in a session.
type ClientSummary struct {
	RunID   string
	Rounds  int64 // rounds answered in this session
	Resumed bool  // started from a checkpoint
}

// RunClient runs client opt.Party's session on conn until the server ends
// the run. The error of a lost connection wraps the gRPC status.
func RunClient(ctx context.Context, conn grpc.ClientConnInterface, opt ClientOptions) (*ClientSummary, error) {
	ck, err := readCheckpoint(opt.Checkpoint, opt.Party)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if opt.ConnectTimeout > 0 {
		t := time.AfterFunc(opt.ConnectTimeout, func() {
			cancel(fmt.Errorf("federation: no server answered within %v", opt.ConnectTimeout))
		})
		defer t.Stop()
		joined := opt.Joined
		opt.Joined = func(run string, round int64) {
			t.Stop()
			if joined != nil {
				joined(run, round)
			}
		}
	}
	stream, err := fedpb.NewFederationClient(conn).Session(ctx, grpc.WaitForReady(true))
	if err != nil {
		return nil, fmt.Errorf("federation: open session: %w", joinCause(ctx, err))
	}
	defer stream.CloseSend()
	hello := &fedpb.Hello{Protocol: Protocol, Party: int32(opt.Party)}
	if ck != nil {
		hello.RunId, hello.CheckpointRound = ck.RunId, ck.Round
	}
	if err := stream.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Hello{Hello: hello}}); err != nil {
		return nil, recvErr(stream, err)
	}
	m, err := stream.Recv()
	if err != nil {
		return nil, fmt.Errorf("federation: join: %w", joinCause(ctx, err))
	}
	setup := m.GetSetup()
	switch {
	case setup == nil:
		return nil, fmt.Errorf("federation: server did not send a setup")
	case setup.Protocol != Protocol || int(setup.Party) != opt.Party:
		return nil, fmt.Errorf("federation: setup for protocol %d client %d, want %d client %d", setup.Protocol, setup.Party, Protocol, opt.Party)
	case ck == nil && setup.Round != 0:
		return nil, fmt.Errorf("federation: run %s is at round %d and this client has no checkpoint", setup.RunId, setup.Round)
	}
	if setup.Drfl != nil {
		sum := &ClientSummary{RunID: setup.RunId}
		return sum, runDRFL(ctx, stream, setup, opt, sum)
	}
	cfg, err := nodeConfigFromPB(setup.Config)
	if err != nil {
		return nil, err
	}
	cfg.Party = opt.Party
	party, dim, err := opt.Load(setup.Job, opt.Party)
	if err != nil {
		return nil, fmt.Errorf("federation: load client %d: %w", opt.Party, err)
	}
	if dim != cfg.Dim {
		return nil, fmt.Errorf("federation: client %d's data has dimension %d, the run %d", opt.Party, dim, cfg.Dim)
	}
	mc := 0
	if k := party.Cone(); k != nil {
		mc = k.Dim()
	}
	if cfg.Mu0 != nil && len(cfg.Mu0) != mc {
		return nil, fmt.Errorf("federation: client %d: μ_i^0 has %d entries, the party %d constraints", opt.Party, len(cfg.Mu0), mc)
	}
	node, err := solver.NewClientNode(party, cfg)
	if err != nil {
		return nil, fmt.Errorf("federation: client %d: %w", opt.Party, err)
	}
	sum := &ClientSummary{RunID: setup.RunId}
	last := int64(0)
	// before is the state before the step of round last when that was a
	// partial round, whose reply the server may have discarded; it is the
	// state after round beforeRound.
	var before *fedpb.NodeState
	var beforeRound int64
	if ck != nil {
		if err := node.Restore(stateFromPB(ck.State)); err != nil {
			return nil, fmt.Errorf("federation: checkpoint %s: %w", opt.Checkpoint, err)
		}
		last, sum.Resumed = ck.Round, true
		before, beforeRound = ck.Before, ck.BeforeRound
	}
	// Rows weigh the client under weighted participation (the server's
	// sampler; the same count an in-process run weighs it by).
	ready := &fedpb.Ready{RunId: setup.RunId, Party: int32(opt.Party), Dim: int32(dim), Constraints: int32(mc), Rows: int64(solver.PartyRows(party))}
	if err := stream.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Ready{Ready: ready}}); err != nil {
		return nil, recvErr(stream, err)
	}
	if opt.Joined != nil {
		opt.Joined(setup.RunId, last)
	}
	for {
		m, err := stream.Recv()
		if err != nil {
			return sum, lostServer(opt.Party, last, err)
		}
		rd := m.GetRound()
		switch {
		case rd == nil || rd.RunId != setup.RunId:
			return sum, fmt.Errorf("federation: client %d: message is not a round of run %s", opt.Party, setup.RunId)
		case rd.Kind == fedpb.Kind_KIND_DONE:
			if opt.Checkpoint != "" {
				if err := os.Remove(opt.Checkpoint); err != nil && !errors.Is(err, os.ErrNotExist) {
					return sum, fmt.Errorf("federation: %w", err)
				}
			}
			return sum, nil
		case ck != nil && rd.Round == ck.Round && ck.Last != nil:
			// Answered before the crash, lost on the way: the same reply.
			if err := stream.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Reply{Reply: ck.Last}}); err != nil {
				return sum, recvErr(stream, err)
			}
			ck = nil
			continue
		case rd.Round <= last:
			return sum, fmt.Errorf("federation: client %d: round %d after round %d", opt.Party, rd.Round, last)
		case rd.Base != last && (before == nil || rd.Base != beforeRound):
			return sum, fmt.Errorf("federation: client %d: round %d needs the state after round %d, the client is after round %d", opt.Party, rd.Round, rd.Base, last)
		case rd.Base != last:
			// The server discarded the reply to round last (it missed
			// the deadline): undo its step.
			if err := node.Restore(stateFromPB(before)); err != nil {
				return sum, fmt.Errorf("federation: client %d: roll back round %d: %w", opt.Party, last, err)
			}
			last = rd.Base
		}
		ck = nil
		before = nil
		if rd.Partial {
			before, beforeRound = stateToPB(node.State()), last
		}
		rep := &fedpb.Reply{RunId: setup.RunId, Round: rd.Round, Kind: rd.Kind, Party: int32(opt.Party)}
		b, err := broadcastFromPB(rd.Kind, rd.Broadcast, cfg.Dim)
		var r *solver.Reply
		if err == nil {
			r, err = node.Handle(b)
		}
		if err != nil {
			rep.Error = err.Error()
			stream.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Reply{Reply: rep}})
			return sum, fmt.Errorf("federation: client %d, round %d: %w", opt.Party, rd.Round, err)
		}
		rep.Body = replyToPB(b.Kind, r)
		if opt.Checkpoint != "" {
			c := &fedpb.Checkpoint{RunId: setup.RunId, Party: int32(opt.Party), Round: rd.Round, State: stateToPB(node.State()), Last: rep,
				Before: before, BeforeRound: beforeRound}
			if err := writeCheckpoint(opt.Checkpoint, c); err != nil {
				return sum, err
			}
		}
		if opt.StallAt > 0 && rd.Round >= opt.StallAt {
			<-ctx.Done()
			return sum, fmt.Errorf("federation: client %d stalled at round %d: %w", opt.Party, rd.Round, ctx.Err())
		}
		if opt.Delay != nil {
			if d := opt.Delay(rd.Round, rd.Partial); d > 0 {
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return sum, ctx.Err()
				}
			}
		}
		if err := stream.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Reply{Reply: rep}}); err != nil {
			return sum, recvErr(stream, err)
		}
		last = rd.Round
		sum.Rounds++
	}
}

// lostServer is the error of a session the server ended without Done.
func lostServer(party int, last int64, err error) error {
	if st, ok := status.FromError(err); ok && st.Code() == codes.Aborted {
		return fmt.Errorf("federation: client %d after round %d: %s: %w", party, last, st.Message(), ErrRunFailed)
	}
	return fmt.Errorf("federation: client %d after round %d: %w", party, last, err)
}

// joinCause prefers the connect timeout's message to gRPC's "context canceled".
func joinCause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && c != context.Canceled {
		return c
	}
	return err
}

// recvErr turns a failed Send into the server's reason: gRPC reports it on
// the next Recv.
func recvErr(stream grpc.BidiStreamingClient[fedpb.ClientMsg, fedpb.ServerMsg], err error) error {
	if err == io.EOF {
		_, err = stream.Recv()
	}
	return fmt.Errorf("federation: %w", err)
}

func readCheckpoint(path string, party int) (*fedpb.Checkpoint, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("federation: checkpoint: %w", err)
	}
	ck := &fedpb.Checkpoint{}
	if err := proto.Unmarshal(b, ck); err != nil {
		return nil, fmt.Errorf("federation: checkpoint %s: %w", path, err)
	}
	if int(ck.Party) != party || ck.State == nil || ck.Round < 1 {
		return nil, fmt.Errorf("federation: checkpoint %s is of client %d at round %d, not a resumable state of client %d", path, ck.Party, ck.Round, party)
	}
	return ck, nil
}

// writeCheckpoint replaces path atomically: a crash leaves the old or the
// new state, never half of one.
func writeCheckpoint(path string, c *fedpb.Checkpoint) error {
	b, err := proto.Marshal(c)
	if err != nil {
		return fmt.Errorf("federation: checkpoint: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("federation: checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("federation: checkpoint: %w", err)
	}
	return nil
}
