package experiments

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
)

// publishedTable4 returns the paper's Table 4 row for cell (n, d, m), or nil.
func publishedTable4(n, d, m int) []float64 {
	b, err := configs.Reference("published")
	if err != nil {
		return nil
	}
	var doc struct {
		Table4 map[string]any `yaml:"table4"`
	}
	if yaml.Unmarshal(b, &doc) != nil {
		return nil
	}
	raw, ok := doc.Table4[fmt.Sprintf("%d,%d,%d", n, d, m)].([]any)
	if !ok {
		return nil
	}
	out := make([]float64, len(raw))
	for i, v := range raw {
		switch x := v.(type) {
		case float64:
			out[i] = x
		case int:
			out[i] = float64(x)
		}
	}
	return out
}
