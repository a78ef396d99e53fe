package datasets

import (
	"encoding/json"
	"math"
	"slices"
)

// ColumnSummary summarises one column: extremes, mean and population
// standard deviation.
type ColumnSummary struct {
	// Name is the column's feature name.
	Name string `json:"name"`
	// Min, Max, Mean and Std (population) are NaN for an empty column.
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// MarshalJSON encodes s with NaN statistics (an empty column) as null,
// which JSON cannot otherwise represent.
func (s ColumnSummary) MarshalJSON() ([]byte, error) {
	num := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		Name string   `json:"name"`
		Min  *float64 `json:"min"`
		Max  *float64 `json:"max"`
		Mean *float64 `json:"mean"`
		Std  *float64 `json:"std"`
	}{s.Name, num(s.Min), num(s.Max), num(s.Mean), num(s.Std)})
}

// ClassCount is the number of rows with one label (or group) value.
type ClassCount struct {
	// Label is the label (or group) value.
	Label float64 `json:"label"`
	// Count is the number of rows with it.
	Count int `json:"count"`
}

// Description summarises a Dataset for 'fedcon data describe'.
type Description struct {
	// Name and Label are the Dataset's.
	Name  string `json:"name"`
	Label string `json:"label"`
	// Rows is the number of rows; Dropped the raw records the pipeline dropped.
	Rows    int `json:"rows"`
	Dropped int `json:"dropped"`
	// Features is the number of columns of X, the intercept included.
	Features int `json:"features"`
	// Classes are the rows per label, increasing; nil for regression.
	Classes []ClassCount `json:"classes,omitempty"`
	// Groups are the rows per sensitive group (adult-b); nil otherwise.
	Groups []ClassCount `json:"groups,omitempty"`
	// Target summarises Y for regression; nil for classification.
	Target *ColumnSummary `json:"target,omitempty"`
	// Columns summarise every column of X (NaN statistics for no rows).
	Columns []ColumnSummary `json:"columns"`
	// Server describes d.Server; nil when d has none.
	Server *Description `json:"server,omitempty"`
}

// Describe computes the Description of d.
func Describe(d *Dataset) *Description {
	desc := &Description{Name: d.Name, Label: d.Label, Rows: d.Rows(), Dropped: d.Dropped,
		Features: len(d.FeatureNames)}
	if d.Regression {
		s := summarize("target", d.Y)
		desc.Target = &s
	} else {
		desc.Classes = ClassCounts(d.Y)
	}
	if d.Group != nil {
		g := make([]float64, len(d.Group))
		for i, v := range d.Group {
			g[i] = float64(v)
		}
		desc.Groups = ClassCounts(g)
	}
	col := make([]float64, d.Rows())
	for j, name := range d.FeatureNames {
		if d.Rows() > 0 {
			mat64Col(col, d, j)
		}
		desc.Columns = append(desc.Columns, summarize(name, col))
	}
	if d.Server != nil {
		desc.Server = Describe(d.Server)
	}
	return desc
}

// mat64Col copies column j of d.X into dst.
func mat64Col(dst []float64, d *Dataset, j int) {
	for i := range dst {
		dst[i] = d.X.At(i, j)
	}
}

// ClassCounts returns the number of rows per distinct value of y, in
// increasing value order (NaN values are not counted).
func ClassCounts(y []float64) []ClassCount {
	m := map[float64]int{}
	for _, v := range y {
		if !math.IsNaN(v) {
			m[v]++
		}
	}
	out := make([]ClassCount, 0, len(m))
	for v, c := range m {
		out = append(out, ClassCount{Label: v, Count: c})
	}
	slices.SortFunc(out, func(a, b ClassCount) int {
		switch {
		case a.Label < b.Label:
			return -1
		case a.Label > b.Label:
			return 1
		}
		return 0
	})
	return out
}

// summarize computes a ColumnSummary; all NaN for an empty column.
func summarize(name string, x []float64) ColumnSummary {
	s := ColumnSummary{Name: name, Min: math.NaN(), Max: math.NaN(), Mean: math.NaN(), Std: math.NaN()}
	if len(x) == 0 {
		return s
	}
	s.Min, s.Max = x[0], x[0]
	var sum float64
	for _, v := range x {
		s.Min, s.Max = min(s.Min, v), max(s.Max, v)
		sum += v
	}
	s.Mean = sum / float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - s.Mean) * (v - s.Mean)
	}
	s.Std = math.Sqrt(ss / float64(len(x)))
	return s
}
