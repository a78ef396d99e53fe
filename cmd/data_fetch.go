package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/datasets"
)

// DataFetchOptions are the inputs of 'fedcon data fetch'.
type DataFetchOptions struct {
	IO       *IOStreams
	Names    []string // datasets; empty means all
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
		Short: "Download the raw data files over HTTPS into the cache dir and verify them",
		Long: `Download the raw files of the named datasets (all UCI ones when none is named)
from the UCI archive, and Fashion-MNIST from its original host, into --data-dir
if given, else the per-user cache dir, keeping files already present and
intact. A download whose record count or SHA-256 differs from the pinned one
(Fashion-MNIST: the SHA-256 of each decompressed file) is not installed unless
--no-verify is given. 'fedcon reproduce all' fetches what it needs by itself.`,
		Example: `  fedcon data fetch
  fedcon data fetch adult-b fashion-mnist --data-dir ~/data
  fedcon data fetch --mirror https://mirror.example.org/uci/`,
		ValidArgs: datasets.FetchNames(),
		RunE: func(c *cobra.Command, args []string) error {
			for _, a := range args {
				if !slices.Contains(datasets.FetchNames(), a) {
					return flagErrorf("dataset %s: unknown (valid: %s)", a, strings.Join(datasets.FetchNames(), ", "))
				}
			}
			o.cmd, o.Names = c, args
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
	fe := &datasets.Fetcher{Client: o.HTTPClient, BaseURL: o.Mirror, Force: o.Force, NoVerify: o.NoVerify}
	ctx := o.cmdContext()
	if !o.Quiet {
		fmt.Fprintf(o.IO.ErrOut, "fetching into %s from %s\n", o.Dir, o.Mirror)
	}
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
		t := dataTable(o.IO.Out, "file", "status", "bytes", "path")
		for _, r := range res {
			status := "already present"
			if r.Downloaded {
				status = "downloaded"
			}
			if r.Normalized {
				status += " (whitespace differs)"
			}
			if terr := t.Append(r.File.Path, status, strconv.Itoa(r.Bytes), r.Path); terr != nil {
				return terr
			}
		}
		if rerr := t.Render(); rerr != nil {
			return rerr
		}
	}
	return err
}
