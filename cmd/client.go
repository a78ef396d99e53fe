package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/experiments/fedjob"
	"github.com/fedcon/fedcon/federation"
)

func newCmdClient(f *Factory) *cobra.Command {
	o := fedjob.ClientOptions{}
	c := &cobra.Command{
		Use:   "client",
		Short: "Join a 'fedcon serve' run as one client: load this party's data only and answer its rounds",
		Long: `client dials the server, proves its identity (client-N in its certificate),
receives the run's configuration, loads ONLY party N's data (from --data, a
'fedcon data export --clients n --format json' file, or from the data set by
name, partitioned as in-process runs do) and answers the rounds. Rows never
leave the process; only Algorithm 1's vectors do. With --checkpoint a killed
client restarted with the same flags resumes the run (the server must allow
it: serve --rejoin).`,
		Example: `  fedcon client --server fed.example.org:7070 --party 3 --certs certs --checkpoint c3.ckpt
  fedcon client --server 127.0.0.1:7070 --party 1 --insecure`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if o.Insecure && !federation.IsLoopback(o.Server) {
				return flagErrorf("--insecure with --server %s: allowed on a loopback address only (127.0.0.1:PORT)", o.Server)
			}
			if o.Insecure {
				fmt.Fprintln(f.IO.ErrOut, "WARNING: --insecure: NO TLS, NO AUTHENTICATION of the server. Loopback only; never for real data.")
			}
			quiet, _ := c.Flags().GetBool("quiet")
			o.Log = func(format string, args ...any) {
				if !quiet {
					fmt.Fprintf(f.IO.ErrOut, format+"\n", args...)
				}
			}
			sum, err := fedjob.RunClient(c.Context(), dataDirs(f, c), o)
			if sum != nil && !quiet {
				fmt.Fprintf(f.IO.ErrOut, "client %d: run %s: %d rounds answered\n", o.Party, sum.RunID, sum.Rounds)
			}
			return err
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Server, "server", "127.0.0.1:7070", "server address host:port")
	fl.StringVar(&o.ServerName, "server-name", "", "name in the server certificate (default: the host dialled)")
	fl.IntVar(&o.Party, "party", 0, "this client's party index N (1..n; must match client-N in its certificate)")
	fl.StringVar(&o.Certs, "certs", "certs", "certificate directory (ca.pem, client-N.pem, client-N-key.pem)")
	fl.BoolVar(&o.Insecure, "insecure", false, "no TLS (loopback only)")
	fl.StringVar(&o.Data, "data", "", "this party's rows: a 'fedcon data export --format json' file (default: the data set by name)")
	fl.StringVar(&o.Checkpoint, "checkpoint", "", "state file written after every round, to resume after a crash")
	fl.DurationVar(&o.ConnectTimeout, "connect-timeout", 10*time.Minute, "longest wait for the server to start the run (0: none)")
	fl.Int64Var(&o.StallAt, "stall-at", 0, "fault drill: hang after checkpointing this round (or the first one sent after it), without replying")
	fl.MarkHidden("stall-at")
	return c
}
