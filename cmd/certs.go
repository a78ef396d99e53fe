package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedcon/fedcon/federation"
)

func newCmdCerts(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "certs",
		Short: "Write the certificates of a federation: a CA, the server's, one per client",
		Long: `Mutual TLS for 'fedcon serve' and 'fedcon client': every party holds the CA
certificate (ca.pem) and its own certificate and key. A client is admitted by
the identity in its certificate, client-N, and answers only for party N. Keys
are ECDSA P-256, written with mode 0600; keep ca-key.pem off the clients.`,
		Args: cobra.NoArgs,
		RunE: requireSubcommand,
	}
	var dir string
	var validity time.Duration
	c.PersistentFlags().StringVar(&dir, "dir", "certs", "certificate directory")
	c.PersistentFlags().DurationVar(&validity, "valid", 365*24*time.Hour, "validity of the certificates written")
	initCmd := &cobra.Command{
		Use: "init", Short: "Write a new CA (ca.pem, ca-key.pem) into --dir", Args: cobra.NoArgs,
		Example: "  fedcon certs init --dir certs",
		RunE: func(c *cobra.Command, _ []string) error {
			if validity <= 0 {
				return flagErrorf("certs init: --valid %v: want a positive duration", validity)
			}
			if err := federation.InitCA(dir, validity); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.ErrOut, "wrote %s/%s and %s/%s\n", dir, federation.CAFile, dir, federation.CAKeyFile)
			return nil
		},
	}
	var hosts []string
	var clients int
	issue := &cobra.Command{
		Use:   "issue [server | client-N ...]",
		Short: "Write certificates signed by the CA in --dir",
		Example: `  fedcon certs issue server --host 127.0.0.1,fed.example.org
  fedcon certs issue --clients 5          # client-1 ... client-5
  fedcon certs issue client-7`,
		RunE: func(c *cobra.Command, args []string) error {
			names := args
			for i := 1; i <= clients; i++ {
				names = append(names, federation.ClientName(i))
			}
			if len(names) == 0 {
				return flagErrorf("certs issue: name server, client-N, or pass --clients n")
			}
			if validity <= 0 {
				return flagErrorf("certs issue: --valid %v: want a positive duration", validity)
			}
			for _, name := range names {
				if name == "server" && len(hosts) == 0 {
					return flagErrorf("certs issue server: --host: want the server's DNS names or IP addresses")
				}
				if err := federation.Issue(dir, name, hosts, validity); err != nil {
					return &FlagError{err: err}
				}
				cert, _ := federation.CertFiles(dir, name)
				fmt.Fprintf(f.IO.ErrOut, "wrote %s and its key\n", cert)
			}
			return nil
		},
	}
	issue.Flags().StringSliceVar(&hosts, "host", nil, "server certificate: DNS names or IP addresses clients dial")
	issue.Flags().IntVar(&clients, "clients", 0, "also issue client-1 ... client-n")
	c.AddCommand(initCmd, issue)
	return c
}
