// Package federation runs the clients of Algorithm 1 as separate processes:
// a solver.Transport over gRPC on the server side (Server), the client
// process's loop around a solver.ClientNode (Client), and the certificates
// of mutual TLS (certs.go).
package federation

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/fedcon/fedcon/federation/fedpb"
	"github.com/fedcon/fedcon/solver"
)

// Protocol is the version of the session protocol; a client of another
// version is refused at Hello.
const Protocol = 4

// ErrClientLost is wrapped by the error of a round that a client did not
// answer in time and did not rejoin.
var ErrClientLost = errors.New("client lost")

// ClientError names the client that failed a round.
type ClientError struct {
	Party int // 1..n
	Round int64
	Err   error
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("federation: client %d, round %d: %v", e.Party, e.Round, e.Err)
}
func (e *ClientError) Unwrap() error { return e.Err }

// ServerConfig configures a Server.
type ServerConfig struct {
	RunID string
	// Job is sent to every client as is: what it needs to load its party.
	Job []byte
	// Nodes are the clients' configurations, in client order (Algorithm 1
	// of the proximal AL paper), or nil for a DRFL run (DRFL set).
	Nodes []solver.ClientConfig
	// DRFL, for a run of solver/adlpmm's Algorithm 1, gives the clients'
	// step size and tolerance and their number.
	DRFL *DRFLConfig
	// RoundTimeout bounds the wait for one client's reply (0: no bound).
	RoundTimeout time.Duration
	// Rejoin, if positive, is how long a round waits for a lost client to
	// reconnect and resume from its checkpoint; zero stops at once.
	Rejoin time.Duration
	// RoundDeadline, if positive, ends each partial round of partial
	// participation (ExchangePartial) that long after it was sent: the
	// clients that have not answered by then, or are disconnected, are
	// absent from it; their late replies are discarded and each rolls back
	// its step before its next round. Full rounds wait for every client
	// (RoundTimeout, Rejoin) as without it.
	RoundDeadline time.Duration
	// Identify returns the party (1..n) that a session's peer may answer
	// for, from its certificate; nil trusts the party the client claims
	// (insecure mode, loopback only).
	Identify func(ctx context.Context) (int, error)
	// Log, if set, reports clients joining, leaving and timing out.
	Log func(format string, args ...any)
}

// Server is the gRPC service and, once every client has joined, the
// solver.Transport that reaches them.
type Server struct {
	fedpb.UnimplementedFederationServer
	cfg    ServerConfig
	setups []*fedpb.Setup
	slots  []*slot

	mu    sync.Mutex
	round int64 // the last round sent
	// drflDim is n+1 of the first DRFL client to join; the others must match.
	drflDim int
	drflErr error // the first failed final report
	joined  chan struct{}
	closed  bool
	endErr  error        // why the run stopped, when it failed
	creds   *serverCreds // set by NewGRPCServer

	wireDown, wireUp atomic.Int64 // protobuf bytes of rounds and replies
	missed           atomic.Int64 // replies that missed a round deadline
	out              []*solver.Reply
	bufs             []solver.Reply
}

type slot struct {
	party int
	mu    sync.Mutex
	sess  *session
	mc    int           // m_i, from Ready
	rows  int64         // the client's rows (DRFL: N_s), from Ready
	round int64         // DRFL: the client's last round
	ready chan struct{} // closed when the slot gets a session; replaced when it loses it
	// base is the last round whose reply the server accepted: the client's
	// state must be the one after it (Round.base).
	base int64
	// late are rounds sent to the client of this session whose replies the
	// server gave up (a deadline, an interrupted round): dropped on arrival.
	late []int64
	lost time.Time // when the slot lost its session
}

type session struct {
	stream   grpc.BidiStreamingServer[fedpb.ClientMsg, fedpb.ServerMsg]
	replies  chan *fedpb.Reply
	done     chan struct{} // closed when the stream ends
	err      error         // why, after done
	sendMu   sync.Mutex
	kill     chan struct{} // closed to drop the session
	killOnce sync.Once
}

