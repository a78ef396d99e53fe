//go:build linux

// Command pause is the pod sandbox ("pause") image of make test-k8s: the
// one-node cluster there reaches no registry, so containerd's sandbox_image
// is this program on an empty base, built and imported by the test. It
// waits for SIGTERM or SIGINT and exits 0, as the registry's pause does; it
// also reaps the children that a shared PID namespace would hand it.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			return
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
