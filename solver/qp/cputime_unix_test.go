//go:build unix

package qp

import "syscall"

// cpuTime returns the CPU time (user + system) of the process so far in
// nanoseconds, or −1 if it cannot be read.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