// NewServer checks cfg and returns a server waiting for its clients.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.RunID == "" {
		return nil, fmt.Errorf("federation: empty run id")
	}
	n := len(cfg.Nodes)
	if cfg.DRFL != nil {
		if n > 0 {
			return nil, fmt.Errorf("federation: a run is either DRFL or proximal AL, not both")
		}
		n = cfg.DRFL.Clients
	}
	if n == 0 {
		return nil, fmt.Errorf("federation: no clients")
	}
	s := &Server{cfg: cfg, joined: make(chan struct{})}
	for i := range n {
		st := &fedpb.Setup{RunId: cfg.RunID, Protocol: Protocol, Party: int32(i + 1), Clients: int32(n), Job: cfg.Job}
		if cfg.DRFL != nil {
			st.Drfl = &fedpb.DrflConfig{C: cfg.DRFL.C, Tol: cfg.DRFL.Tol}
		} else {
			nc, err := nodeConfigToPB(cfg.Nodes[i])
			if err != nil {
				return nil, err
			}
			st.Config = nc
		}
		s.setups = append(s.setups, st)
		s.slots = append(s.slots, &slot{party: i + 1, ready: make(chan struct{})})
	}
	s.out = make([]*solver.Reply, n)
	s.bufs = make([]solver.Reply, n)
	return s, nil
}

// NumClients implements solver.Transport.
func (s *Server) NumClients() int { return len(s.slots) }

// WireBytes returns the protobuf bytes of the rounds sent (counted once per
// client) and of the replies received: the payload under gRPC's framing.
func (s *Server) WireBytes() (down, up int64) { return s.wireDown.Load(), s.wireUp.Load() }

// Connected reports, per client, whether it has a session now.
func (s *Server) Connected() []bool {
	out := make([]bool, len(s.slots))
	for i, sl := range s.slots {
		sl.mu.Lock()
		out[i] = sl.sess != nil
		sl.mu.Unlock()
	}
	return out
}

// WaitJoined blocks until every client has a session, or ctx ends.
func (s *Server) WaitJoined(ctx context.Context) error {
	for _, sl := range s.slots {
		sl.mu.Lock()
		ready := sl.ready
		sl.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return fmt.Errorf("federation: waiting for client %d to join: %w", sl.party, context.Cause(ctx))
		}
	}
	return nil
}

