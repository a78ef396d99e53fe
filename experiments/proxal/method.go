package proxal

import (
	"fmt"
	"math"

	"github.com/fedcon/fedcon/experiments"
	"github.com/fedcon/fedcon/solver"
)

// MethodConfig holds the parameters of Algorithms 1-3 that every experiment
// shares; each field is a YAML key.
type MethodConfig struct {
	Beta      float64          `mapstructure:"beta" json:"beta"`
	SBar      float64          `mapstructure:"sbar" json:"sbar"`
	Rho       float64          `mapstructure:"rho" json:"rho"`
	Q         float64          `mapstructure:"q" json:"q"`
	EpsFloor  float64          `mapstructure:"eps_floor" json:"eps_floor"`
	Eps1      float64          `mapstructure:"eps1" json:"eps1"`
	Eps2      float64          `mapstructure:"eps2" json:"eps2"`
	MaxOuter  int              `mapstructure:"max_outer" json:"max_outer"`
	MaxInner  int              `mapstructure:"max_inner" json:"max_inner"`
	InnerTest solver.InnerTest `mapstructure:"inner_test" json:"inner_test"`
	// OuterRelax caps λ of the relaxed proximal point step of the outer
	// iteration (solver.ProxAL.OuterRelax, docs/rho-rules.md); 0: the
	// paper's plain step. Omitted from hashes when 0, so the paper's
	// configurations keep their trial files.
	OuterRelax float64 `mapstructure:"outer_relax" json:"outer_relax,omitempty"`
	// Polish finishes Algorithms 1 and 3 with the KKT polish on the
	// identified active set (solver.ProxAL.Polish): any tolerance, reached
	// super-linearly, the status still from the audit. Omitted from hashes
	// when false (the paper).
	Polish bool `mapstructure:"polish" json:"polish,omitempty"`
	// ParticipationConfig: partial participation (docs/participation.md).
	ParticipationConfig `mapstructure:",squash"`
}

// ValidateMethod checks the keys of MethodConfig.
func (c *MethodConfig) ValidateMethod() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"beta", c.Beta}, {"sbar", c.SBar}, {"rho", c.Rho}, {"eps1", c.Eps1}, {"eps2", c.Eps2}} {
		if !(p.v > 0) || math.IsInf(p.v, 0) {
			return &experiments.ConfigError{Field: p.name, Value: p.v, Reason: "must be a finite number > 0"}
		}
	}
	switch {
	case !(c.Q > 0 && c.Q < 1):
		return &experiments.ConfigError{Field: "q", Value: c.Q, Reason: "must be in (0, 1)"}
	case !(c.EpsFloor >= 0) || math.IsInf(c.EpsFloor, 0):
		return &experiments.ConfigError{Field: "eps_floor", Value: c.EpsFloor, Reason: "must be a finite number >= 0"}
	case c.Eps1 >= 1 || c.Eps2 >= 1:
		return &experiments.ConfigError{Field: "eps1/eps2", Value: fmt.Sprint(c.Eps1, ", ", c.Eps2), Reason: "must be < 1"}
	case c.MaxOuter < 1 || c.MaxOuter > experiments.MaxIter:
		return &experiments.ConfigError{Field: "max_outer", Value: c.MaxOuter, Reason: fmt.Sprintf("must be in [1, %d]", experiments.MaxIter)}
	case c.MaxInner < 1 || c.MaxInner > experiments.MaxIter:
		return &experiments.ConfigError{Field: "max_inner", Value: c.MaxInner, Reason: fmt.Sprintf("must be in [1, %d]", experiments.MaxIter)}
	case c.InnerTest != solver.InnerTestPaper && c.InnerTest != solver.InnerTestMeasured:
		return &experiments.ConfigError{Field: "inner_test", Value: int(c.InnerTest), Reason: "must be paper or measured"}
	case !(c.OuterRelax >= 0 && c.OuterRelax < 2):
		return &experiments.ConfigError{Field: "outer_relax", Value: c.OuterRelax, Reason: "must be in [0, 2) (0 or 1: the paper's plain outer step)"}
	}
	return c.ValidateParticipation()
}

// Settings are the solver settings of c, workers clients at a time.
func (c *MethodConfig) Settings(workers int) *solver.Settings {
	return &solver.Settings{MaxOuter: c.MaxOuter, MaxInner: c.MaxInner, Eps1: c.Eps1, Eps2: c.Eps2, Workers: workers}
}

// Methods returns Algorithm 1 and cProx-AL with these parameters.
func (c *MethodConfig) Methods() (*solver.ProxAL, *solver.CProxAL) {
	return &solver.ProxAL{Beta: c.Beta, SBar: c.SBar, Rho: c.Rho, Q: c.Q, EpsFloor: c.EpsFloor, Test: c.InnerTest, OuterRelax: c.OuterRelax, Polish: c.Polish},
		&solver.CProxAL{Beta: c.Beta, SBar: c.SBar, OuterRelax: c.OuterRelax, Polish: c.Polish}
}
