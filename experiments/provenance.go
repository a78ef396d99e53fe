package experiments

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TrialVersions counts the trial files a manifest lists (names relative to
// trialsDir) by the fedcon version recorded in each. A listed file that is
// missing or unreadable counts under "" (the trial files rule names it).
func TrialVersions(trialsDir string, files []string) map[string]int {
	out := map[string]int{}
	for _, f := range files {
		var st struct {
			Version string `json:"fedcon_version"`
		}
		b, err := os.ReadFile(filepath.Join(trialsDir, filepath.FromSlash(f)))
		if err != nil || json.Unmarshal(b, &st) != nil {
			out[""]++
			continue
		}
		out[st.Version]++
	}
	return out
}

// ForeignVersion reports whether a trial file computed by fedcon version v
// is not known to be this build's (version): another version or commit, or
// a build from a modified work tree, whose code no commit names.
func ForeignVersion(v, version string) bool {
	return v != version || strings.HasSuffix(v, "dirty")
}

// ProvenanceRow is the `provenance` check row of an experiment whose
// manifest lists files under trialsDir: how many were computed by another
// fedcon version or commit than version, and which. They pass unless
// strict (`fedcon check --strict`).
func ProvenanceRow(experiment, trialsDir string, files []string, version string, strict bool) CheckRow {
	vs := TrialVersions(trialsDir, files)
	delete(vs, "") // missing files fail the trial files rule
	n, total := 0, 0
	var named []string
	for _, v := range slices.Sorted(maps.Keys(vs)) {
		total += vs[v]
		if ForeignVersion(v, version) {
			n += vs[v]
			named = append(named, fmt.Sprintf("%s (%d)", v, vs[v]))
		}
	}
	r := CheckRow{Experiment: experiment, Cell: "all", Rule: "provenance", Value: float64(n), Pass: n == 0 || !strict}
	switch {
	case n == 0:
		r.Detail = fmt.Sprintf("%d trial files, all computed by this fedcon (%s)", total, version)
	default:
		r.Detail = fmt.Sprintf("%d of %d trial files not shown to be this fedcon's (%s; a -dirty build's code has no commit): computed by %s", n, total, version, strings.Join(named, ", "))
		if !strict {
			r.Detail += "; rerun with --force to recompute, --strict fails them"
		}
	}
	return r
}
