package ssca

import "testing"

// TestCurvePanelBatchColors: a batch size has one colour in a figure (SSCA
// solid, its SGD baseline at the same B dashed in the same colour), FedAvg's
// B = 5 and B = 50 (E = 2) have their own, and feature-based B = 10, 100,
// 1000 take the colours of sample-based 1, 10, 100.
func TestCurvePanelBatchColors(t *testing.T) {
	tr := []Trial{{T: []int{1}, TrainCost: []float64{1}}}
	var curves []Curve
	for _, s := range []Spec{{Algo: "alg1", Batch: 1}, {Algo: "alg1", Batch: 10}, {Algo: "alg1", Batch: 100},
		{Algo: "fedavg", Batch: 1}, {Algo: "fedavg", Batch: 10}, {Algo: "fedavg", Batch: 100},
		{Algo: "fedavg", Batch: 5, LocalSteps: 2}, {Algo: "fedavg", Batch: 50, LocalSteps: 2},
		{Algo: "alg3", Batch: 10}, {Algo: "fsgd", Batch: 1000}} {
		curves = append(curves, Curve{Spec: s, Trials: tr})
	}
	p := curvePanel("", "", curves, func(t Trial) []float64 { return t.TrainCost })
	want := []int{0, 1, 2, 0, 1, 2, 3, 4, 0, 2}
	for i, s := range p.Series {
		if s.Color != want[i] {
			t.Errorf("%s: colour %d, want %d", s.Name, s.Color, want[i])
		}
		if dashed := s.Dash != ""; dashed == curves[i].Spec.ssca() {
			t.Errorf("%s: dash %q", s.Name, s.Dash)
		}
	}
}
