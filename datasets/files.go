package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// File is one raw data file as published by the UCI repository, with its
// pinned integrity data.
type File struct {
	// Path is the file's location relative to a data directory, using
	// forward slashes, e.g. "adult/adult.data".
	Path string
	// URL is the file's path under the UCI archive (DefaultBaseURL).
	URL string
	// SHA256 is the hex SHA-256 of the shipped file.
	SHA256 string
	// ContentSHA256 is the hex SHA-256 of the file's normalised content
	// (see NormalizedSHA256), which a copy that differs from the shipped one
	// only in line endings or spacing still matches.
	ContentSHA256 string
	// Records is the number of data records in the file.
	Records int

	count func(data []byte, file string) (int, error)
	// idx is the idx data set (IDXSetNames) the file belongs to; empty for
	// a UCI file. An idx file is found plain or .gz (see IDXSearchPath) and
	// verified on its decompressed bytes.
	idx string
	// size is an idx file's decompressed size in bytes.
	size int64
}

// files is the registry of raw files, in Names order of first use.
var files = []File{
	{
		Path: "breast-cancer-wisconsin/breast-cancer-wisconsin.data", URL: "breast-cancer-wisconsin/breast-cancer-wisconsin.data",
		SHA256:        "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64",
		ContentSHA256: "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64",
		Records:       699,
		count:         counter(parseBreastCancer),
	},
	{
		Path: "adult/adult.data", URL: "adult/adult.data",
		SHA256:        "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
		ContentSHA256: "df25a4e32ed6f1bd4b3910d21a7bd661a09061eced7cb45555a519d9667cc87b",
		Records:       32561,
		count:         counter(parseAdult),
	},
	{
		Path: "monks/monks-1.train", URL: "monks-problems/monks-1.train",
		SHA256:        "d9c328b6f0e095ab10f7bc8468f1d2141f3d08be73e665c3bf0a62994c922606",
		ContentSHA256: "0f8c27086fc55c90756ced63d5d9ba77b5a25c6d669f058e6f40e04a8db9fb1b",
		Records:       124,
		count:         counter(parseMonks),
	},
	{
		Path: "monks/monks-1.test", URL: "monks-problems/monks-1.test",
		SHA256:        "e501ada3b21d876ab86f3e1614747bd2edc443a685f229a25e480aa1dea629f6",
		ContentSHA256: "c8098df7102681d1b06aadf0ce513bd2fc3e98b512ca2203cb27f4d0422fb772",
		Records:       432,
		count:         counter(parseMonks),
	},
	{
		Path: "adult/adult.test", URL: "adult/adult.test",
		SHA256:        "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
		ContentSHA256: "ceb625d3b5aeddf1e04cd5eec3268e18af4140fbde5a853a11223deeebcfe0f5",
		Records:       16281,
		count:         counter(parseAdult),
	},
	{
		Path: "statlog-heart/heart.dat", URL: "statlog/heart/heart.dat",
		SHA256:        "f5f3b4204c285bafadd85cb735f38b47689f2be7047feb172dcbeab648110bf9",
		ContentSHA256: "f5f3b4204c285bafadd85cb735f38b47689f2be7047feb172dcbeab648110bf9",
		Records:       270,
		count:         counter(parseHeart),
	},
	{
		Path: "abalone/abalone.data", URL: "abalone/abalone.data",
		SHA256:        "de37cdcdcaaa50c309d514f248f7c2302a5f1f88c168905eba23fe2fbc78449f",
		ContentSHA256: "de37cdcdcaaa50c309d514f248f7c2302a5f1f88c168905eba23fe2fbc78449f",
		Records:       4177,
		count:         counter(parseAbalone),
	},
}

// counter adapts a parser to count records.
func counter[T any](parse func([]byte, string) ([]T, error)) func([]byte, string) (int, error) {
	return func(data []byte, file string) (int, error) {
		recs, err := parse(data, file)
		return len(recs), err
	}
}

// fileByPath returns the registry entry for a relative path.
func fileByPath(path string) File {
	for _, f := range files {
		if f.Path == path {
			return f
		}
	}
	panic("datasets: unregistered file " + path) // internal invariant
}

// AllFiles returns the registered raw files, each once.
func AllFiles() []File { return slices.Clone(files) }

// Files returns the raw files the named dataset is built from, or a
// *RequestError for an unknown name.
func Files(name string) ([]File, error) {
	if IsIDX(name) {
		return idxFileList(name), nil
	}
	s, err := lookup(name)
	if err != nil {
		return nil, err
	}
	out := make([]File, len(s.files))
	for i, p := range s.files {
		out[i] = fileByPath(p)
	}
	return out, nil
}

