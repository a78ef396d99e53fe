package ssca

import (
	"errors"
	"math"
	"testing"

	"github.com/fedcon/fedcon/experiments"
)

// TestCheckFiniteSSCA: CheckFinite names a non-finite number of the SSCA
// configuration by its YAML key, through its maps and lists of structs.
func TestCheckFiniteSSCA(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(-1)
	cases := []struct {
		name string
		cfg  any
		key  string // "" when finite
	}{
		{"finite", &Config{U: map[string]float64{"mnist": 1}}, ""},
		{"ssca map", &Config{U: map[string]float64{"mnist": inf}}, "u.mnist"},
		{"ssca list of structs", &Config{SampleSteps: []Step{{Alpha: nan}}}, "sample_steps.alpha"},
	}
	for _, c := range cases {
		err := experiments.CheckFinite(c.cfg)
		var ce *experiments.ConfigError
		if c.key == "" && err != nil || c.key != "" && (!errors.As(err, &ce) || ce.Field != c.key) {
			t.Errorf("%s: err %v, want a ConfigError on %q", c.name, err, c.key)
		}
	}
}
