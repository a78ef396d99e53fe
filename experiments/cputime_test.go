package experiments

import (
	"runtime"
	"testing"
)

// TestRunInfoCPU: a run that spins for 50 ms of CPU records at least that,
// and no more CPU than its wall time allows on this machine's cores.
func TestRunInfoCPU(t *testing.T) {
	if _, ok := processCPU(); !ok {
		t.Skip("no process CPU time on this system")
	}
	info := NewRunInfo("spin", "test", struct{}{}, 1)
	x := 1.0
	for now := info.cpu0; now-info.cpu0 < 0.05; now, _ = processCPU() {
		for i := 0; i < 1e5; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	info.Finish()
	if x == 0 {
		t.Fatal("unreachable: keeps the loop")
	}
	if info.CPUSec < 0.05 || info.CPUSec > info.WallSec*float64(runtime.NumCPU())+0.02 {
		t.Errorf("cpu_seconds %.3f with wall %.3f s on %d CPUs: want at least 0.05 and at most wall × CPUs",
			info.CPUSec, info.WallSec, runtime.NumCPU())
	}
}
