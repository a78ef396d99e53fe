package experiments

import (
	"fmt"
	"strings"
)

// SweepAxis is one swept configuration key and its values.
type SweepAxis struct {
	Key    string `json:"key"`
	Values []any  `json:"values"`
}

// SweepPoint is one element of the cartesian product of the axes: a value
// per key, in axis order.
type SweepPoint []any

// Product returns the cartesian product of axes, the last axis varying
// fastest.
func Product(axes []SweepAxis) []SweepPoint {
	out := []SweepPoint{{}}
	for _, ax := range axes {
		var next []SweepPoint
		for _, p := range out {
			for _, v := range ax.Values {
				next = append(next, append(append(SweepPoint{}, p...), v))
			}
		}
		out = next
	}
	return out
}

// Slug names a point as key=value pairs, usable as a directory name.
func (p SweepPoint) Slug(axes []SweepAxis) string {
	parts := make([]string, len(p))
	for i, v := range p {
		parts[i] = fmt.Sprintf("%s=%v", axes[i].Key, v)
	}
	return strings.NewReplacer("/", "_", " ", "").Replace(strings.Join(parts, ","))
}
