package datasets

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fedcon/fedcon/internal/testutil"
)

// fashionMirror serves Debian's Fashion-MNIST files as the original host's
// folder, each passed through edit (its decompressed bytes) and gzipped
// anew, so that only the content can match the pins.
func fashionMirror(t *testing.T, edit func(name string, raw []byte) []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	debian := DebianFashionDir
	if _, err := os.Stat(filepath.Join(debian, "train-images-idx3-ubyte.gz")); err != nil {
		t.Skip("Debian's dataset-fashion-mnist is not installed")
	}
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		name := strings.TrimSuffix(filepath.Base(r.URL.Path), ".gz")
		gz, err := os.ReadFile(filepath.Join(debian, name+".gz"))
		if err != nil || !strings.HasPrefix(r.URL.Path, "/fashion/") {
			http.NotFound(w, r)
			return
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Error(err)
			return
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Error(err)
			return
		}
		if edit != nil {
			raw = edit(name, raw)
		}
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		zw.Write(raw)
		zw.Close()
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestEnsureFetchesWhatIsMissing(t *testing.T) {
	testutil.Slow(t)
	uci, uciHits := mirror(t, realDir(t), nil)
	fm, fmHits := fashionMirror(t, nil)
	client := uci.Client()
	client.Transport.(*http.Transport).TLSClientConfig.RootCAs.AddCert(fm.Certificate())
	f := &Fetcher{Client: client, BaseURL: uci.URL + "/uci", IDXBaseURL: fm.URL + "/fashion/"}
	into := t.TempDir()
	names := []string{"monks-1", "fashion-mnist"}

	// Present elsewhere: nothing to do.
	res, err := f.Ensure(context.Background(), into, []string{realDir(t), DebianFashionDir}, []string{"monks-1"})
	if err != nil || len(res.Fetched) != 0 || len(res.Failed) != 0 || uciHits.Load() != 0 {
		t.Fatalf("present data: %+v, %v, %d requests", res, err, uciHits.Load())
	}

	// Nowhere: both fetched, verified, then found and loadable.
	dirs := []string{into}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // keep the real cache out of the search path
	if miss, _ := Missing(names, dirs); len(miss) != 1 || miss[0] != "monks-1" {
		// Debian's Fashion-MNIST is on IDXSearchPath: only monks-1 is missing.
		t.Fatalf("Missing = %v, want [monks-1]", miss)
	}
	res, err = f.Ensure(context.Background(), into, dirs, names)
	if err != nil || len(res.Failed) != 0 || strings.Join(res.Fetched, ",") != "monks-1" {
		t.Fatalf("Ensure: %+v, %v", res, err)
	}
	// Fashion-MNIST itself, as on a machine without the Debian package.
	withoutDebian(t)
	got, err := f.Fetch(context.Background(), into, "fashion-mnist")
	if err != nil || len(got) != 4 || fmHits.Load() != 4 {
		t.Fatalf("fetchFashion: %v, %d results, %d requests", err, len(got), fmHits.Load())
	}
	set, err := LoadIDXSet("fashion-mnist", []string{filepath.Join(into, "fashion-mnist")}, 10)
	if err != nil || set.Train.N != 60000 || set.Test.N != 10000 {
		t.Fatalf("fetched Fashion-MNIST: %v", err)
	}
	if _, err := Load("monks-1", dirs); err != nil {
		t.Fatalf("fetched monks-1: %v", err)
	}
	// A second fetch keeps the intact copies.
	if _, err := f.Fetch(context.Background(), into, "fashion-mnist"); err != nil || fmHits.Load() != 4 {
		t.Fatalf("refetch: %v, %d requests", err, fmHits.Load())
	}
}

func TestEnsureOfflineAndTampered(t *testing.T) {
	fm, _ := fashionMirror(t, func(name string, raw []byte) []byte {
		if name == "train-labels-idx1-ubyte" {
			raw[len(raw)-1] ^= 1 // one label changed
		}
		return raw
	})
	into := t.TempDir()
	withoutDebian(t)
	f := &Fetcher{Client: fm.Client(), BaseURL: fm.URL + "/nothing-here", IDXBaseURL: fm.URL + "/fashion"}
	got, err := f.Fetch(context.Background(), into, "fashion-mnist")
	var ce *ChecksumError
	if !errors.As(err, &ce) || len(got) != 1 {
		t.Fatalf("tampered labels: %v after %d files, want a checksum error after 1", err, len(got))
	}
	if _, err := os.Stat(filepath.Join(into, "fashion-mnist", "train-labels-idx1-ubyte.gz")); err == nil {
		t.Fatal("the tampered file was installed")
	}
	// Offline for UCI (404): reported per data set, not an error.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	res, err := f.Ensure(context.Background(), into, []string{into}, []string{"heart", "abalone"})
	if err != nil || len(res.Failed) != 2 || len(res.Fetched) != 0 {
		t.Fatalf("offline: %+v, %v", res, err)
	}
	// A bad mirror is the request's fault: an error.
	f.IDXBaseURL = "http://example.org/"
	if _, err := f.Fetch(context.Background(), into, "fashion-mnist"); err == nil {
		t.Fatal("http mirror accepted")
	}
	// Canceled: stop.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.IDXBaseURL = ""
	if _, err := f.Ensure(ctx, into, []string{into}, []string{"heart"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
}

// withoutDebian points DebianFashionDir at an empty folder for the test, as
// on a machine without Debian's dataset-fashion-mnist.
func withoutDebian(t *testing.T) {
	t.Helper()
	old := DebianFashionDir
	DebianFashionDir = t.TempDir()
	t.Cleanup(func() { DebianFashionDir = old })
}
