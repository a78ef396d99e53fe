package experiments

import "fmt"

// ConfigError signifies an invalid configuration value; the command layer
// maps it to exit code 2.
type ConfigError struct {
	Field  string // the config key, e.g. "beta"
	Value  any    // the offending value
	Reason string // what is valid, e.g. "must be > 0"
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("config: %s = %v: %s", e.Field, e.Value, e.Reason)
}
