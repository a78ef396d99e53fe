package wdro

import (
	"math"

	"github.com/fedcon/fedcon/solver/adlpmm"
	"github.com/fedcon/fedcon/solver/qp"
)

// fedClient is one client of model m as seen by Algorithm 1 (solver/adlpmm):
// its data never leave it; the server only calls NewLocal's Step and Loss.
type fedClient struct {
	data  Client
	model Model
	qp    *qp.Settings
}

func (f *fedClient) Rows() int { return len(f.data.X) }

// NewLocal builds C_s as a QP. Without explicit settings the QP is solved
// to min(1e-7, tol/100): a looser tol/10 gave the same heart solution 2.6
// times faster but made the QP's ADMM stall (IterationLimit) on breast
// cancer.
//
// The Huber client is solved to min(1e-8, tol/1e4) by its own method
// (HuberLocal), not by a QP.
func (f *fedClient) NewLocal(c, tol float64) (adlpmm.Local, error) {
	d := Features([]Client{f.data}) + 1
	if f.model.Loss == LossHuber {
		h, err := NewHuberLocal(f.data, f.model, c, math.Min(1e-8, tol/1e4))
		if err != nil {
			return nil, err
		}
		return adlpmm.NewLocal(h, c, d), nil
	}
	set := f.qp
	if set == nil {
		set = DefaultQPSettings()
		set.EpsAbs = math.Min(set.EpsAbs, tol/100)
		set.EpsRel = set.EpsAbs
	}
	cq, err := NewClientQP(f.data, f.model, c, set)
	if err != nil {
		return nil, err
	}
	return adlpmm.NewLocal(cq, c, d), nil
}

func (f *fedClient) Loss(v []float64) float64 {
	l, _ := WorstCaseLoss(f.data, f.model, v)
	return l
}

// Federate validates the clients against model m and returns them as
// Algorithm 1's clients, with n, the number of features. qpSettings
// configures every client's QP; nil means DefaultQPSettings at a tolerance
// derived from the server's.
func Federate(clients []Client, m Model, qpSettings *qp.Settings) ([]adlpmm.Client, int, error) {
	if err := Validate(clients, m); err != nil {
		return nil, 0, err
	}
	out := make([]adlpmm.Client, len(clients))
	for s, c := range clients {
		out[s] = &fedClient{data: c, model: m, qp: qpSettings}
	}
	return out, Features(clients), nil
}
