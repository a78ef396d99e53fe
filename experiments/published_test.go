package experiments

import "testing"

func TestPublished(t *testing.T) {
	cases := []struct {
		table string
		path  []string
		want0 float64
		n     int
	}{
		{"table4", []string{"5,100,1"}, 9.81, 10},
		{"table1", []string{"adult-a", "5"}, 0.74, 14},
		{"table2", []string{"20"}, 0.38, 14},
	}
	for _, c := range cases {
		got := Published(c.table, c.path...)
		if len(got) != c.n || got[0] != c.want0 {
			t.Errorf("%s %v = %v", c.table, c.path, got)
		}
	}
	if Published("table1", "nope", "1") != nil {
		t.Error("unknown key should give nil")
	}
}