// Session implements the gRPC service: one client's stream.
func (s *Server) Session(stream grpc.BidiStreamingServer[fedpb.ClientMsg, fedpb.ServerMsg]) error {
	ctx := stream.Context()
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	h := first.GetHello()
	if h == nil {
		return status.Error(codes.InvalidArgument, "first message must be Hello")
	}
	if h.Protocol != Protocol {
		return status.Errorf(codes.FailedPrecondition, "protocol %d, server speaks %d", h.Protocol, Protocol)
	}
	party := int(h.Party)
	if s.cfg.Identify != nil {
		id, err := s.cfg.Identify(ctx)
		if err != nil {
			return status.Error(codes.PermissionDenied, err.Error())
		}
		if id != party {
			return status.Errorf(codes.PermissionDenied, "certificate is for client %d, Hello claims client %d", id, party)
		}
	}
	if party < 1 || party > len(s.slots) {
		return status.Errorf(codes.InvalidArgument, "client %d: this run has clients 1..%d", party, len(s.slots))
	}
	s.mu.Lock()
	round, closed := s.round, s.closed
	s.mu.Unlock()
	if closed {
		return status.Error(codes.Unavailable, "run finished")
	}
	base := s.slots[party-1].baseRound()
	switch {
	case h.RunId != "" && s.cfg.DRFL != nil:
		return status.Error(codes.FailedPrecondition, "DRFL clients cannot resume from a checkpoint")
	case h.RunId == "" && round > 0:
		return status.Errorf(codes.FailedPrecondition, "run %s is at round %d: a client joins late only from its checkpoint", s.cfg.RunID, round)
	case h.RunId != "" && h.RunId != s.cfg.RunID:
		return status.Errorf(codes.FailedPrecondition, "checkpoint is of run %s, this run is %s: remove the checkpoint file to join as a new client", h.RunId, s.cfg.RunID)
	case h.RunId != "" && (h.CheckpointRound < base || h.CheckpointRound > round):
		return status.Errorf(codes.FailedPrecondition, "checkpoint at round %d cannot resume round %d", h.CheckpointRound, round)
	}
	setup := proto.Clone(s.setups[party-1]).(*fedpb.Setup)
	setup.Round = round
	if err := stream.Send(&fedpb.ServerMsg{Body: &fedpb.ServerMsg_Setup{Setup: setup}}); err != nil {
		return err
	}
	m, err := stream.Recv()
	if err != nil {
		return err
	}
	r := m.GetReady()
	d, err := s.dim(party, r)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	switch {
	case r == nil:
		return status.Error(codes.InvalidArgument, "second message must be Ready")
	case r.RunId != s.cfg.RunID || int(r.Party) != party:
		return status.Errorf(codes.InvalidArgument, "Ready for run %s client %d, want run %s client %d", r.RunId, r.Party, s.cfg.RunID, party)
	case int(r.Dim) != d || r.Constraints < 0:
		return status.Errorf(codes.InvalidArgument, "client's problem has dimension %d (%d constraints), server's %d", r.Dim, r.Constraints, d)
	}
	sess := &session{stream: stream, replies: make(chan *fedpb.Reply, 1), done: make(chan struct{}), kill: make(chan struct{})}
	sl := s.slots[party-1]
	sl.mu.Lock()
	if old := sl.sess; old != nil {
		// The certificate is the same: the newer connection wins (the old
		// one may be half-open after a network failure). ready is closed.
		old.stop()
	} else {
		close(sl.ready)
	}
	sl.sess, sl.mc, sl.rows = sess, int(r.Constraints), r.Rows
	sl.late = nil // the old session's replies are gone with it
	sl.mu.Unlock()
	s.logf("client %d joined at round %d", party, round)

	recvErr := make(chan error, 1)
	go func() { // replies; Exchange sends the rounds
		for {
			m, err := stream.Recv()
			if err == nil && m.GetReply() == nil {
				err = status.Error(codes.InvalidArgument, "expected Reply")
			}
			if err != nil {
				recvErr <- err
				return
			}
			select {
			case sess.replies <- m.GetReply():
			case <-ctx.Done():
				recvErr <- ctx.Err()
				return
			case <-sess.kill:
				recvErr <- errors.New("session replaced or timed out")
				return
			}
		}
	}()
	select {
	case err = <-recvErr:
	case <-sess.kill:
		err = status.Error(codes.DeadlineExceeded, "session dropped by the server (no reply in time, or a newer session)")
	}
	s.mu.Lock()
	if s.endErr != nil {
		// The client must not take a failed run for a finished one.
		why := s.endErr.Error()
		if errors.Is(s.endErr, context.Canceled) {
			why = "the server was interrupted (SIGINT or SIGTERM)"
		}
		err = status.Errorf(codes.Aborted, "run %s failed: %s", s.cfg.RunID, why)
	}
	s.mu.Unlock()
	sl.detach(sess)
	sess.err = err
	close(sess.done)
	s.logf("client %d left: %v", party, err)
	return err
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Log != nil {
		s.cfg.Log(format, args...)
	}
}

// detach removes sess from the slot if it is still the slot's session.
func (sl *slot) detach(sess *session) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.sess == sess {
		sl.sess, sl.ready, sl.lost = nil, make(chan struct{}), time.Now()
	}
}

func (sl *slot) baseRound() int64 {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return sl.base
}

// giveUp records that a reply to round will be dropped when it comes.
func (sl *slot) giveUp(round int64) {
	sl.mu.Lock()
	sl.late = append(sl.late, round)
	sl.mu.Unlock()
}

// isLate reports whether a reply to round is one the server gave up, and
// forgets it (one reply per round).
func (sl *slot) isLate(round int64) bool {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	for i, r := range sl.late {
		if r == round {
			sl.late = append(sl.late[:i], sl.late[i+1:]...)
			return true
		}
	}
	return false
}

// Rows are the rows each client reported when it joined: the weights of
// weighted participation. Call it after WaitJoined.
func (s *Server) Rows() []float64 {
	out := make([]float64, len(s.slots))
	for i, sl := range s.slots {
		sl.mu.Lock()
		out[i] = float64(sl.rows)
		sl.mu.Unlock()
	}
	return out
}

// Missed counts the replies that missed a round deadline (RoundDeadline).
func (s *Server) Missed() int64 { return s.missed.Load() }

func (se *session) stop() { se.killOnce.Do(func() { close(se.kill) }) }

// Close ends the sessions of a run that succeeded: clients see a Done
// round and exit 0.
func (s *Server) Close() { s.end(nil) }

