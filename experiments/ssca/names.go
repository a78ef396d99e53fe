package ssca

import "github.com/fedcon/fedcon/experiments"

// Labels says which feature-based clients hold the labels: all (every
// client, as the paper's messages need) or client0 (client 0 sends Q - y
// to the others).
type Labels string

// The holders of the labels.
const (
	LabelsAll     Labels = "all"
	LabelsClient0 Labels = "client0"
)

// UnmarshalText accepts all or client0.
func (l *Labels) UnmarshalText(b []byte) error {
	return experiments.UnmarshalName(l, b, false, LabelsAll, LabelsClient0)
}

// MarshalText writes the name.
func (l Labels) MarshalText() ([]byte, error) { return []byte(l), nil }

// Precision is the arithmetic of the training cost's first layer: float64
// or float32.
type Precision string

// The precisions.
const (
	Float64 Precision = "float64"
	Float32 Precision = "float32"
)

// UnmarshalText accepts float32 or float64.
func (p *Precision) UnmarshalText(b []byte) error {
	return experiments.UnmarshalName(p, b, false, Float32, Float64)
}

// MarshalText writes the name.
func (p Precision) MarshalText() ([]byte, error) { return []byte(p), nil }
