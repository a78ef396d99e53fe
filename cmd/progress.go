package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fedcon/fedcon/experiments"
)

// progressPrinter shows a one-line bar with elapsed time and ETA on a
// terminal; elsewhere (CI, pipes) it stays quiet and the caller prints one
// summary line. It is a dozen lines, so no progress-bar dependency.
type progressPrinter struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	label string
	start time.Time
}

func newProgress(f *Factory, quiet bool, label string) *progressPrinter {
	return &progressPrinter{w: f.IO.ErrOut, tty: f.IO.ErrTTY && !quiet, label: label, start: time.Now()}
}

// fn returns the experiments.Progress callback.
func (p *progressPrinter) fn() experiments.Progress {
	return func(done, total int, what string) {
		if !p.tty {
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		el := time.Since(p.start)
		eta := time.Duration(float64(el) / float64(done) * float64(total-done))
		const width = 24
		fill := width * done / max(total, 1)
		fmt.Fprintf(p.w, "\r\033[K%s [%s%s] %d/%d  %s  ETA %s  %s", p.label,
			strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total,
			el.Round(100*time.Millisecond), eta.Round(time.Second), what)
		if done == total {
			fmt.Fprintln(p.w)
		}
	}
}