// Abort ends the sessions of a run that failed (a lost client, an
// interrupted server, a numerical failure): each client's stream ends with
// status Aborted naming why, and the client exits non-zero.
func (s *Server) Abort(why error) {
	if why == nil {
		why = errors.New("stopped")
	}
	s.end(why)
}

func (s *Server) end(why error) {
	s.mu.Lock()
	s.closed, s.endErr = true, why
	creds := s.creds
	s.mu.Unlock()
	if creds != nil {
		creds.closeHandshakes()
	}
	done := &fedpb.ServerMsg{Body: &fedpb.ServerMsg_Round{Round: &fedpb.Round{RunId: s.cfg.RunID, Kind: fedpb.Kind_KIND_DONE}}}
	// Best effort, and bounded: a hung client's full flow-control window
	// must not hold the server.
	var wg sync.WaitGroup
	for _, sl := range s.slots {
		sl.mu.Lock()
		sess := sl.sess
		sl.mu.Unlock()
		if sess == nil {
			continue
		}
		if why != nil {
			sess.stop()
			continue
		}
		wg.Go(func() {
			t := time.AfterFunc(5*time.Second, sess.stop)
			defer t.Stop()
			sess.send(done)
		})
	}
	wg.Wait()
}

func (se *session) send(m *fedpb.ServerMsg) error {
	se.sendMu.Lock()
	defer se.sendMu.Unlock()
	return se.stream.Send(m)
}

// Exchange implements solver.Transport: one round to every client, replies
// in client order. The replies are valid until the next call.
func (s *Server) Exchange(ctx context.Context, b *solver.Broadcast) ([]*solver.Reply, error) {
	return s.ExchangeSubset(ctx, b, nil)
}

var _ solver.PartialTransport = (*Server)(nil)

// ExchangeSubset implements solver.SubsetTransport: one round to the
// clients with active[i] (nil: all), each waited for as a full round
// (RoundTimeout, Rejoin); nil replies for the others.
func (s *Server) ExchangeSubset(ctx context.Context, b *solver.Broadcast, active []bool) ([]*solver.Reply, error) {
	return s.exchange(ctx, b, active, false)
}

// ExchangePartial implements solver.PartialTransport: ExchangeSubset for a
// partial round, which ends at RoundDeadline (if set). A client that has
// not answered by then, or is disconnected, is absent: nil reply.
func (s *Server) ExchangePartial(ctx context.Context, b *solver.Broadcast, active []bool) ([]*solver.Reply, error) {
	return s.exchange(ctx, b, active, s.cfg.RoundDeadline > 0)
}

func (s *Server) exchange(ctx context.Context, b *solver.Broadcast, active []bool, partial bool) ([]*solver.Reply, error) {
	kind, err := kindToPB(b.Kind)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.round++
	round := s.round
	s.mu.Unlock()
	bpb := broadcastToPB(b)
	dctx := ctx
	if partial {
		var cancel context.CancelFunc
		dctx, cancel = context.WithTimeout(ctx, s.cfg.RoundDeadline)
		defer cancel()
	}
	errs := make([]error, len(s.slots))
	var wg sync.WaitGroup
	for i, sl := range s.slots {
		s.out[i] = nil
		if active != nil && !active[i] {
			continue
		}
		msg := &fedpb.ServerMsg{Body: &fedpb.ServerMsg_Round{Round: &fedpb.Round{
			RunId: s.cfg.RunID, Round: round, Kind: kind, Broadcast: bpb, Base: sl.baseRound(), Partial: partial}}}
		wg.Go(func() {
			var ok bool
			if partial {
				ok, errs[i] = s.askPartial(ctx, dctx, sl, msg, b.Kind, &s.bufs[i])
			} else {
				errs[i], ok = s.ask(ctx, sl, msg, b.Kind, &s.bufs[i]), true
			}
			if ok && errs[i] == nil {
				s.out[i] = &s.bufs[i]
			}
		})
	}
	wg.Wait()
	// The first client in order whose round failed; a lost client is
	// named before a cancellation.
	var first error
	for i, e := range errs {
		if e == nil {
			continue
		}
		if errors.Is(e, context.Canceled) || errors.Is(e, context.DeadlineExceeded) {
			first = cmpOr(first, e)
			continue
		}
		return nil, &ClientError{Party: i + 1, Round: round, Err: e}
	}
	if first != nil {
		return nil, first
	}
	return s.out, nil
}

