package experiments

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/fedcon/fedcon/configs"
)

// Published returns the core paper's row of table (e.g. "table4") under
// key path (e.g. "5,300,3", or "adult-a", "5"), or nil when there is none.
func Published(table string, path ...string) []float64 {
	return PublishedIn("published", table, path...)
}

// PublishedIn is published for the reference file configs/reference/file.yaml
// ("published": the core paper; "conic-published": the conic paper).
func PublishedIn(file, table string, path ...string) []float64 {
	b, err := configs.Reference(file)
	if err != nil {
		return nil
	}
	var doc map[string]any
	if yaml.Unmarshal(b, &doc) != nil {
		return nil
	}
	cur := doc[table]
	for _, k := range path {
		switch m := cur.(type) {
		case map[string]any:
			cur = m[k]
		case map[any]any: // integer keys such as n
			var next any
			for mk, v := range m {
				if fmt.Sprint(mk) == k {
					next = v
				}
			}
			cur = next
		default:
			return nil
		}
	}
	raw, ok := cur.([]any)
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

// PublishedTable4 returns the paper's Table 4 row for cell (n, d, m), or nil.
func PublishedTable4(n, d, m int) []float64 {
	return Published("table4", fmt.Sprintf("%d,%d,%d", n, d, m))
}
