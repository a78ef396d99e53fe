package cmd

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts the --cpuprofile profile into path and returns
// what stops it and closes the file.
func startCPUProfile(path string) (func() error, error) {
	fh, err := os.Create(path)
	if err != nil {
		return nil, flagErrorf("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(fh); err != nil {
		fh.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := fh.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}, nil
}
