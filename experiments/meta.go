package experiments

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"time"
)

// RunInfo is recorded in every result file: what produced it.
type RunInfo struct {
	Experiment string    `json:"experiment"`
	Version    string    `json:"fedcon_version"`
	GoVersion  string    `json:"go_version"`
	CPU        string    `json:"cpu"`
	NumCPU     int       `json:"num_cpu"`
	Workers    int       `json:"workers"`
	Config     any       `json:"config"`
	ConfigHash string    `json:"config_hash"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	WallSec    float64   `json:"wall_seconds"`
	// CPUSec is the process's CPU time (user and system, every worker)
	// from Start to End: on a shared machine the wall says little of what
	// a run costs (absent where the system does not report it).
	CPUSec float64 `json:"cpu_seconds,omitempty"`

	cpu0 float64 // processCPU at Start
}

// NewRunInfo starts a record for cfg.
func NewRunInfo(experiment, version string, cfg any, workers int) *RunInfo {
	cpu0, _ := processCPU()
	return &RunInfo{
		Experiment: experiment, Version: version, GoVersion: runtime.Version(),
		CPU: cpuModel(), NumCPU: runtime.NumCPU(), Workers: workers,
		Config: cfg, ConfigHash: ConfigHash(cfg), Start: time.Now().UTC(), cpu0: cpu0,
	}
}

// Finish stamps the end time and the CPU time spent since the start.
func (r *RunInfo) Finish() {
	r.End = time.Now().UTC()
	r.WallSec = r.End.Sub(r.Start).Seconds()
	if cpu, ok := processCPU(); ok {
		r.CPUSec = cpu - r.cpu0
	}
}

// ConfigHash is the SHA-256 of cfg's JSON encoding (first 16 hex digits):
// results computed under the same hash are interchangeable. It is empty when
// cfg cannot be encoded (NaN, ±Inf), never the hash of an empty encoding.
func ConfigHash(cfg any) string {
	b, err := json.Marshal(cfg)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// Progress receives one call per finished unit of work (a trial).
type Progress func(done, total int, label string)

// Manifest describes one results/<experiment>/ directory: what produced it
// (version, Go, CPU, configuration and its hash, seed, times) and what the
// run did with the trial files there.
type Manifest struct {
	*RunInfo
	Commit    string `json:"commit,omitempty"`
	Seed      uint64 `json:"seed"`
	TrialHash string `json:"trial_hash"`
	StoreCounts
	// TrialFiles are the per-trial JSON files under trials/.
	TrialFiles []string `json:"trial_files"`
	// Complete is false when the run was interrupted or failed.
	Complete bool   `json:"complete"`
	Error    string `json:"error,omitempty"`
}

// NewManifest builds the manifest of a run from its info and store.
func NewManifest(info *RunInfo, seed uint64, s *Store, runErr error) (*Manifest, error) {
	m := &Manifest{RunInfo: info, Seed: seed, StoreCounts: s.Counts(), Complete: runErr == nil}
	if s != nil {
		m.TrialHash = s.Hash
	}
	if _, c, ok := strings.Cut(info.Version, "+"); ok {
		m.Commit = c
	}
	if runErr != nil {
		m.Error = runErr.Error()
	}
	files, err := s.Files()
	m.TrialFiles = files
	return m, err
}