// askPartial sends a partial round to one client and waits for its reply
// until dctx ends (the round deadline): ok reports whether it answered in
// time. A client that did not is absent from the round; the server drops
// its reply when it comes, and the client's next round (its base
// unchanged) rolls its step back.
func (s *Server) askPartial(ctx, dctx context.Context, sl *slot, msg *fedpb.ServerMsg, kind solver.MsgKind, dst *solver.Reply) (bool, error) {
	rd := msg.GetRound()
	sl.mu.Lock()
	sess, mc, lost := sl.sess, sl.mc, sl.lost
	sl.mu.Unlock()
	if sess == nil {
		// Disconnected: absent while it may still rejoin, as a full round
		// would wait for it; lost after that.
		if s.cfg.Rejoin <= 0 {
			return false, fmt.Errorf("%w: disconnected", ErrClientLost)
		}
		if time.Since(lost) > s.cfg.Rejoin {
			return false, fmt.Errorf("%w: disconnected, no rejoin within %v", ErrClientLost, s.cfg.Rejoin)
		}
		return false, nil
	}
	if err := s.send(sess, msg); err != nil {
		sess.stop()
		return false, nil
	}
	s.wireDown.Add(int64(proto.Size(msg)))
	for {
		select {
		case r := <-sess.replies:
			if r.RunId == s.cfg.RunID && r.Round < rd.Round && sl.isLate(r.Round) {
				continue
			}
			s.wireUp.Add(int64(proto.Size(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Reply{Reply: r}})))
			if err := checkReply(r, rd, sl.party, kind, dst, s.cfg.Nodes[sl.party-1].Dim, mc); err != nil {
				return false, err
			}
			sl.accept(rd.Round)
			return true, nil
		case <-sess.done:
			sl.giveUp(rd.Round) // its checkpoint may hold the step: rolled back
			s.logf("client %d: disconnected in partial round %d: absent", sl.party, rd.Round)
			return false, nil
		case <-dctx.Done():
			sl.giveUp(rd.Round)
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			s.missed.Add(1)
			s.logf("client %d: no reply to partial round %d within the deadline %v: absent", sl.party, rd.Round, s.cfg.RoundDeadline)
			return false, nil
		}
	}
}

// accept moves the slot's base to round, whose reply the server took.
func (sl *slot) accept(round int64) {
	sl.mu.Lock()
	sl.base = round
	sl.mu.Unlock()
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// ask sends one round to one client and checks its reply into dst.
func (s *Server) ask(ctx context.Context, sl *slot, msg *fedpb.ServerMsg, kind solver.MsgKind, dst *solver.Reply) error {
	r, mc, err := s.roundTrip(ctx, sl, msg, int64(proto.Size(msg)))
	if err != nil {
		return err
	}
	if err := checkReply(r, msg.GetRound(), sl.party, kind, dst, s.cfg.Nodes[sl.party-1].Dim, mc); err != nil {
		return err
	}
	sl.accept(msg.GetRound().Round)
	return nil
}

// send sends msg to a session. A client that stops reading blocks Send
// once its flow-control window is full: the round timeout covers the send
// too (the session is stopped when it passes).
func (s *Server) send(sess *session, msg *fedpb.ServerMsg) error {
	if s.cfg.RoundTimeout > 0 {
		t := time.AfterFunc(s.cfg.RoundTimeout, sess.stop)
		defer t.Stop()
	}
	return sess.send(msg)
}

// roundTrip sends one round to one client and waits for its reply, through
// reconnections when Rejoin allows them. It returns m_i too.
func (s *Server) roundTrip(ctx context.Context, sl *slot, msg *fedpb.ServerMsg, size int64) (*fedpb.Reply, int, error) {
	rd := msg.GetRound()
	for {
		sl.mu.Lock()
		sess, ready, mc := sl.sess, sl.ready, sl.mc
		sl.mu.Unlock()
		if sess == nil {
			if err := s.awaitRejoin(ctx, ready, "disconnected"); err != nil {
				return nil, 0, err
			}
			continue
		}
		if err := s.send(sess, msg); err != nil {
			sess.stop()
			<-sess.done
			continue
		}
		s.wireDown.Add(size)
		r, err := s.await(ctx, sl, sess, rd.Round)
		if err != nil {
			return nil, 0, err
		}
		if r == nil {
			continue // the client rejoined: send the round again
		}
		s.wireUp.Add(int64(proto.Size(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Reply{Reply: r}})))
		return r, mc, nil
	}
}

