package fedjob

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"gonum.org/v1/gonum/mat"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/experiments/proxal"
	"github.com/fedcon/fedcon/problems"
	"github.com/fedcon/fedcon/solver"
)

// Job is one Algorithm 1 run whose clients may be separate processes:
// what the server sends to every client so that it can load its own party.
type Job struct {
	Problem string `json:"problem"` // "np" or "qp"
	Trial   int    `json:"trial"`
	// NP: the data set, n and the configuration (partition seed = NP.Seed).
	NP      *proxal.NPConfig `json:"np,omitempty"`
	Dataset string           `json:"dataset,omitempty"`
	N       int              `json:"n"`
	// Dim is d; for NP, zero means: read it from the data set.
	Dim int `json:"dim"`
	// QP: the cell (n, Dim, M) of the configuration QP.
	QP *proxal.QPConfig `json:"qp,omitempty"`
	M  int              `json:"m,omitempty"`
	// Fairness (adult-b): the server holds the data set's server rows.
	Fair *proxal.FairConfig `json:"fair,omitempty"`
	// DRFL: AD-LPMM on one split of Dataset (N = its clients S).
	DRFL *FedDRFL `json:"drfl,omitempty"`
}

// Validate checks the job's problem and configuration.
func (j *Job) Validate() error {
	switch j.Problem {
	case "np":
		if j.NP == nil {
			return &experiments.ConfigError{Field: "np", Value: nil, Reason: "missing configuration"}
		}
		c := *j.NP
		c.Datasets, c.Clients = []string{j.Dataset}, []int{j.N}
		return c.Validate()
	case "qp":
		if j.QP == nil {
			return &experiments.ConfigError{Field: "qp", Value: nil, Reason: "missing configuration"}
		}
		c := *j.QP
		c.Cells = [][]int{{j.N, j.Dim, j.M}}
		return c.Validate()
	case "fair":
		if j.Fair == nil {
			return &experiments.ConfigError{Field: "fair", Value: nil, Reason: "missing configuration"}
		}
		c := *j.Fair
		c.Dataset, c.Clients = j.Dataset, []int{j.N}
		return c.Validate()
	case "drfl":
		if j.DRFL == nil {
			return &experiments.ConfigError{Field: "drfl", Value: nil, Reason: "missing configuration"}
		}
		if j.N != j.DRFL.Data.Clients || j.N < 1 {
			return &experiments.ConfigError{Field: "clients", Value: j.N, Reason: fmt.Sprintf("the split has %d clients", j.DRFL.Data.Clients)}
		}
		_, err := j.DRFL.params()
		return err
	}
	return &experiments.ConfigError{Field: "problem", Value: j.Problem, Reason: "must be np, qp, fair or drfl"}
}

// Marshal encodes the job for the clients.
func (j *Job) Marshal() ([]byte, error) { return json.Marshal(j) }

// UnmarshalJob decodes and validates a job sent by a server.
func UnmarshalJob(b []byte) (*Job, error) {
	j := &Job{}
	if err := json.Unmarshal(b, j); err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	if err := j.Validate(); err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	return j, nil
}

// FedRun is the server's side of a job: Algorithm 1 without the clients' data.
type FedRun struct {
	Method   *solver.ProxAL
	W0       []float64
	Settings *solver.Settings
	problem  *solver.Problem
	// weighted: participation samples clients by their rows, which the
	// transport (or, in process, the parties) must tell.
	weighted bool
}

// RowsTransport is a Transport that knows each client's rows (the
// federation server: from each client's Ready).
type RowsTransport interface {
	solver.Transport
	Rows() []float64
}

// remoteParty stands for a client whose data stay in its process: the
// server only counts it.
type remoteParty struct{ cone solver.Cone }

// Cone is the client's constraint cone as the job defines it: the KKT
// polish needs each party's kind of constraint (never its data).
func (p remoteParty) Cone() solver.Cone { return p.cone }

