package datasets

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// mirror serves files under the UCI archive layout from root (a data
// directory in fedcon's layout) over HTTPS, passing each through edit. It
// counts the requests.
func mirror(t *testing.T, root string, edit func(urlPath string, data []byte) []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	byURL := map[string]string{}
	for _, f := range AllFiles() {
		byURL["/uci/"+f.URL] = f.Path
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		rel, ok := byURL[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if edit != nil {
			data = edit(r.URL.Path, data)
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestFetchReal(t *testing.T) {
	srv, hits := mirror(t, realDir(t), nil)
	dir := t.TempDir()
	f := &Fetcher{Client: srv.Client(), BaseURL: srv.URL + "/uci"}
	res, err := f.Fetch(context.Background(), dir, "monks-1", "adult-b", "adult-a")
	if err != nil {
		t.Fatal(err)
	}
	// monks-1.train, monks-1.test, adult.data, adult.test: adult.data once.
	if len(res) != 4 || hits.Load() != 4 {
		t.Fatalf("%d results, %d requests; want 4, 4", len(res), hits.Load())
	}
	for _, r := range res {
		if !r.Downloaded || !strings.HasPrefix(r.URL, "https://") || r.Bytes == 0 {
			t.Errorf("%+v", r)
		}
	}
	if _, err := Load("adult-b", []string{dir}); err != nil {
		t.Fatalf("load after fetch: %v", err)
	}
	// A second fetch finds intact copies and downloads nothing.
	res, err = f.Fetch(context.Background(), dir, "monks-1")
	if err != nil || len(res) != 2 || res[0].Downloaded || hits.Load() != 4 {
		t.Fatalf("refetch: %v, %+v, %d requests", err, res, hits.Load())
	}
	// Force downloads again.
	f.Force = true
	if _, err := f.Fetch(context.Background(), dir, "monks-1"); err != nil || hits.Load() != 6 {
		t.Fatalf("forced: %v, %d requests", err, hits.Load())
	}
}

func TestFetchWhitespaceCopy(t *testing.T) {
	// A mirror serving heart.dat with CRLF endings: accepted via the
	// content checksum and reported as normalised.
	srv, _ := mirror(t, realDir(t), func(_ string, b []byte) []byte {
		return []byte(strings.ReplaceAll(string(b), "\n", "\r\n"))
	})
	f := &Fetcher{Client: srv.Client(), BaseURL: srv.URL + "/uci/"}
	res, err := f.Fetch(context.Background(), t.TempDir(), "heart")
	if err != nil || len(res) != 1 || !res[0].Normalized {
		t.Fatalf("%v, %+v", err, res)
	}
}

func TestFetchMismatch(t *testing.T) {
	// The testdata samples are not the pinned files: verification fails,
	// nothing is written; with NoVerify they are installed.
	srv, _ := mirror(t, "testdata", nil)
	dir := t.TempDir()
	f := &Fetcher{Client: srv.Client(), BaseURL: srv.URL + "/uci"}
	_, err := f.Fetch(context.Background(), dir, "heart")
	var fe *FileError
	if !errors.As(err, &fe) || fe.URL == "" || !errors.As(err, new(*CountError)) {
		t.Fatalf("got %v, want a *FileError for the download", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "--no-verify") || !strings.Contains(msg, srv.URL) {
		t.Errorf("message %q", msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "statlog-heart", "heart.dat")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file failing verification was written: %v", err)
	}
	f.NoVerify = true
	res, err := f.Fetch(context.Background(), dir, "heart")
	if err != nil || len(res) != 1 || !res[0].Downloaded {
		t.Fatalf("no-verify: %v %+v", err, res)
	}
	if d, err := Load("heart", []string{dir}, NoVerify()); err != nil || d.Rows() != 3 {
		t.Fatalf("load: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "statlog-heart")); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestFetchErrors(t *testing.T) {
	srv, _ := mirror(t, "testdata", nil)
	ctx := context.Background()
	tests := []struct {
		name    string
		f       *Fetcher
		dir     string
		names   []string
		request bool   // want a *RequestError
		has     string // substring of the error
	}{
		{"http mirror", &Fetcher{BaseURL: "http://example.org/"}, t.TempDir(), nil, true, "https"},
		{"bad mirror", &Fetcher{BaseURL: "::"}, t.TempDir(), nil, true, "mirror"},
		{"unknown dataset", &Fetcher{Client: srv.Client(), BaseURL: srv.URL}, t.TempDir(), []string{"nope"}, true, "unknown"},
		{"no dir", &Fetcher{Client: srv.Client(), BaseURL: srv.URL}, "", nil, true, "directory"},
		{"404", &Fetcher{Client: srv.Client(), BaseURL: srv.URL + "/elsewhere"}, t.TempDir(), []string{"heart"}, false, "404"},
		{"too large", &Fetcher{Client: srv.Client(), BaseURL: srv.URL + "/uci", MaxBytes: 10, NoVerify: true}, t.TempDir(), []string{"heart"}, false, "size limit"},
		{"untrusted certificate", &Fetcher{BaseURL: srv.URL + "/uci"}, t.TempDir(), []string{"heart"}, false, "certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.f.Fetch(ctx, tt.dir, tt.names...)
			if err == nil || !strings.Contains(err.Error(), tt.has) {
				t.Fatalf("got %v, want an error mentioning %q", err, tt.has)
			}
			if got := errors.As(err, new(*RequestError)); got != tt.request {
				t.Errorf("RequestError = %v, want %v (%v)", got, tt.request, err)
			}
		})
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	f := &Fetcher{Client: srv.Client(), BaseURL: srv.URL + "/uci"}
	if _, err := f.Fetch(cctx, t.TempDir(), "heart"); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

// Fetching only Fashion-MNIST asks the UCI mirror for nothing.
func TestFetchFashionOnly(t *testing.T) {
	withoutDebian(t)
	srv, hits := mirror(t, "testdata", nil)
	f := &Fetcher{Client: srv.Client(), BaseURL: srv.URL + "/uci", IDXBaseURL: srv.URL + "/fashion/"}
	res, err := f.Fetch(context.Background(), t.TempDir(), "fashion-mnist")
	// The mirror has no Fashion-MNIST: the first of its files fails, alone.
	if err == nil || !strings.Contains(err.Error(), "404") || len(res) != 0 || hits.Load() != 1 {
		t.Errorf("got %d results, %d requests, %v; want none, 1, a 404", len(res), hits.Load(), err)
	}
}

// writeMNISTLayout writes a synthetic idx data set in the MNIST layout (all
// pixels and labels zero, gzipped) into dir.
func writeMNISTLayout(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, name := range idxFiles {
		raw := make([]byte, idxSizes[i])
		nd, n := 3, idxRecords[i]
		if i%2 == 1 {
			nd = 1
		}
		copy(raw, []byte{0, 0, idxUbyte, byte(nd)})
		binary.BigEndian.PutUint32(raw[4:], uint32(n))
		if nd == 3 {
			binary.BigEndian.PutUint32(raw[8:], 28)
			binary.BigEndian.PutUint32(raw[12:], 28)
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		zw.Write(raw)
		zw.Close()
		if err := os.WriteFile(filepath.Join(dir, name+".gz"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Fetch reports what is present and intact anywhere on Search and asks the
// network only for the rest.
func TestFetchSearchPath(t *testing.T) {
	real := realDir(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the real cache is not on IDXSearchPath
	damaged := t.TempDir()
	heart, err := os.ReadFile(filepath.Join(real, "statlog-heart", "heart.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(damaged, "statlog-heart"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(damaged, "statlog-heart", "heart.dat"), heart[:len(heart)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	withMNIST := t.TempDir()
	writeMNISTLayout(t, filepath.Join(withMNIST, "mnist"))

	tests := []struct {
		name       string
		search     []string
		names      []string
		debian     bool // needs Debian's dataset-fashion-mnist
		wantIn     string
		downloaded int // files downloaded (= requests)
		errHas     string
	}{
		{name: "UCI all present", search: []string{real}, names: Names(), wantIn: real},
		{name: "second directory", search: []string{t.TempDir(), real}, names: []string{"adult-b"}, wantIn: real},
		{name: "damaged copy is downloaded", search: []string{damaged}, names: []string{"heart"}, downloaded: 1},
		{name: "damaged first, intact second", search: []string{damaged, real}, names: []string{"heart"}, wantIn: real},
		{name: "Fashion-MNIST from Debian", search: []string{real}, names: []string{"fashion-mnist"}, debian: true, wantIn: DebianFashionDir},
		{name: "MNIST present", search: []string{withMNIST}, names: []string{"mnist"}, wantIn: filepath.Join(withMNIST, "mnist")},
		{name: "MNIST missing", search: []string{real}, names: []string{"mnist"}, errHas: "put MNIST's four idx files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.debian {
				if _, err := os.Stat(filepath.Join(DebianFashionDir, "train-images-idx3-ubyte.gz")); err != nil {
					t.Skip("Debian's dataset-fashion-mnist is not installed")
				}
			}
			srv, hits := mirror(t, real, nil)
			dir := t.TempDir()
			f := &Fetcher{Client: srv.Client(), BaseURL: srv.URL + "/uci", IDXBaseURL: srv.URL + "/none/", Search: tt.search}
			res, err := f.Fetch(context.Background(), dir, tt.names...)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) || hits.Load() != 0 {
					t.Fatalf("got %v after %d requests, want an error with %q and none", err, hits.Load(), tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			files, _, _ := distinctFiles(tt.names)
			if len(res) != len(files) {
				t.Fatalf("%d results, want %d", len(res), len(files))
			}
			down := 0
			for _, r := range res {
				switch {
				case r.Downloaded:
					down++
					if !strings.HasPrefix(r.Path, dir) {
						t.Errorf("%s downloaded to %s, want under %s", r.File.Path, r.Path, dir)
					}
				case !strings.HasPrefix(r.Path, tt.wantIn) || r.Bytes == 0:
					t.Errorf("%s reported at %s (%d bytes), want under %s", r.File.Path, r.Path, r.Bytes, tt.wantIn)
				}
			}
			if down != tt.downloaded || int(hits.Load()) != tt.downloaded {
				t.Errorf("%d downloaded, %d requests; want %d", down, hits.Load(), tt.downloaded)
			}
		})
	}
}
