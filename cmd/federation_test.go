package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFederationCommands: bad input to serve, client and certs is one line
// naming what and where, exit 2; --insecure is refused off loopback and
// announced on it.
func TestFederationCommands(t *testing.T) {
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs")
	for _, c := range []struct {
		name string
		args []string
		want int
		msg  string
	}{
		{"insecure serve off loopback", []string{"serve", "--insecure", "--listen", "0.0.0.0:7070"}, 2, "loopback address only"},
		{"insecure client off loopback", []string{"client", "--insecure", "--server", "10.1.2.3:7070", "--party", "1"}, 2, "loopback address only"},
		{"party 0", []string{"client", "--insecure", "--party", "0"}, 2, "party = 0"},
		{"unknown problem", []string{"serve", "--problem", "lp", "--insecure"}, 2, `--problem "lp"`},
		{"short cell", []string{"serve", "--cell", "5,100", "--insecure"}, 2, "--cell"},
		{"bad qp cell", []string{"serve", "--cell", "5,3,3", "--insecure"}, 2, "constraints = 3"},
		{"no certificates", []string{"serve", "--certs", filepath.Join(dir, "none")}, 2, "certs = "},
		{"certs issue before init", []string{"certs", "issue", "--dir", filepath.Join(dir, "none"), "client-1"}, 2, "certs init"},
		{"certs init", []string{"certs", "init", "--dir", certs}, 0, "ca.pem"},
		{"certs init twice", []string{"certs", "init", "--dir", certs}, 1, "exists"},
		{"bad client name", []string{"certs", "issue", "--dir", certs, "client-x"}, 2, "not a client identity"},
		{"server without host", []string{"certs", "issue", "--dir", certs, "server"}, 2, "--host"},
		{"issue clients", []string{"certs", "issue", "--dir", certs, "--clients", "2"}, 0, "client-2.pem"},
		{"no server", []string{"client", "--insecure", "--server", "127.0.0.1:1", "--party", "1", "--connect-timeout", "100ms"}, 1, "no server answered within 100ms"},
		{"insecure announced", []string{"serve", "--insecure", "--listen", "127.0.0.1:0", "--join-timeout", "1ms"}, 1, "WARNING: --insecure"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, _, errOut := testFactory()
			got := run(context.Background(), f, c.args)
			if got != c.want {
				t.Fatalf("exit %d, want %d; stderr: %s", got, c.want, errOut)
			}
			if !strings.Contains(errOut.String(), c.msg) {
				t.Errorf("stderr %q lacks %q", errOut, c.msg)
			}
			if c.want == 2 && strings.Count(strings.TrimSpace(errOut.String()), "\n") > 1 {
				t.Errorf("usage error is not short: %q", errOut)
			}
		})
	}
	// Keys are private to their owner.
	st, err := os.Stat(filepath.Join(certs, "client-1-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("client key has mode %v, want 0600", st.Mode().Perm())
	}
}
