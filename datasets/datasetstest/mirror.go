package datasetstest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/fedcon/fedcon/datasets"
)

// UCIMirror serves the raw files of root (a data directory in fedcon's
// layout, e.g. adult/adult.data) over HTTPS under /uci/ in the UCI
// archive's layout, so that a datasets.Fetcher with BaseURL srv.URL+"/uci"
// and Client srv.Client() downloads them. Each file is passed through edit
// (nil keeps it) with its URL path; a file root lacks is a 404. It counts
// the requests and closes the server when the test ends.
func UCIMirror(t testing.TB, root string, edit func(urlPath string, data []byte) []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	byURL := map[string]string{}
	for _, f := range datasets.AllFiles() {
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
