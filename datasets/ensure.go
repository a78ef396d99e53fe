package datasets

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
)

// FashionMNISTBaseURL is Fashion-MNIST's original host: the four .gz files
// of its repository's data/fashion/ folder.
const FashionMNISTBaseURL = "https://github.com/zalandoresearch/fashion-mnist/raw/master/data/fashion/"

// fashionFiles pins Fashion-MNIST's four idx files by the SHA-256 of their
// decompressed bytes: the upstream .gz files and Debian's
// dataset-fashion-mnist recompression differ as archives but not inside.
var fashionFiles = []struct {
	name, sha256 string
	size         int64
}{
	{"train-images-idx3-ubyte", "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888", 47040016},
	{"train-labels-idx1-ubyte", "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9", 60008},
	{"t10k-images-idx3-ubyte", "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b", 7840016},
	{"t10k-labels-idx1-ubyte", "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34", 10008},
}

// FetchNames are the data sets Fetcher can download: the UCI ones, then
// Fashion-MNIST.
func FetchNames() []string { return append(Names(), "fashion-mnist") }

// Missing returns, of names (UCI data sets or "fashion-mnist"), those with a
// file in none of dirs (for Fashion-MNIST: IDXSearchPath), in order. A file
// that is present but damaged is not missing: loading it names the damage.
func Missing(names []string, dirs []string) ([]string, error) {
	var out []string
	for _, n := range names {
		present := true
		if n == "fashion-mnist" {
			for _, f := range fashionFiles {
				if _, err := locateIDX(f.name, IDXSearchPath(n, dirs)); err != nil {
					present = false
				}
			}
		} else {
			fs, err := Files(n)
			if err != nil {
				return nil, err
			}
			for _, f := range fs {
				if _, err := Locate(f.Path, dirs); err != nil {
					present = false
				}
			}
		}
		if !present {
			out = append(out, n)
		}
	}
	return out, nil
}

// gunzip decompresses data, accepting at most size bytes.
func gunzip(data []byte, size int64) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a gzip file: %w", err)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(zr, size+1)); err != nil {
		return nil, fmt.Errorf("gzip: %w (truncated download?)", err)
	}
	return buf.Bytes(), nil
}

// EnsureResult reports what Ensure did.
type EnsureResult struct {
	// Dir is where missing data sets were fetched to.
	Dir string
	// Fetched are the data sets downloaded; Failed maps those that stayed
	// missing to the reason.
	Fetched []string
	Failed  map[string]error
	// Bytes is the total size of the files downloaded.
	Bytes int
}

// Ensure fetches, into dir, every data set of names that is in none of
// dirs (see Missing). A data set whose download fails is reported in
// Failed and the others are still fetched, so that an offline machine
// runs what it can. Only an invalid request or a canceled ctx is an error.
func (f *Fetcher) Ensure(ctx context.Context, dir string, dirs []string, names []string) (*EnsureResult, error) {
	missing, err := Missing(names, dirs)
	if err != nil {
		return nil, err
	}
	res := &EnsureResult{Dir: dir, Failed: map[string]error{}}
	for _, n := range missing {
		if dir == "" {
			res.Failed[n] = errors.New("no per-user cache dir on this system: pass --data-dir")
			continue
		}
		got, err := f.Fetch(ctx, dir, n)
		for _, r := range got {
			if r.Downloaded {
				res.Bytes += r.Bytes
			}
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		var re *RequestError
		if errors.As(err, &re) {
			return res, err
		}
		if err != nil {
			res.Failed[n] = err
			continue
		}
		res.Fetched = append(res.Fetched, n)
	}
	return res, nil
}

// Require returns nil when every data set of names (UCI names or
// "fashion-mnist") has its files on dirs, else the error loading the first
// missing one gives: a *FileError naming the file, the directories searched
// and the fix. Commands call it before they create anything.
func Require(names []string, dirs []string) error {
	missing, err := Missing(names, dirs)
	if err != nil || len(missing) == 0 {
		return err
	}
	n := missing[0]
	if n == "fashion-mnist" {
		_, err = LoadIDXSet(n, IDXSearchPath(n, dirs), 10)
	} else {
		_, err = Load(n, dirs)
	}
	if err == nil { // the file appeared between the two looks
		return nil
	}
	return err
}