// await returns sess's reply to round, or nil after the client was lost and
// rejoined.
func (s *Server) await(ctx context.Context, sl *slot, sess *session, round int64) (*fedpb.Reply, error) {
	var timeout <-chan time.Time
	if s.cfg.RoundTimeout > 0 {
		t := time.NewTimer(s.cfg.RoundTimeout)
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case r := <-sess.replies:
			if r.RunId == s.cfg.RunID && r.Round < round && sl.isLate(r.Round) {
				continue // the answer to a round the server gave up
			}
			return r, nil
		case <-sess.done:
			sl.mu.Lock()
			replaced := sl.sess != nil && sl.sess != sess
			sl.mu.Unlock()
			if replaced {
				return nil, nil // a newer session of the same client: ask it
			}
			return nil, s.awaitRejoin(ctx, sl.readyChan(), fmt.Sprintf("disconnected (%v)", sess.err))
		case <-timeout:
			// A hung client: drop its session, so that it may come back.
			s.logf("client %d: no reply to round %d within %v: session dropped", sl.party, round, s.cfg.RoundTimeout)
			sess.stop()
			<-sess.done
			return nil, s.awaitRejoin(ctx, sl.readyChan(), fmt.Sprintf("no reply within %v", s.cfg.RoundTimeout))
		case <-ctx.Done():
			sl.giveUp(round)
			return nil, ctx.Err()
		}
	}
}

func (sl *slot) readyChan() chan struct{} {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return sl.ready
}

// awaitRejoin waits up to Rejoin for the slot to get a new session.
func (s *Server) awaitRejoin(ctx context.Context, ready chan struct{}, why string) error {
	if s.cfg.Rejoin <= 0 {
		return fmt.Errorf("%w: %s", ErrClientLost, why)
	}
	t := time.NewTimer(s.cfg.Rejoin)
	defer t.Stop()
	select {
	case <-ready:
		return nil
	case <-t.C:
		return fmt.Errorf("%w: %s, no rejoin within %v", ErrClientLost, why, s.cfg.Rejoin)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkReply refuses a reply that is not the answer to round rd.
func checkReply(r *fedpb.Reply, rd *fedpb.Round, party int, kind solver.MsgKind, dst *solver.Reply, d, mc int) error {
	if err := checkHeader(r, rd, party); err != nil {
		return err
	}
	if err := replyFromPB(dst, kind, r.Body, d, mc); err != nil {
		return fmt.Errorf("bad reply: %w", err)
	}
	return nil
}

// checkHeader refuses a reply to another run, party, round or kind, and
// reports a client's failed step.
func checkHeader(r *fedpb.Reply, rd *fedpb.Round, party int) error {
	switch {
	case r.RunId != rd.RunId:
		return fmt.Errorf("reply for run %q, this run is %q", r.RunId, rd.RunId)
	case int(r.Party) != party:
		return fmt.Errorf("reply names client %d", r.Party)
	case r.Round != rd.Round:
		return fmt.Errorf("reply for round %d, expected %d (replayed or out of order)", r.Round, rd.Round)
	case r.Kind != rd.Kind:
		return fmt.Errorf("reply of kind %v to a %v round", r.Kind, rd.Kind)
	case r.Error != "":
		return fmt.Errorf("local step failed: %s", r.Error)
	}
	return nil
}

// dim checks the dimension a client reports in Ready: the configured one,
// or for DRFL the same as every other client's.
func (s *Server) dim(party int, r *fedpb.Ready) (int, error) {
	if r == nil {
		return 0, errors.New("second message must be Ready")
	}
	if s.cfg.DRFL == nil {
		if r.Rows < 1 {
			return 0, fmt.Errorf("client %d reports %d rows", party, r.Rows)
		}
		return s.cfg.Nodes[party-1].Dim, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drflDim == 0 {
		s.drflDim = int(r.Dim)
	}
	if r.Rows < 1 {
		return 0, fmt.Errorf("client %d has %d rows", party, r.Rows)
	}
	return s.drflDim, nil
}
