package federation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/fedcon/fedcon/federation/fedpb"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// DRFLConfig is a DRFL run's part of ServerConfig: what every client's
// Local is built with (adlpmm.Client.NewLocal) and the number of clients.
type DRFLConfig struct {
	C, Tol  float64
	Clients int
}

// DRFLClients returns the clients of solver/adlpmm's Algorithm 1 (AD-LPMM)
// reached over the sessions, in client order, and n+1, the length of
// v = (w, b). Call it after WaitJoined. A client's final loss that cannot
// be fetched is NaN; DRFLErr reports why.
func (s *Server) DRFLClients() ([]adlpmm.Client, int, error) {
	if s.cfg.DRFL == nil {
		return nil, 0, errors.New("federation: not a DRFL run")
	}
	out := make([]adlpmm.Client, len(s.slots))
	for i, sl := range s.slots {
		sl.mu.Lock()
		rows := sl.rows
		sl.mu.Unlock()
		if rows < 1 {
			return nil, 0, fmt.Errorf("federation: client %d has not joined", sl.party)
		}
		out[i] = &remoteDRFL{s: s, sl: sl, rows: int(rows)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return out, s.drflDim, nil
}

// DRFLErr is the first error of a DRFL client's final report (Loss).
func (s *Server) DRFLErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.drflErr
}

// remoteDRFL is a DRFL client in another process: both its adlpmm.Client and,
// once NewLocal is called, its adlpmm.Local.
type remoteDRFL struct {
	s          *Server
	sl         *slot
	rows       int
	mu         sync.Mutex // the last reply's counters
	lam        float64
	iter, caps int
}

func (c *remoteDRFL) Rows() int { return c.rows }

// NewLocal checks that the server solves with the (c, tol) the client was
// set up with: the client built its Local at Setup.
func (c *remoteDRFL) NewLocal(cc, tol float64) (adlpmm.Local, error) {
	if cfg := c.s.cfg.DRFL; cc != cfg.C || tol != cfg.Tol {
		return nil, fmt.Errorf("federation: clients were set up for c = %v, tol = %v; the solver asks for %v, %v", cfg.C, cfg.Tol, cc, tol)
	}
	return c, nil
}

// Round implements adlpmm.Local over the network.
func (c *remoteDRFL) Round(ctx context.Context, v []float64, z float64, vhat []float64) (float64, error) {
	r, err := c.call(ctx, fedpb.Kind_KIND_DRFL_ROUND, v, z)
	if err != nil {
		return 0, err
	}
	if len(r.Vhat) != len(vhat) {
		return 0, c.fail(fmt.Errorf("vhat has %d entries, want %d", len(r.Vhat), len(vhat)))
	}
	if i := firstNaN(append(r.Vhat, r.R, r.Lambda)); i >= 0 {
		return 0, c.fail(errors.New("reply holds a NaN"))
	}
	if r.Iterations < 0 || r.CapHits < 0 {
		return 0, c.fail(errors.New("negative iteration count"))
	}
	copy(vhat, r.Vhat)
	c.mu.Lock()
	c.lam, c.iter, c.caps = r.Lambda, int(r.Iterations), int(r.CapHits)
	c.mu.Unlock()
	return r.R, nil
}

func (c *remoteDRFL) fail(err error) error {
	c.sl.mu.Lock()
	defer c.sl.mu.Unlock()
	return &ClientError{Party: c.sl.party, Round: c.sl.round, Err: fmt.Errorf("bad reply: %w", err)}
}

// Loss asks the client for f_s(v); NaN when it cannot (see DRFLErr).
func (c *remoteDRFL) Loss(v []float64) float64 {
	r, err := c.call(context.Background(), fedpb.Kind_KIND_DRFL_REPORT, v, 0)
	if err == nil && math.IsNaN(r.Loss) {
		err = c.fail(errors.New("loss is NaN"))
	}
	if err != nil {
		c.s.mu.Lock()
		if c.s.drflErr == nil {
			c.s.drflErr = err
		}
		c.s.mu.Unlock()
		return math.NaN()
	}
	return r.Loss
}

func (c *remoteDRFL) Lambda() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lam
}

func (c *remoteDRFL) Iterations() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.iter
}

// CapHits implements adlpmm.CapHitter.
func (c *remoteDRFL) CapHits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caps
}

