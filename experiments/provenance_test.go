package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProvenanceRow: trial files of another version or commit, or of a
// dirty build, are counted and named; they fail only under strict.
func TestProvenanceRow(t *testing.T) {
	dir := t.TempDir()
	write := func(name, version string) string {
		t.Helper()
		body := `{"schema":3,"config_hash":"aaaaaaaaaaaaaaaa","fedcon_version":"` + version + `","key":"k","seed":1,"trial":{}}`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	same := write("a.json", "devel+111111111111")
	same2 := write("b.json", "devel+111111111111")
	old := write("c.json", "devel+222222222222")
	dirty := write("d.json", "devel+111111111111-dirty")
	unstamped := write("e.json", "devel+dirty")
	for _, tc := range []struct {
		name     string
		files    []string
		version  string
		strict   bool
		want     float64
		pass     bool
		inDetail []string
	}{
		{"all this build's", []string{same, same2}, "devel+111111111111", true, 0, true, []string{"2 trial files, all computed by this fedcon"}},
		{"another commit, reported", []string{same, old}, "devel+111111111111", false, 1, true, []string{"1 of 2", "devel+222222222222 (1)", "--strict fails them"}},
		{"another commit, strict", []string{same, old}, "devel+111111111111", true, 1, false, []string{"devel+222222222222 (1)"}},
		{"a dirty build's files are never this build's", []string{dirty, unstamped}, "devel+111111111111-dirty", true, 2, false, []string{"2 of 2", "devel+111111111111-dirty (1)", "devel+dirty (1)"}},
		{"checked by another version", []string{same, same2}, "v1.0.0", true, 2, false, []string{"devel+111111111111 (2)"}},
		{"a missing file is the trial files rule's", []string{same, "gone.json"}, "devel+111111111111", true, 0, true, []string{"1 trial files"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ProvenanceRow("x", dir, tc.files, tc.version, tc.strict)
			if r.Value != tc.want || r.Pass != tc.pass || r.Rule != "provenance" {
				t.Errorf("value %g pass %v, want %g %v (%s)", r.Value, r.Pass, tc.want, tc.pass, r.Detail)
			}
			for _, w := range tc.inDetail {
				if !strings.Contains(r.Detail, w) {
					t.Errorf("detail %q lacks %q", r.Detail, w)
				}
			}
		})
	}
}
