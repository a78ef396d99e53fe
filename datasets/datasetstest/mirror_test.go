package datasetstest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fedcon/fedcon/datasets"
	"github.com/fedcon/fedcon/datasets/datasetstest"
)

// A Fetcher pointed at the mirror installs root's files unchanged, or as
// edited; a path the archive does not have is a 404.
func TestUCIMirror(t *testing.T) {
	root := filepath.Join("..", "testdata")
	upper := func(_ string, b []byte) []byte { return bytes.ToUpper(b) }
	tests := []struct {
		name string
		edit func(string, []byte) []byte
		want func([]byte) []byte
	}{
		{"as is", nil, func(b []byte) []byte { return b }},
		{"edited", upper, bytes.ToUpper},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := datasetstest.UCIMirror(t, root, tt.edit)
			dir := t.TempDir()
			f := &datasets.Fetcher{Client: srv.Client(), BaseURL: srv.URL + "/uci", NoVerify: true}
			res, err := f.Fetch(context.Background(), dir, "monks-1")
			if err != nil || len(res) != 2 || hits.Load() != 2 {
				t.Fatalf("%d results, %d requests, %v", len(res), hits.Load(), err)
			}
			for _, r := range res {
				want, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(r.File.Path)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(r.Path)
				if err != nil || !bytes.Equal(got, tt.want(want)) {
					t.Errorf("%s: %v\n%s", r.File.Path, err, got)
				}
			}
			resp, err := srv.Client().Get(srv.URL + "/uci/nothing")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 404 {
				t.Errorf("unknown path: %s, want 404", resp.Status)
			}
		})
	}
}