// Eval is never called: with a Transport, Algorithm 1 reaches clients only
// through it. NaN would end a run that did (status Diverged).
func (remoteParty) Eval(w, grad, c, jac []float64) float64 { return math.NaN() }

// Server prepares the server side of j (the NP data set is read only for
// its dimension, when Dim is zero). workers does not change results.
func (j *Job) Server(dirs []string, workers int) (*FedRun, error) {
	if err := j.Validate(); err != nil {
		return nil, err
	}
	run := &FedRun{problem: &solver.Problem{}}
	// The clients' cones, as their parties define them (problems.NPClient,
	// FairParty, QPParty).
	clientCones := make([]solver.Cone, j.N)
	switch j.Problem {
	case "drfl":
		return nil, &experiments.ConfigError{Field: "problem", Value: j.Problem, Reason: "a DRFL job has no proximal AL server side (DRFLServer)"}
	case "np":
		if j.Dim == 0 {
			ds, err := datasets.Load(j.Dataset, dirs)
			if err != nil {
				return nil, err
			}
			_, j.Dim = ds.X.Dims()
		}
		run.W0 = experiments.StartPoint(j.NP.W0, j.NP.RNG, j.NP.Seed, j.Trial, j.Dim)
		run.Method, _ = j.NP.Methods()
		if j.NP.ADMMStart == "w0" {
			run.Method.ADMMStart = run.W0
		}
		run.Settings = j.NP.Settings(workers)
		for i := range clientCones {
			clientCones[i] = solver.NonNeg(1)
		}
	case "fair":
		ds, err := datasets.Load(j.Dataset, dirs)
		if err != nil {
			return nil, err
		}
		if ds.Server == nil || ds.Server.Group == nil {
			return nil, &experiments.ConfigError{Field: "dataset", Value: j.Dataset, Reason: "has no server rows with a sensitive group"}
		}
		_, j.Dim = ds.X.Dims()
		srvRows, _ := ds.Server.X.Dims()
		run.problem.Server = proxal.FairParty(ds.Server, ds.Server.Group, seqInts(srvRows), 0, j.Fair.R)
		run.W0 = experiments.StartPoint(j.Fair.W0, j.Fair.RNG, j.Fair.Seed, j.Trial, j.Dim)
		run.Method, _ = j.Fair.Methods()
		run.Settings = j.Fair.Settings(workers)
		for i := range clientCones {
			clientCones[i] = solver.NonNeg(2)
		}
	case "qp":
		inst, err := proxal.QPInstance(j.QP, j.N, j.Dim, j.M)
		if err != nil {
			return nil, err
		}
		run.problem.Server = inst.Server
		for i, c := range inst.Clients {
			if i < len(clientCones) {
				clientCones[i] = c.Cone()
			}
		}
		run.W0 = proxal.QPStart(j.QP, j.Trial, j.Dim)
		run.Method, _ = j.QP.QPMethods(solver.NewQuadCache())
		run.Settings = j.QP.Settings(workers)
	}
	if mc, _ := j.method(); mc != nil && (mc.Clocked() || mc.StragglerDeadline > 0) {
		return nil, &experiments.ConfigError{Field: "straggler_*", Value: "set",
			Reason: "the straggler model is a simulated clock for in-process runs (fedcon run); a served run has a real one (serve --round-deadline)"}
	}
	if mc, seed := j.method(); mc != nil && mc.Partial() {
		// The in-process run's draws: the same seed and trial stream.
		// Weighted sampling's weights are the clients' rows, known when
		// they join (Solve).
		run.Method.Participation = mc.ParticipationFor(seed, j.Trial, nil)
		run.weighted = mc.ParticipationSampling == "weighted" && run.Method.Participation != nil && run.Method.Participation.Replay == ""
	}
	run.problem.Dim = j.Dim
	for i := range j.N {
		run.problem.Clients = append(run.problem.Clients, remoteParty{cone: clientCones[i]})
	}
	return run, nil
}

