package experiments

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// TestInterruptible: a cancelled wait returns at once with ctx's error; a
// finished f returns its own result.
func TestInterruptible(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err := Interruptible(ctx, func() (int, error) { <-release; return 1, nil })
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("err %v after %v, want context.Canceled at once", err, time.Since(start))
	}
	v, err := Interruptible(context.Background(), func() (int, error) { return 7, errors.New("x") })
	if v != 7 || err == nil || err.Error() != "x" {
		t.Fatalf("got %d, %v", v, err)
	}
	if _, err := Interruptible(ctx, func() (int, error) { t.Error("ran after cancel"); return 0, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

func TestFormatBytes(t *testing.T) {
	for b, want := range map[float64]string{0: "0.0 B", 1023: "1023.0 B", 1536: "1.5 KiB", 8 << 30: "8.0 GiB", 1.3 * (1 << 40): "1.3 TiB"} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%g) = %q, want %q", b, got, want)
		}
	}
}

// TestCheckFinite: the first non-finite number is named by its YAML key,
// through squashed structs, nested structs, lists and maps.
func TestCheckFinite(t *testing.T) {
	type step struct {
		Alpha float64 `mapstructure:"alpha"`
	}
	type Base struct {
		EpsFloor float64 `mapstructure:"eps_floor"`
	}
	type config struct {
		Base  `mapstructure:",squash"`
		Inner struct {
			Rho float64 `mapstructure:"rho"`
		} `mapstructure:"inner"`
		U     map[string]float64 `mapstructure:"u"`
		Steps []step             `mapstructure:"sample_steps"`
		Label string             `mapstructure:"label"`
	}
	nan, inf := math.NaN(), math.Inf(-1)
	cases := []struct {
		name string
		edit func(*config)
		key  string // "" when finite
	}{
		{"finite", func(*config) {}, ""},
		{"squashed", func(c *config) { c.EpsFloor = nan }, "eps_floor"},
		{"nested", func(c *config) { c.Inner.Rho = inf }, "inner.rho"},
		{"map", func(c *config) { c.U = map[string]float64{"mnist": inf} }, "u.mnist"},
		{"list of structs", func(c *config) { c.Steps = []step{{1}, {nan}} }, "sample_steps.alpha"},
	}
	for _, c := range cases {
		cfg := &config{U: map[string]float64{"mnist": 1}, Steps: []step{{1}}, Label: "x"}
		c.edit(cfg)
		err := CheckFinite(cfg)
		var ce *ConfigError
		if c.key == "" && err != nil || c.key != "" && (!errors.As(err, &ce) || ce.Field != c.key) {
			t.Errorf("%s: err %v, want a ConfigError on %q", c.name, err, c.key)
		}
	}
}
