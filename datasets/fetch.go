package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultMaxBytes is the largest file Fetcher accepts when MaxBytes is zero.
const DefaultMaxBytes = 64 << 20

// DefaultFetchTimeout bounds each download when Fetcher.Client is nil.
const DefaultFetchTimeout = 2 * time.Minute

// Fetcher downloads raw files from the UCI archive, or a mirror with the
// same layout, into a data directory and verifies them. The zero value
// fetches from DefaultBaseURL and verifies.
type Fetcher struct {
	// Client performs the requests; nil means a client with
	// DefaultFetchTimeout.
	Client *http.Client
	// BaseURL is the archive root; "" means DefaultBaseURL. It must be an
	// https URL.
	BaseURL string
	// NoVerify installs downloaded files without checking their record
	// counts and checksums.
	NoVerify bool
	// Force downloads files even when an intact copy is present.
	Force bool
	// MaxBytes caps a download; 0 means DefaultMaxBytes.
	MaxBytes int64
	// IDXBaseURL is where Fashion-MNIST's .gz files are; "" means
	// FashionMNISTBaseURL. It must be an https URL.
	IDXBaseURL string
	// Search are directories searched, after the destination, for a copy
	// already present (normally SearchPath; idx files through
	// IDXSearchPath, which adds Debian's package directory). A copy there
	// that passes verification is reported where it is and not downloaded,
	// unless Force is set.
	Search []string
}

// FetchResult reports what Fetch did with one file.
type FetchResult struct {
	// File is the registry entry of the file.
	File File
	// Path is where the file is installed.
	Path string
	// URL is where it was downloaded from; empty when it was already present.
	URL string
	// Downloaded is false when an intact copy was already present.
	Downloaded bool
	// Bytes is the file's size.
	Bytes int
	// Normalized reports a file that matches its content checksum only
	// after normalising line endings and spacing.
	Normalized bool
}

// Fetch downloads the raw files of the named data sets (FetchNames, or
// "mnist" when it is present; all of FetchNames when names is empty) into
// dir, keeping its layout (dir/adult/adult.data, dir/fashion-mnist/...gz).
// A file already present in dir or on Search that passes verification
// (with NoVerify: any copy in dir) is reported where it is and kept unless
// Force is set. Unless NoVerify is set, a download is installed only if its
// record count and checksum match the pinned ones; otherwise a *FileError
// is returned and the file is not written. A file that is missing and has
// no download (MNIST) is a *FileError naming the fix. Files are written
// atomically (temporary file, then rename). Results are returned for the
// files done before any error.
func (f *Fetcher) Fetch(ctx context.Context, dir string, names ...string) ([]FetchResult, error) {
	base, err := f.base()
	if err != nil {
		return nil, err
	}
	idxBase, err := f.idxBase()
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, &RequestError{Field: "data dir", Value: `""`, Reason: "no directory to fetch into"}
	}
	if len(names) == 0 {
		names = FetchNames()
	}
	files, owners, err := distinctFiles(names)
	if err != nil {
		return nil, err
	}
	var out []FetchResult
	for i, fl := range files {
		b := base
		if fl.idx != "" {
			b = idxBase
		}
		r, err := f.fetchOne(ctx, b, dir, fl, owners[i])
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// idxBase returns the validated Fashion-MNIST host, ending in "/".
func (f *Fetcher) idxBase() (string, error) {
	b := f.IDXBaseURL
	if b == "" {
		b = FashionMNISTBaseURL
	}
	if u, err := url.Parse(b); err != nil || u.Scheme != "https" || u.Host == "" {
		return "", &RequestError{Field: "Fashion-MNIST mirror", Value: b, Reason: "must be an https URL"}
	}
	if !strings.HasSuffix(b, "/") {
		b += "/"
	}
	return b, nil
}

// present returns the first intact copy of fl: dest, then the directories
// of Search. With NoVerify a copy at dest is taken unchecked.
func (f *Fetcher) present(fl File, dest string) (path string, data []byte, normalized bool, ok bool) {
	cands := []string{dest}
	if fl.idx != "" {
		for _, d := range IDXSearchPath(fl.idx, f.Search) {
			for _, n := range []string{fl.base(), fl.base() + ".gz"} {
				cands = append(cands, filepath.Join(d, n))
			}
		}
	} else {
		for _, d := range f.Search {
			cands = append(cands, filepath.Join(d, filepath.FromSlash(fl.Path)))
		}
	}
	seen := map[string]bool{}
	for i, p := range cands {
		if seen[p] {
			continue
		}
		seen[p] = true
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if i == 0 && f.NoVerify {
			return p, data, false, true
		}
		if _, norm, err := fl.Verify(data); err == nil {
			return p, data, norm, true
		}
	}
	return "", nil, false, false
}

// base returns the validated archive root, ending in "/".
func (f *Fetcher) base() (string, error) {
	b := f.BaseURL
	if b == "" {
		b = DefaultBaseURL
	}
	u, err := url.Parse(b)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "", &RequestError{Field: "mirror", Value: b, Reason: "must be an https URL"}
	}
	if !strings.HasSuffix(b, "/") {
		b += "/"
	}
	return b, nil
}

func (f *Fetcher) fetchOne(ctx context.Context, base, dir string, fl File, dataset string) (FetchResult, error) {
	rel := fl.Path
	if fl.idx != "" {
		rel += ".gz"
	}
	dest := filepath.Join(dir, filepath.FromSlash(rel))
	res := FetchResult{File: fl, Path: dest}
	if !f.Force {
		if p, data, norm, ok := f.present(fl, dest); ok {
			res.Path, res.Bytes, res.Normalized = p, len(data), norm
			return res, nil
		}
	}
	if fl.URL == "" {
		searched := []string{dir}
		if fl.idx != "" {
			searched = IDXSearchPath(fl.idx, f.Search)
		}
		return res, &FileError{File: fl.Path + "[.gz]", Dirs: searched, Dataset: dataset, Fix: fl.fix(), Err: ErrNotFound}
	}
	res.URL = base + fl.URL
	data, err := f.download(ctx, res.URL)
	if err != nil {
		return res, err
	}
	if !f.NoVerify {
		_, norm, err := fl.Verify(data)
		if err != nil {
			return res, &FileError{File: fl.Path, Path: res.URL, URL: res.URL, Dirs: []string{dir}, Dataset: dataset, Fix: fl.fix(), Err: err}
		}
		res.Normalized = norm
	}
	if err := writeAtomic(dest, data); err != nil {
		return res, &FileError{File: fl.Path, Path: dest, Dirs: []string{dir}, Dataset: dataset, Err: err}
	}
	res.Downloaded, res.Bytes = true, len(data)
	return res, nil
}

// download GETs u and returns the body, at most MaxBytes long.
func (f *Fetcher) download(ctx context.Context, u string) ([]byte, error) {
	client := f.Client
	if client == nil {
		client = &http.Client{Timeout: DefaultFetchTimeout}
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("datasets: fetch %s: %w", u, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is already in the message
		}
		return nil, fmt.Errorf("datasets: fetch %s: %w (check the network, or use --mirror)", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("datasets: fetch %s: %s", u, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("datasets: fetch %s: %w", u, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("datasets: fetch %s: %w", u, errTooLarge)
	}
	return data, nil
}

// errTooLarge signifies a download larger than Fetcher.MaxBytes.
var errTooLarge = errors.New("response larger than the size limit")

// writeAtomic writes data to path through a temporary file and a rename.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
