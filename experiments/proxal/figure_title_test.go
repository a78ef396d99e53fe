package proxal

import (
	"testing"

	"github.com/fedcon/fedcon/solver"
)

// A figure's title writes ρ_i as the docs do: 1e8, not 1e+08.
func TestFigureTitleRho(t *testing.T) {
	for _, tt := range []struct {
		rho  float64
		want string
	}{
		{1e8, "ρ_i = 1e8 (fixed)"},
		{0.01, "ρ_i = 0.01 (fixed)"},
		{0.1, "ρ_i = 0.1 (fixed)"},
		{1e-5, "ρ_i = 1e-5 (fixed)"},
		{2.5e21, "ρ_i = 2.5e21 (fixed)"},
	} {
		c := &ALConfig{RhoRule: solver.RhoFixed}
		c.Rho = tt.rho
		if got := c.rhoLabel(); got != tt.want {
			t.Errorf("rho %g: %q, want %q", tt.rho, got, tt.want)
		}
	}
}
