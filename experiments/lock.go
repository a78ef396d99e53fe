package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockFile is the advisory lock of an experiment directory: it holds the
// pid, host and command of the run that holds it.
const LockFile = ".lock"

// ErrLocked is wrapped by LockDir's error when another process holds the lock.
var ErrLocked = errors.New("in use by another run")

// DirLock is a held lock on an experiment directory.
type DirLock struct {
	f *os.File
	// Cleaned counts the stale temporary files LockDir removed.
	Cleaned int
}

// LockDir takes the advisory lock of dir (created if missing) without
// waiting: when another process holds it, the error wraps ErrLocked and
// names the holder. Holding the lock, it removes the temporary files an
// earlier run killed mid-write left in dir and below: no other writer can
// be using them.
func LockDir(dir, command string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			holder, _ := os.ReadFile(path)
			h := strings.TrimSpace(string(holder))
			if h == "" {
				h = "unknown holder"
			}
			return nil, fmt.Errorf("experiments: %s is %w (%s); wait for it to finish or use another --out", dir, ErrLocked, h)
		}
		return nil, fmt.Errorf("experiments: lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	info := fmt.Sprintf("pid %d on %s since %s: %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339), command)
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(info), 0)
	}
	l := &DirLock{f: f}
	l.Cleaned, err = removeStaleTemps(dir)
	if err != nil {
		l.Unlock()
		return nil, err
	}
	return l, nil
}

// Unlock releases the lock; the lock file stays (removing it would race
// with a process that opened it and waits).
func (l *DirLock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = funlock(l.f)
	_ = l.f.Close()
	l.f = nil
}

// isTemp reports whether name is one of WriteAtomic's temporary files.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp")
}

func removeStaleTemps(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && isTemp(d.Name()) {
			if err := os.Remove(p); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("experiments: clean %s: %w", dir, err)
	}
	return n, nil
}
