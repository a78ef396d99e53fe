package experiments

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

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
	doc := referenceDoc(file)
	if doc == nil {
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

// PublishedRow is a paper's values for one cell of a table, each keyed by
// what it is: Columns are the reference file's `columns` of the table
// (objective_alg1, objective_alg1_std, ...), Values the numbers in that
// order. Its JSON is an object in column order, e.g. {"objective_alg1":
// 0.77, "objective_alg1_std": 0.0198, ...}; the zero value (no published
// row) is omitted with omitzero.
type PublishedRow struct {
	Columns []string
	Values  []float64
}

// IsZero reports a row without values.
func (p PublishedRow) IsZero() bool { return len(p.Values) == 0 }

// MarshalJSON writes the values as an object keyed by their columns (a
// value without a column name is keyed by its index).
func (p PublishedRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range p.Values {
		if i > 0 {
			b.WriteByte(',')
		}
		key := strconv.Itoa(i)
		if i < len(p.Columns) {
			key = p.Columns[i]
		}
		k, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		val, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("experiments: published %s: %w", key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object MarshalJSON writes, keeping its order, or
// the unlabelled list of earlier result files (Columns then stay empty).
func (p *PublishedRow) UnmarshalJSON(data []byte) error {
	*p = PublishedRow{}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
		return json.Unmarshal(data, &p.Values)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return fmt.Errorf("experiments: published: %w", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("experiments: published: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("experiments: published: key %v is not a string", tok)
		}
		var v float64
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("experiments: published %s: %w", key, err)
		}
		p.Columns, p.Values = append(p.Columns, key), append(p.Values, v)
	}
	_, err := dec.Token() // }
	return err
}

// PublishedRowIn is PublishedIn with the values keyed by the table's columns.
func PublishedRowIn(file, table string, path ...string) PublishedRow {
	vals := PublishedIn(file, table, path...)
	if vals == nil {
		return PublishedRow{}
	}
	row := PublishedRow{Values: vals}
	if cols, ok := entry(referenceDoc(file)[table], "columns").([]any); ok {
		for _, c := range cols {
			row.Columns = append(row.Columns, fmt.Sprint(c))
		}
	}
	return row
}

// PaperNotes returns the table notes that say why our values of table are
// not expected to match the paper's, from the reference file's `why` entry
// of the table: one note for a string (the whole table), else one per key
// of keys (data sets, in order, each once) that the map names, e.g.
// "Paper column, adult-a: not expected to match: different feature
// encodings ...". Tables whose values should match have no `why`.
func PaperNotes(file, table string, keys []string) []string {
	switch w := entry(referenceDoc(file)[table], "why").(type) {
	case string:
		return []string{"Paper column: not expected to match: " + w}
	case map[string]any, map[any]any:
		var out []string
		seen := map[string]bool{}
		for _, k := range keys {
			if s, ok := entry(w, k).(string); ok && !seen[k] {
				seen[k] = true
				out = append(out, fmt.Sprintf("Paper column, %s: not expected to match: %s", k, s))
			}
		}
		return out
	}
	return nil
}

// AddNotes appends notes to t and to its Brief.
func (t *Table) AddNotes(notes ...string) {
	t.Notes = append(t.Notes, notes...)
	if t.Brief != nil {
		t.Brief.Notes = append(t.Brief.Notes, notes...)
	}
}

// entry is m[key] for a YAML mapping m (string keys, or mixed keys such as
// n's integers), else nil.
func entry(m any, key string) any {
	switch m := m.(type) {
	case map[string]any:
		return m[key]
	case map[any]any:
		for k, v := range m {
			if fmt.Sprint(k) == key {
				return v
			}
		}
	}
	return nil
}

// referenceDoc parses configs/reference/file.yaml; nil when it cannot.
func referenceDoc(file string) map[string]any {
	b, err := configs.Reference(file)
	if err != nil {
		return nil
	}
	var doc map[string]any
	if yaml.Unmarshal(b, &doc) != nil {
		return nil
	}
	return doc
}