// NormalizedSHA256 returns the hex SHA-256 of data after normalisation:
// CR before LF removed, runs of spaces and tabs collapsed to one space,
// lines trimmed, blank lines dropped, every line ended by LF. Copies of a
// file that differ only in line endings or spacing hash alike.
func NormalizedSHA256(data []byte) string {
	h := sha256.New()
	var buf []byte
	for len(data) > 0 {
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		buf = buf[:0]
		space := false
		for _, b := range l {
			if b == ' ' || b == '\t' || b == '\r' {
				space = len(buf) > 0
				continue
			}
			if space {
				buf = append(buf, ' ')
				space = false
			}
			buf = append(buf, b)
		}
		if len(buf) > 0 {
			h.Write(buf)
			h.Write([]byte{'\n'})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// rawSHA256 returns the hex SHA-256 of data.
func rawSHA256(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Verify checks data, the content of f, against the pinned record count and
// checksums: the record count first (parsing data), then the SHA-256 of the
// bytes, then, if that differs, the SHA-256 of the normalised content. It
// returns the number of records and whether the file matched only after
// normalisation. The error is a *ParseError, *CountError or *ChecksumError.
func (f File) Verify(data []byte) (records int, normalized bool, err error) {
	if f.idx != "" {
		records, err = f.verifyIDX(data)
		return records, false, err
	}
	records, err = f.count(data, f.Path)
	if err != nil {
		return records, false, err
	}
	normalized, err = f.verifyParsed(data, records)
	return records, normalized, err
}

// verifyParsed checks the record count of already parsed data, then its checksums.
func (f File) verifyParsed(data []byte, records int) (normalized bool, err error) {
	if records != f.Records {
		return false, &CountError{Got: records, Want: f.Records}
	}
	got := rawSHA256(data)
	if got == f.SHA256 {
		return false, nil
	}
	if NormalizedSHA256(data) == f.ContentSHA256 {
		return true, nil
	}
	return false, &ChecksumError{Got: got, Want: f.SHA256}
}

// Locate returns the path of file (relative, forward slashes) in the first
// of dirs that holds it as a regular file, or an error wrapping ErrNotFound.
func Locate(file string, dirs []string) (string, error) {
	for _, d := range dirs {
		p := filepath.Join(d, filepath.FromSlash(file))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("datasets: %s: %w", file, ErrNotFound)
}

// readFile locates f in dirs and reads it; errors are *FileError.
func readFile(f File, dirs []string, dataset string) (string, []byte, error) {
	p, err := Locate(f.Path, dirs)
	if err != nil {
		return "", nil, &FileError{File: f.Path, Dirs: dirs, Dataset: dataset, Err: ErrNotFound}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = ErrNotFound
		}
		return p, nil, &FileError{File: f.Path, Path: p, Dirs: dirs, Dataset: dataset, Err: err}
	}
	return p, data, nil
}

// FileStatus is the outcome of checking one raw file.
type FileStatus struct {
	// File is the registry entry checked.
	File File
	// Path is the file found; empty when it is in none of the directories.
	Path string
	// Records is the number of records parsed (0 when not found or unparsable).
	Records int
	// Normalized reports a file that matches its pinned content checksum
	// only after normalisation (line endings or spacing differ).
	Normalized bool
	// Err is nil for a present, intact file, else a *FileError.
	Err error
}

// Present reports whether the file was found.
func (s *FileStatus) Present() bool { return s.Path != "" }

// OK reports whether the file was found and passed every check.
func (s *FileStatus) OK() bool { return s.Path != "" && s.Err == nil }

// CheckFile locates f in dirs and verifies its record count and checksum.
// dataset names the dataset in the suggested fix of an error.
func CheckFile(f File, dirs []string, dataset string) FileStatus {
	st := FileStatus{File: f}
	read := readFile
	if f.idx != "" {
		read = readIDXFile
	}
	p, data, err := read(f, dirs, dataset)
	st.Path = p
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) && errors.Is(fe.Err, ErrNotFound) {
			st.Path = ""
		}
		st.Err = err
		return st
	}
	st.Records, st.Normalized, err = f.Verify(data)
	if err != nil {
		if f.idx != "" {
			dirs = IDXSearchPath(f.idx, dirs)
		}
		st.Err = &FileError{File: f.Path, Path: p, Dirs: dirs, Dataset: dataset, Fix: f.fix(), Err: err}
	}
	return st
}