// method is the job's Algorithm 1 configuration and seed (nil for DRFL).
func (j *Job) method() (*proxal.MethodConfig, uint64) {
	switch {
	case j.NP != nil:
		return &j.NP.MethodConfig, j.NP.Seed
	case j.Fair != nil:
		return &j.Fair.MethodConfig, j.Fair.Seed
	case j.QP != nil:
		return &j.QP.MethodConfig, j.QP.Seed
	}
	return nil, 0
}

// Replay makes the job's trial rerun a recorded participation (who
// answered each round and who missed one, a served run's
// ParticipationLog.Answered and Missed) instead of sampling: SolveLocal is
// then the recorded run, bit for bit.
func (j *Job) Replay(answered, missed string) {
	if mc, _ := j.method(); mc != nil {
		mc.Replay, mc.ReplayMissed, mc.ReplayTrial = answered, missed, j.Trial
	}
}

// Nodes returns the clients' configurations, in client order.
func (r *FedRun) Nodes() ([]solver.ClientConfig, error) {
	n := len(r.problem.Clients)
	out := make([]solver.ClientConfig, n)
	for i := range out {
		c, err := r.Method.ClientConfig(i, n, r.problem.Dim, r.Settings)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// Solve runs Algorithm 1 with the clients reached through tr.
func (r *FedRun) Solve(ctx context.Context, tr solver.Transport) (*solver.Result, error) {
	m := *r.Method
	m.Transport = tr
	if r.weighted {
		rt, ok := tr.(RowsTransport)
		if !ok {
			return nil, fmt.Errorf("fedjob: weighted participation needs the clients' rows, which this transport does not know")
		}
		p := *m.Participation
		p.Weights = rt.Rows()
		m.Participation = &p
	}
	return solver.Solve(ctx, r.problem, r.W0, r.Settings, &m)
}

// SolveLocal runs the same job in this process, every party loaded here:
// the reference that a federated run must reproduce bit for bit.
func (j *Job) SolveLocal(ctx context.Context, dirs []string, workers int) (*solver.Result, error) {
	run, err := j.Server(dirs, workers)
	if err != nil {
		return nil, err
	}
	p := *run.problem
	p.Clients = nil
	for i := 1; i <= j.N; i++ {
		c, _, err := j.Party(dirs, "", i)
		if err != nil {
			return nil, err
		}
		p.Clients = append(p.Clients, c)
	}
	m := *run.Method
	if run.weighted {
		part := *m.Participation
		part.Weights = make([]float64, len(p.Clients))
		for i, c := range p.Clients {
			part.Weights[i] = float64(solver.PartyRows(c))
		}
		m.Participation = &part
	}
	return solver.Solve(ctx, &p, run.W0, run.Settings, &m)
}

// Party loads client party's data (1..n) only: from file (written by
// `fedcon data export --clients n --format json`) when set, else from the
// data set partitioned as in-process runs do (or, for the QP, generated).
func (j *Job) Party(dirs []string, file string, party int) (solver.Party, int, error) {
	if party < 1 || party > j.N {
		return nil, 0, &experiments.ConfigError{Field: "party", Value: party, Reason: fmt.Sprintf("must be in 1..%d", j.N)}
	}
	switch j.Problem {
	case "fair":
		if file != "" {
			return nil, 0, &experiments.ConfigError{Field: "data", Value: file, Reason: "a fairness client partitions adult-b itself; no file"}
		}
		ds, err := datasets.Load(j.Dataset, dirs)
		if err != nil {
			return nil, 0, err
		}
		if ds.Group == nil {
			return nil, 0, &experiments.ConfigError{Field: "dataset", Value: j.Dataset, Reason: "has no sensitive group"}
		}
		rows, d := ds.X.Dims()
		// The same folds as buildFairCell.
		folds, _, err := datasets.PartitionFolds(rows, j.N, datasets.PartitionRand(j.Fair.Seed))
		if err != nil {
			return nil, 0, fmt.Errorf("%s with %d clients: %w", j.Dataset, j.N, err)
		}
		return proxal.FairParty(ds, ds.Group, folds[party-1], 1/float64(j.N), j.Fair.R), d, nil
	case "qp":
		if file != "" {
			return nil, 0, &experiments.ConfigError{Field: "data", Value: file, Reason: "the QP clients generate their data; no file"}
		}
		inst, err := proxal.QPInstance(j.QP, j.N, j.Dim, j.M)
		if err != nil {
			return nil, 0, err
		}
		return inst.Clients[party-1], j.Dim, nil
	case "np":
		var x *mat.Dense
		var y []float64
		if file != "" {
			var err error
			if x, y, err = j.exportedRows(file, party); err != nil {
				return nil, 0, err
			}
		} else {
			ds, err := datasets.Load(j.Dataset, dirs)
			if err != nil {
				return nil, 0, err
			}
			if ds.Regression {
				return nil, 0, &experiments.ConfigError{Field: "dataset", Value: j.Dataset, Reason: "is a regression dataset"}
			}
			// The same stream as buildNPCell and `fedcon data export`.
			parts, _, err := datasets.PartitionByClass(ds.Y, j.N, datasets.PartitionRand(j.NP.Seed))
			if err != nil {
				return nil, 0, fmt.Errorf("%s with %d clients: %w", j.Dataset, j.N, err)
			}
			idx := parts[party-1]
			_, d := ds.X.Dims()
			x = mat.NewDense(len(idx), d, nil)
			for r, i := range idx {
				x.SetRow(r, ds.X.RawRowView(i))
				y = append(y, ds.Y[i])
			}
		}
		var i0, i1 []int
		for i, v := range y {
			if v == 1 {
				i1 = append(i1, i)
			} else {
				i0 = append(i0, i)
			}
		}
		_, d := x.Dims()
		return &problems.NPClient{Class0: problems.NewRows(x, i0), Class1: problems.NewRows(x, i1),
			Scale: 1 / float64(j.N), R: j.NP.R}, d, nil
	}
	return nil, 0, &experiments.ConfigError{Field: "problem", Value: j.Problem, Reason: "must be np, qp or fair"}
}

func seqInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// exportedRows reads party's rows, in file order, from a JSON export.
func (j *Job) exportedRows(file string, party int) (*mat.Dense, []float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	var doc struct {
		Dataset string  `json:"dataset"`
		Clients int     `json:"clients"`
		Seed    *uint64 `json:"seed"`
		Rows    []struct {
			Client *int      `json:"client"`
			X      []float64 `json:"x"`
			Y      float64   `json:"y"`
		} `json:"rows"`
	}
	if err := json.NewDecoder(bufio.NewReader(f)).Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("data %s: %w", file, err)
	}
	if doc.Dataset != j.Dataset || doc.Clients != j.N || doc.Seed == nil || *doc.Seed != j.NP.Seed {
		seed := "none"
		if doc.Seed != nil {
			seed = fmt.Sprint(*doc.Seed)
		}
		return nil, nil, &experiments.ConfigError{Field: "data", Value: file, Reason: fmt.Sprintf("holds %s for %d clients with seed %s; the run is %s for %d clients with seed %d (export with --clients %d --seed %d)",
			doc.Dataset, doc.Clients, seed, j.Dataset, j.N, j.NP.Seed, j.N, j.NP.Seed)}
	}
	var x []float64
	var y []float64
	d := -1
	for _, r := range doc.Rows {
		if r.Client == nil || *r.Client != party {
			continue
		}
		if d < 0 {
			d = len(r.X)
		}
		if len(r.X) != d || d == 0 {
			return nil, nil, &experiments.ConfigError{Field: "data", Value: file, Reason: fmt.Sprintf("rows of client %d have %d and %d features", party, d, len(r.X))}
		}
		x = append(x, r.X...)
		y = append(y, r.Y)
	}
	if len(y) == 0 {
		return nil, nil, &experiments.ConfigError{Field: "data", Value: file, Reason: fmt.Sprintf("has no rows of client %d", party)}
	}
	return mat.NewDense(len(y), d, x), y, nil
}
