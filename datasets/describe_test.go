package datasets

import (
	"encoding/json"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestDescribe(t *testing.T) {
	// Column a = 1, 3, 5: mean 3, population std sqrt(8/3); b = 0, 0, 1:
	// mean 1/3, std sqrt(2/9).
	three := &Dataset{Name: "three", FeatureNames: []string{"a", "b", "intercept"},
		X: mat.NewDense(3, 3, []float64{1, 0, 1, 3, 0, 1, 5, 1, 1}), Y: []float64{0, 1, 1}}
	empty := &Dataset{Name: "empty", FeatureNames: []string{"a", "intercept"}, Regression: true}
	tests := []struct {
		name     string
		d        *Dataset
		wantCols []ColumnSummary
		wantJSON string // the columns' JSON
	}{
		{"three rows", three, []ColumnSummary{
			{"a", 1, 5, 3, math.Sqrt(8.0 / 3)}, {"b", 0, 1, 1.0 / 3, math.Sqrt(2.0 / 9)}, {"intercept", 1, 1, 1, 0}},
			`[{"name":"a","min":1,"max":5,"mean":3,"std":1.632993161855452},` +
				`{"name":"b","min":0,"max":1,"mean":0.3333333333333333,"std":0.4714045207910317},` +
				`{"name":"intercept","min":1,"max":1,"mean":1,"std":0}]`},
		// No rows: NaN statistics, which JSON writes as null.
		{"no rows", empty, []ColumnSummary{
			{"a", math.NaN(), math.NaN(), math.NaN(), math.NaN()}, {"intercept", math.NaN(), math.NaN(), math.NaN(), math.NaN()}},
			`[{"name":"a","min":null,"max":null,"mean":null,"std":null},` +
				`{"name":"intercept","min":null,"max":null,"mean":null,"std":null}]`},
	}
	// Sums of a few terms: a few ulps.
	const tol = 1e-15
	same := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) <= tol }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			desc := Describe(tt.d)
			if desc.Rows != tt.d.Rows() || desc.Features != len(tt.d.FeatureNames) || len(desc.Columns) != len(tt.wantCols) {
				t.Fatalf("%+v", desc)
			}
			for j, w := range tt.wantCols {
				g := desc.Columns[j]
				if g.Name != w.Name || !same(g.Min, w.Min) || !same(g.Max, w.Max) || !same(g.Mean, w.Mean) || !same(g.Std, w.Std) {
					t.Errorf("column %d: %+v, want %+v", j, g, w)
				}
			}
			b, err := json.Marshal(desc.Columns)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.wantJSON {
				t.Errorf("json\n%s\nwant\n%s", b, tt.wantJSON)
			}
			if _, err := json.Marshal(desc); err != nil {
				t.Errorf("description: %v", err)
			}
		})
	}
	if c := Describe(three).Classes; len(c) != 2 || c[0] != (ClassCount{0, 1}) || c[1] != (ClassCount{1, 2}) {
		t.Errorf("classes %v", c)
	}
}
