package experiments

import (
	"fmt"
	"strings"
	"testing"
)

// TestOwnerBalanced: every cell's trials spread over the shards within one
// trial of an even share, the same in every process, and the leftovers of
// small cells do not all land on one shard.
func TestOwnerBalanced(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7, 16} {
		total := make([]int, n)
		for c := 0; c < 40; c++ {
			cell := fmt.Sprintf("n%d-d%d-m%d", c%5+1, 100*(c+1), c%3+1)
			for _, trials := range []int{1, 3, 10, 100} {
				per := make([]int, n)
				for tr := 0; tr < trials; tr++ {
					k := Owner(TrialKey(fmt.Sprintf("%s-x%d", cell, trials), tr), n)
					if k < 0 || k >= n {
						t.Fatalf("owner %d of %d shards", k, n)
					}
					per[k]++
					total[k]++
				}
				lo, hi := trials/n, (trials+n-1)/n
				for k, c := range per {
					if c < lo || c > hi {
						t.Fatalf("n=%d cell %s with %d trials: shard %d has %d, want %d..%d", n, cell, trials, k, c, lo, hi)
					}
				}
			}
		}
		// 40 cells × 114 trials: within 5% of an even share overall.
		even := float64(40*114) / float64(n)
		for k, c := range total {
			if float64(c) < 0.95*even || float64(c) > 1.05*even {
				t.Errorf("n=%d: shard %d has %d trials, even share %.0f", n, k, c, even)
			}
		}
	}
	if Owner("rep-007", 4) != Owner("rep-007", 4) || Owner("no-number", 3) != Owner("no-number", 3) {
		t.Error("Owner is not a function of its key")
	}
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		k, n int
		err  string
	}{
		{"0/1", 0, 1, ""}, {"3/4", 3, 4, ""}, {" 1 / 2 ", 0, 0, "integers"},
		{" 1/3", 0, 0, "integers"}, {"01/3", 0, 0, "leading zeros"}, {"+1/3", 0, 0, "without signs"},
		{"1/03", 0, 0, "leading zeros"}, {"-0/1", 0, 0, "without signs"},
		{"4/4", 0, 0, "0..3"}, {"0/0", 0, 0, "at least 1"}, {"-1/2", 0, 0, "0..1"},
		{"1", 0, 0, "K/N"}, {"1/x", 0, 0, "integers"}, {"", 0, 0, "K/N"},
	} {
		s, err := ParseShard(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: got %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || s.K != c.k || s.N != c.n {
			t.Errorf("%q: got %v %v", c.in, s, err)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "a/b", "1//2", "-0/-0", "99999999999999999999/1", "01/3", "+1/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		s, err := ParseShard(v)
		if err == nil && (s.N < 1 || s.K < 0 || s.K >= s.N) {
			t.Fatalf("%q: accepted %v", v, s)
		}
		if err == nil && fmt.Sprintf("%d/%d", s.K, s.N) != v {
			t.Fatalf("%q: accepted as %d/%d", v, s.K, s.N)
		}
		if err == nil && Owner("cell-t03", s.N) >= s.N {
			t.Fatalf("owner out of range")
		}
	})
}
