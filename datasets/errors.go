package datasets

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotFound signifies that a raw file is in none of the searched directories.
var ErrNotFound = errors.New("file not found")

// FileError signifies a raw data file that is missing, unreadable, corrupt,
// or that fails its integrity check. Its Error method is one line naming the
// file, the directories searched and the fix; the command layer maps it to
// exit code 2.
type FileError struct {
	// File is the file's path relative to a data directory, e.g. "adult/adult.data".
	File string
	// Path is the file that was read; empty when it was not found.
	Path string
	// Dirs are the directories searched, in order.
	Dirs []string
	// Dataset is the dataset being loaded or fetched, used in the suggested fix.
	Dataset string
	// URL is set when the file is a download that failed verification.
	URL string
	// Fix, if set, replaces the suggested 'fedcon data fetch' (idx data
	// sets, which fedcon does not download).
	Fix string
	// Err is the cause: ErrNotFound, a *ChecksumError, a *CountError, a
	// *ParseError, an *IDXError or an I/O error.
	Err error
}

// Error returns the one-line message: file, directories searched, fix.
func (e *FileError) Error() string {
	fetch := "'fedcon data fetch'"
	if e.Dataset != "" {
		fetch = fmt.Sprintf("'fedcon data fetch %s'", e.Dataset)
	}
	searched := "no directory"
	if len(e.Dirs) > 0 {
		searched = strings.Join(e.Dirs, ", ")
	}
	if e.Fix != "" {
		if errors.Is(e.Err, ErrNotFound) {
			return fmt.Sprintf("datasets: %s not found (searched %s): %s", e.File, searched, e.Fix)
		}
		cause := e.Err.Error()
		var ie *IDXError
		if errors.As(e.Err, &ie) {
			cause = ie.Msg
		}
		return fmt.Sprintf("datasets: %s: %s (searched %s): %s", e.where(), cause, searched, e.Fix)
	}
	var (
		ce *ChecksumError
		ne *CountError
		pe *ParseError
	)
	switch {
	case e.URL != "":
		cause := e.Err.Error()
		if errors.As(e.Err, &pe) {
			cause = fmt.Sprintf("line %d: %s", pe.Line, pe.Msg)
		}
		return fmt.Sprintf("datasets: %s: %s: the server sent a different file than the one pinned for %s; nothing was written to %s; try another --mirror, or pass --no-verify to install it anyway",
			e.URL, cause, e.File, searched)
	case errors.Is(e.Err, ErrNotFound):
		return fmt.Sprintf("datasets: %s not found (searched %s): set --data-dir or FEDCON_DATA_DIR to the folder holding %s, or run %s",
			e.File, searched, e.File, fetch)
	case errors.As(e.Err, &ce), errors.As(e.Err, &ne):
		return fmt.Sprintf("datasets: %s: %v (searched %s): replace it with the UCI original (run %s) or pass --no-verify to use it anyway",
			e.where(), e.Err, searched, fetch)
	case errors.As(e.Err, &pe):
		return fmt.Sprintf("datasets: %s:%d: %s (searched %s): the file is damaged; replace it with the UCI original (run %s)",
			e.where(), pe.Line, pe.Msg, searched, fetch)
	default:
		return fmt.Sprintf("datasets: %s: %v (searched %s): check that the file is readable, or run %s",
			e.where(), e.Err, searched, fetch)
	}
}

// where is the file read, or its relative name when none was.
func (e *FileError) where() string {
	if e.Path != "" {
		return e.Path
	}
	return e.File
}

// Unwrap returns the cause.
func (e *FileError) Unwrap() error { return e.Err }

// ChecksumError signifies a file whose SHA-256 differs from the pinned one.
type ChecksumError struct {
	Got, Want string // hex SHA-256 sums
}

// Error names both sums, abbreviated.
func (e *ChecksumError) Error() string {
	return fmt.Sprintf("sha-256 %s differs from the pinned %s", short(e.Got), short(e.Want))
}

// short abbreviates a hex digest for one-line messages.
func short(h string) string {
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

// CountError signifies a file with an unexpected number of records.
type CountError struct {
	Got, Want int // records found, records pinned
}

// Error names both counts.
func (e *CountError) Error() string {
	return fmt.Sprintf("%d records, want %d", e.Got, e.Want)
}

// ParseError signifies a malformed line in a raw file.
type ParseError struct {
	File string // the name given to the parser
	Line int    // 1-based physical line number
	Msg  string // what was expected and what was found
}

// Error is "datasets: file:line: what was expected".
func (e *ParseError) Error() string {
	return fmt.Sprintf("datasets: %s:%d: %s", e.File, e.Line, e.Msg)
}

// RequestError signifies a request the data cannot satisfy: an unknown
// dataset name, fewer than one client, or a class (or the whole data set)
// with fewer rows than clients. The command layer maps it to exit code 2.
type RequestError struct {
	Field  string // what was asked for, e.g. "dataset" or "clients"
	Value  any    // the offending value
	Reason string // why it cannot be satisfied
}

// Error is "datasets: field = value: reason".
func (e *RequestError) Error() string {
	return fmt.Sprintf("datasets: %s = %v: %s", e.Field, e.Value, e.Reason)
}