// call runs one numbered round with this client alone.
func (c *remoteDRFL) call(ctx context.Context, kind fedpb.Kind, v []float64, z float64) (*fedpb.DrflReply, error) {
	s, sl := c.s, c.sl
	sl.mu.Lock()
	sl.round++
	round := sl.round
	sl.mu.Unlock()
	s.mu.Lock()
	s.round = max(s.round, round)
	s.mu.Unlock()
	msg := &fedpb.ServerMsg{Body: &fedpb.ServerMsg_Round{Round: &fedpb.Round{
		RunId: s.cfg.RunID, Round: round, Kind: kind, Drfl: &fedpb.DrflRound{V: v, Z: z}}}}
	r, _, err := s.roundTrip(ctx, sl, msg, int64(proto.Size(msg)))
	if err == nil {
		err = checkHeader(r, msg.GetRound(), sl.party)
	}
	if err == nil && r.Drfl == nil {
		err = errors.New("bad reply: no DRFL body")
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, &ClientError{Party: sl.party, Round: round, Err: err}
	}
	return r.Drfl, nil
}

// DRFLLoadFunc returns client party's DRFL client (its data only) for the
// job the server sent.
type DRFLLoadFunc func(job []byte, party int) (c adlpmm.Client, dim int, err error)

// runDRFL is a DRFL client's session after Setup: it builds its Local,
// reports N_s and answers rounds and the final report.
func runDRFL(ctx context.Context, stream grpc.BidiStreamingClient[fedpb.ClientMsg, fedpb.ServerMsg], setup *fedpb.Setup, opt ClientOptions, sum *ClientSummary) error {
	if opt.LoadDRFL == nil {
		return errors.New("federation: this client cannot serve a DRFL run")
	}
	cl, d, err := opt.LoadDRFL(setup.Job, opt.Party)
	if err != nil {
		return fmt.Errorf("federation: load client %d: %w", opt.Party, err)
	}
	local, err := cl.NewLocal(setup.Drfl.C, setup.Drfl.Tol)
	if err != nil {
		return fmt.Errorf("federation: client %d: %w", opt.Party, err)
	}
	ready := &fedpb.Ready{RunId: setup.RunId, Party: int32(opt.Party), Dim: int32(d), Rows: int64(cl.Rows())}
	if err := stream.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Ready{Ready: ready}}); err != nil {
		return recvErr(stream, err)
	}
	if opt.Joined != nil {
		opt.Joined(setup.RunId, 0)
	}
	vhat := make([]float64, d)
	var last int64
	for {
		m, err := stream.Recv()
		if err != nil {
			return lostServer(opt.Party, last, err)
		}
		rd := m.GetRound()
		switch {
		case rd == nil || rd.RunId != setup.RunId:
			return fmt.Errorf("federation: client %d: message is not a round of run %s", opt.Party, setup.RunId)
		case rd.Kind == fedpb.Kind_KIND_DONE:
			return nil
		case rd.Round != last+1:
			return fmt.Errorf("federation: client %d: round %d after round %d", opt.Party, rd.Round, last)
		case rd.Drfl == nil || len(rd.Drfl.V) != d || firstNaN(rd.Drfl.V) >= 0:
			return fmt.Errorf("federation: client %d, round %d: want v of %d numbers, no NaN", opt.Party, rd.Round, d)
		}
		rep := &fedpb.Reply{RunId: setup.RunId, Round: rd.Round, Kind: rd.Kind, Party: int32(opt.Party), Drfl: &fedpb.DrflReply{}}
		switch rd.Kind {
		case fedpb.Kind_KIND_DRFL_ROUND:
			r, err := local.Round(ctx, rd.Drfl.V, rd.Drfl.Z, vhat)
			if err != nil {
				rep.Error = err.Error()
				stream.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Reply{Reply: rep}})
				return fmt.Errorf("federation: client %d, round %d: %w", opt.Party, rd.Round, err)
			}
			rep.Drfl = &fedpb.DrflReply{Vhat: vhat, R: r, Lambda: local.Lambda(), Iterations: int64(local.Iterations())}
			if ch, ok := local.(adlpmm.CapHitter); ok {
				rep.Drfl.CapHits = int64(ch.CapHits())
			}
		case fedpb.Kind_KIND_DRFL_REPORT:
			rep.Drfl.Loss = cl.Loss(rd.Drfl.V)
		default:
			return fmt.Errorf("federation: client %d: a %v round in a DRFL run", opt.Party, rd.Kind)
		}
		if err := stream.Send(&fedpb.ClientMsg{Body: &fedpb.ClientMsg_Reply{Reply: rep}}); err != nil {
			return recvErr(stream, err)
		}
		last = rd.Round
		sum.Rounds++
	}
}
