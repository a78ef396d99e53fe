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

// GateOptions are what the check gate needs beyond the files.
type GateOptions struct {
	// DataDirs is the data sets' search path, for the columns a table takes
	// from the data split (nil: the download cache).
	DataDirs []string
	// Version is the fedcon version trial files are compared with (the
	// provenance rule); empty: the version of the manifest's run.
	Version string
	// Strict fails trial files of another version (fedcon check --strict).
	Strict bool
}

// ManifestProvenance is the provenance row of the experiment name whose
// manifest is dir/manifest (trial files under dir/trials/); false when the
// manifest cannot be read (the manifest rule fails that).
func ManifestProvenance(name, dir, manifest string, opt GateOptions) (CheckRow, bool) {
	var m struct {
		Version    string   `json:"fedcon_version"`
		TrialFiles []string `json:"trial_files"`
	}
	b, err := os.ReadFile(filepath.Join(dir, manifest))
	if err != nil || json.Unmarshal(b, &m) != nil {
		return CheckRow{}, false
	}
	v := opt.Version
	if v == "" {
		v = m.Version
	}
	return ProvenanceRow(name, filepath.Join(dir, "trials"), m.TrialFiles, v, opt.Strict), true
}

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
	case total == 0:
		r.Detail = "the manifest lists no trial files"
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
