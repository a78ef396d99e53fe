package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
)

// DataFetchOptions are the inputs of 'fedcon data fetch'.
type DataFetchOptions struct {
	IO       *IOStreams
	Names    []string // datasets; empty means all
	Search   []string // search path (datasets.SearchPath): copies there are kept
	Dir      string   // destination
	Mirror   string   // --mirror, the archive root
	Force    bool     // --force
	NoVerify bool     // --no-verify
	JSON     bool     // --json
	Quiet    bool     // --quiet
	// HTTPClient performs the downloads; nil means the default client.
	HTTPClient *http.Client
	cmd        *cobra.Command
}

// NewCmdDataFetch returns 'fedcon data fetch'; runF replaces the run function in tests.
func NewCmdDataFetch(f *Factory, runF func(*DataFetchOptions) error) *cobra.Command {
	o := &DataFetchOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "fetch [NAME...]",
		Short: "Download the data files not yet present over HTTPS and verify them",
		Long: `Download the raw files of the named datasets (the UCI ones and Fashion-MNIST
when none is named) that are not present and intact anywhere on the search
path (--data-dir, $FEDCON_DATA_DIR, the per-user cache dir, and for
Fashion-MNIST Debian's dataset-fashion-mnist): the UCI files from the UCI
archive, Fashion-MNIST from its original host, into --data-dir if given, else
the cache dir. Files already present are listed with where they are; with
everything present nothing is downloaded and no network is needed. A download
whose record count or SHA-256 differs from the pinned one (Fashion-MNIST: the
SHA-256 of each decompressed file) is not installed unless --no-verify is
given. MNIST is not downloaded; 'fetch mnist' reports it when present.
'fedcon reproduce all' fetches what it needs by itself.`,
		Example: `  fedcon data fetch
  fedcon data fetch adult-b fashion-mnist --data-dir ~/data
  fedcon data fetch --mirror https://mirror.example.org/uci/`,
		ValidArgs: append(datasets.FetchNames(), "mnist"),
		RunE: func(c *cobra.Command, args []string) error {
			valid := append(datasets.FetchNames(), "mnist")
			for _, a := range args {
				if !slices.Contains(valid, a) {
					return flagErrorf("dataset %s: unknown (valid: %s)", a, strings.Join(valid, ", "))
				}
			}
			o.cmd, o.Names, o.Search = c, args, dataDirs(f, c)
			o.Dir, _ = c.Flags().GetString("data-dir")
			if o.Dir == "" {
				o.Dir = datasets.CacheDir()
			}
			if o.Dir == "" {
				return &FlagError{err: errors.New("no per-user cache dir on this system: pass --data-dir"), usage: c.CommandPath()}
			}
			o.JSON, _ = c.Flags().GetBool("json")
			o.Quiet, _ = c.Flags().GetBool("quiet")
			if runF != nil {
				return runF(o)
			}
			return dataFetchRun(o)
		},
	}
	c.Flags().StringVar(&o.Mirror, "mirror", datasets.DefaultBaseURL, "https URL of the UCI archive or a mirror with its layout")
	c.Flags().BoolVar(&o.Force, "force", false, "download even the files already present and intact")
	c.Flags().BoolVar(&o.NoVerify, "no-verify", false, "install downloads whose checksum or record count differs from the pinned one")
	return c
}

// cmdContext is the command's context (canceled on Ctrl-C), or a background one.
func (o *DataFetchOptions) cmdContext() context.Context {
	if o.cmd != nil && o.cmd.Context() != nil {
		return o.cmd.Context()
	}
	return context.Background()
}

func dataFetchRun(o *DataFetchOptions) error {
	fe := &datasets.Fetcher{Client: o.HTTPClient, BaseURL: o.Mirror, Force: o.Force, NoVerify: o.NoVerify, Search: o.Search}
	ctx := o.cmdContext()
	res, err := fe.Fetch(ctx, o.Dir, o.Names...)
	var re *datasets.RequestError
	if errors.As(err, &re) && re.Field == "mirror" {
		return &FlagError{err: fmt.Errorf("--mirror: %w", err)}
	}
	if o.JSON {
		type item struct {
			File       string `json:"file"`
			Path       string `json:"path"`
			URL        string `json:"url,omitempty"`
			Downloaded bool   `json:"downloaded"`
			Bytes      int    `json:"bytes"`
			Normalized bool   `json:"normalized,omitempty"`
		}
		var out []item
		for _, r := range res {
			out = append(out, item{r.File.Path, r.Path, r.URL, r.Downloaded, r.Bytes, r.Normalized})
		}
		if perr := printJSON(o.IO.Out, map[string]any{"dir": o.Dir, "files": out}); perr != nil {
			return perr
		}
		return err
	}
	if len(res) > 0 {
		t := dataTable(o.IO.Out, "file", "status", "size", "in")
		down := 0
		for _, r := range res {
			status := "present"
			if r.Downloaded {
				status = "downloaded"
				down++
			}
			if r.Normalized {
				status += " (whitespace differs)"
			}
			if terr := t.Append(r.File.Path, status, sizeString(r.Bytes), dirOf(r.File.Path, r.Path)); terr != nil {
				return terr
			}
		}
		if rerr := t.Render(); rerr != nil {
			return rerr
		}
		if !o.Quiet && err == nil {
			if down == 0 {
				fmt.Fprintf(o.IO.ErrOut, "all %d files present and intact: nothing to download\n", len(res))
			} else {
				fmt.Fprintf(o.IO.ErrOut, "downloaded %d of %d files into %s from %s\n", down, len(res), o.Dir, o.Mirror)
			}
		}
	}
	return err
}

// dirOf is the directory holding a file found at path: the data directory
// (path without the file's relative path rel) for a UCI file, the file's
// own directory for an idx file (found as <dir>/<name>/ or <dir>/, plain
// or .gz).
func dirOf(rel, path string) string {
	if p := filepath.ToSlash(path); !datasets.IsIDX(pathpkg.Dir(rel)) && strings.HasSuffix(p, "/"+rel) {
		return filepath.FromSlash(strings.TrimSuffix(p, "/"+rel))
	}
	return filepath.Dir(path)
}

// sizeString is a file size for a table cell: "512 B", "12 KB", "4.0 MB".
func sizeString(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%d KB", (n+500)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
