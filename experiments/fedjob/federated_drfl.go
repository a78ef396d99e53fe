package fedjob

import (
	"context"
	"fmt"
	"math"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/drfl"
	"github.com/fedcon/fedcon/problems/wdro"
	"github.com/fedcon/fedcon/solver/adlpmm"
)

// FedDRFL is a DRFL job (AD-LPMM, solver/adlpmm): one repetition's split of
// Job.Dataset and one model.
type FedDRFL struct {
	Data   drfl.DataConfig `json:"data"`
	Seed   uint64          `json:"seed"` // the repetition's split
	Params drfl.Params     `json:"params"`
	// Algorithm 1's settings; zero values take solver/adlpmm's defaults.
	C         float64 `json:"c"`
	Tol       float64 `json:"tol"`
	MaxRounds int     `json:"max_rounds"`
}

// settings returns Algorithm 1's settings with the defaults made explicit
// (the clients are set up with c and tol before Solve runs).
func (f *FedDRFL) settings(workers int) *adlpmm.Settings {
	s := &adlpmm.Settings{C: f.C, Tol: f.Tol, MaxRounds: f.MaxRounds, Workers: workers}
	if s.C == 0 {
		s.C = adlpmm.DefaultC
	}
	if s.Tol == 0 {
		s.Tol = adlpmm.DefaultTol
	}
	return s
}

// params returns the model with P and Support read back from their JSON names.
func (f *FedDRFL) params() (drfl.Params, error) {
	p := f.Params
	switch p.PName {
	case "1":
		p.P = 1
	case "2":
		p.P = 2
	case "inf":
		p.P = math.Inf(1)
	default:
		return p, &experiments.ConfigError{Field: "p", Value: p.PName, Reason: "want 1, 2 or inf"}
	}
	sup, err := wdro.ParseSupport(p.SupportName)
	if err != nil {
		return p, &experiments.ConfigError{Field: "support", Value: p.SupportName, Reason: "want box or free"}
	}
	p.Support = sup
	if err := p.Validate(); err != nil {
		return p, err
	}
	if p.Model == drfl.ModelWAFL {
		return p, &experiments.ConfigError{Field: "model", Value: p.Model, Reason: "pools every client's rows in one place: it cannot be federated"}
	}
	if p.Rhos != nil && len(p.Rhos) != f.Data.Clients {
		return p, &experiments.ConfigError{Field: "rho", Value: p.Rhos, Reason: fmt.Sprintf("%d radii for %d clients", len(p.Rhos), f.Data.Clients)}
	}
	return p, nil
}

// NewFedDRFL returns the DRFL job of model p on repetition seed's split of
// dataset (P and Support are carried by name).
func NewFedDRFL(dataset string, data drfl.DataConfig, seed uint64, p drfl.Params, s *adlpmm.Settings) *Job {
	p.Spell()
	f := &FedDRFL{Data: data, Seed: seed, Params: p}
	if s != nil {
		f.C, f.Tol, f.MaxRounds = s.C, s.Tol, s.MaxRounds
	}
	return &Job{Problem: "drfl", Dataset: dataset, N: data.Clients, DRFL: f}
}

// DRFLServer is the server side of a DRFL job: the problem without the
// clients (FedDRFL.Problem adds them) and the settings.
func (j *Job) DRFLServer(workers int) (*adlpmm.Settings, error) {
	if j.DRFL == nil {
		return nil, &experiments.ConfigError{Field: "drfl", Value: nil, Reason: "missing configuration"}
	}
	if _, err := j.DRFL.params(); err != nil {
		return nil, err
	}
	return j.DRFL.settings(workers), nil
}

// DRFLProblem returns the DRFL problem (4) for clients reached elsewhere
// (e.g. over the network), with n features.
func (j *Job) DRFLProblem(clients []adlpmm.Client, n int) (*adlpmm.Problem, error) {
	p, err := j.DRFL.params()
	if err != nil {
		return nil, err
	}
	// θ, p and q̂ of the model do not depend on the clients' data.
	sp := drfl.NewSpec(make([]wdro.Client, len(clients)), p)
	return &adlpmm.Problem{Clients: clients, Features: n, P: sp.Norm, Theta: sp.Theta, QHat: sp.Qhat}, nil
}

// DRFLParty loads client party's DRFL client (1..S) only: it draws the
// repetition's split of the data set and keeps its own training rows.
// It returns n+1, the length of v = (w, b).
func (j *Job) DRFLParty(dirs []string, party int) (adlpmm.Client, int, error) {
	p, err := j.DRFL.params()
	if err != nil {
		return nil, 0, err
	}
	if party < 1 || party > j.N {
		return nil, 0, &experiments.ConfigError{Field: "party", Value: party, Reason: fmt.Sprintf("must be in 1..%d", j.N)}
	}
	sp, err := j.drflSplit(dirs)
	if err != nil {
		return nil, 0, err
	}
	spec := drfl.NewSpec(sp.Train, p)
	fed, n, err := wdro.Federate(spec.Clients[party-1:party], spec.Model, nil)
	if err != nil {
		return nil, 0, err
	}
	return fed[0], n + 1, nil
}

func (j *Job) drflSplit(dirs []string) (*drfl.Split, error) {
	d, err := datasets.Load(j.Dataset, dirs)
	if err != nil {
		return nil, err
	}
	p, err := j.DRFL.params()
	if err != nil {
		return nil, err
	}
	sp, err := drfl.NewSplit(d, j.DRFL.Data, j.DRFL.Seed)
	if err != nil {
		return nil, err
	}
	return sp, sp.CheckLoss(p)
}

// SolveDRFLLocal runs the DRFL job with every client in this process: the
// reference a federated run must reproduce bit for bit.
func (j *Job) SolveDRFLLocal(ctx context.Context, dirs []string, workers int) (*adlpmm.Result, error) {
	p, err := j.DRFL.params()
	if err != nil {
		return nil, err
	}
	sp, err := j.drflSplit(dirs)
	if err != nil {
		return nil, err
	}
	prob, err := drfl.Problem(sp.Train, p)
	if err != nil {
		return nil, err
	}
	return adlpmm.Solve(ctx, prob, j.DRFL.settings(workers))
}
