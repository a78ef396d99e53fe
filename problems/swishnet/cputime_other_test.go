//go:build !unix

package swishnet

import "time"

func cpuTime() time.Duration { return 0 }
