package cmd

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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
		{"issue expired", []string{"certs", "issue", "--dir", certs, "--valid", "-1h", "client-3"}, 2, "--valid -1h0m0s: want a positive duration"},
		{"init zero validity", []string{"certs", "init", "--dir", filepath.Join(dir, "ca2"), "--valid", "0s"}, 2, "want a positive duration"},
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

// TestFederationRoleExitCodes: a process exits 0 only when the run it took
// part in succeeded. A client lost or a server interrupted makes the
// server and every surviving client exit non-zero; an idle TCP connection
// held open does not delay the server's result.
func TestFederationRoleExitCodes(t *testing.T) {
	type result struct {
		code        int
		out, errOut string
	}
	start := func(ctx context.Context, args ...string) <-chan result {
		ch := make(chan result, 1)
		go func() {
			f, out, errOut := testFactory()
			code := run(ctx, f, args)
			ch <- result{code, out.String(), errOut.String()}
		}()
		return ch
	}
	for _, tc := range []struct {
		name string
		// stall, if positive, is the round at which client 2 hangs
		// (after checkpointing it); interrupt cancels serve there.
		stall     int
		interrupt bool
		serve     int // serve's exit code
		client1   int
		msg       string // in client 1's stderr
		audit     string // in serve's stdout: the final audit, or that it did not run
	}{
		{"success with an idle connection", 0, false, 0, 0, "rounds answered", "objective "},
		{"client lost", 3, false, 1, 1, "client 2, round 3: client lost", "not computed"},
		{"server interrupted", 3, true, 130, 1, "the server was interrupted", "not computed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
			defer cancel()
			dir := t.TempDir()
			addr, out, ckpt := freeAddr(t), filepath.Join(dir, "run.json"), filepath.Join(dir, "c2.ckpt")
			sctx, stopServe := context.WithCancel(ctx)
			defer stopServe()
			timeout := "1s"
			if tc.interrupt {
				timeout = "0"
			}
			srv := start(sctx, "serve", "--insecure", "--listen", addr, "--problem", "qp", "--cell", "2,10,1",
				"--round-timeout", timeout, "-o", out)
			idle, err := dialUntil(ctx, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer idle.Close()
			c1 := start(ctx, "client", "--insecure", "--server", addr, "--party", "1")
			c2args := []string{"client", "--insecure", "--server", addr, "--party", "2", "--quiet"}
			if tc.stall > 0 {
				c2args = append(c2args, "--checkpoint", ckpt, "--stall-at", strconv.Itoa(tc.stall))
			}
			c2ctx, stopC2 := context.WithCancel(ctx)
			defer stopC2()
			c2 := start(c2ctx, c2args...)
			if tc.interrupt {
				for { // client 2 hangs at round 3 and the server waits for it
					if _, err := os.Stat(ckpt); err == nil {
						break
					}
					if ctx.Err() != nil {
						t.Fatal("client 2 never checkpointed")
					}
					time.Sleep(20 * time.Millisecond)
				}
				stopServe()
			}
			var s, r1 result
			select {
			case s = <-srv:
			case <-ctx.Done():
				t.Fatal("serve did not return (an idle connection held it?)")
			}
			select {
			case r1 = <-c1:
			case <-ctx.Done():
				t.Fatal("client 1 did not return")
			}
			stopC2()
			<-c2
			if s.code != tc.serve {
				t.Errorf("serve: exit %d, want %d\n%s", s.code, tc.serve, s.errOut)
			}
			if r1.code != tc.client1 || !strings.Contains(r1.errOut, tc.msg) {
				t.Errorf("client 1: exit %d, want %d with %q\n%s", r1.code, tc.client1, tc.msg, r1.errOut)
			}
			if !strings.Contains(s.out, tc.audit) {
				t.Errorf("serve's summary lacks %q:\n%s", tc.audit, s.out)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("no result file: %v", err)
			}
			var res struct {
				Objective *float64        `json:"objective"`
				Residuals *map[string]any `json:"kkt_residuals"`
			}
			if err := json.Unmarshal(b, &res); err != nil {
				t.Fatal(err)
			}
			if audited := tc.serve == 0; (res.Objective != nil) != audited || (res.Residuals != nil) != audited {
				t.Errorf("result file: objective %v, residuals %v; want them recorded only after the audit (%v)", res.Objective, res.Residuals, audited)
			}
		})
	}
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// dialUntil opens a raw TCP connection to addr once something listens.
func dialUntil(ctx context.Context, addr string) (net.Conn, error) {
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil || ctx.Err() != nil {
			return c, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClientRefusedAtOnce: a TLS client of a plaintext server is refused
// at once with the reason and exit 2, not after --connect-timeout.
func TestClientRefusedAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard; the timeout below is 10 min
	defer cancel()
	certs := filepath.Join(t.TempDir(), "certs")
	for _, args := range [][]string{{"init"}, {"issue", "--clients", "1"}} {
		f, _, errOut := testFactory()
		if code := run(ctx, f, append(append([]string{"certs"}, args...), "--dir", certs)); code != 0 {
			t.Fatalf("certs %v: exit %d: %s", args, code, errOut)
		}
	}
	addr := freeAddr(t)
	sctx, stop := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		f, _, _ := testFactory()
		done <- run(sctx, f, []string{"serve", "--insecure", "--listen", addr, "--cell", "1,5,1"})
	}()
	defer func() { stop(); <-done }()
	if c, err := dialUntil(ctx, addr); err != nil {
		t.Fatal(err)
	} else {
		c.Close()
	}
	f, _, errOut := testFactory()
	code := run(ctx, f, []string{"client", "--server", addr, "--party", "1", "--certs", certs, "--connect-timeout", "10m"})
	if code != 2 || !strings.Contains(errOut.String(), "plaintext") {
		t.Errorf("exit %d, want 2 naming plaintext; stderr: %s", code, errOut)
	}
}

// TestServeNPObjective: a served NP run reports its objective with the
// KKT residuals.
func TestServeNPObjective(t *testing.T) {
	data := os.Getenv("FEDCON_DATA_DIR")
	if _, err := os.Stat(filepath.Join(data, "monks")); data == "" || err != nil {
		t.Skip("monks-1 not found: set FEDCON_DATA_DIR")
	}
	f, out, errOut := testFactory()
	f.Getenv = func(k string) string {
		if k == "FEDCON_DATA_DIR" {
			return data
		}
		return ""
	}
	if code := run(context.Background(), f, []string{"serve", "--in-process", "--problem", "np", "--dataset", "monks-1", "--clients", "3", "--max-outer", "2"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "objective ") || !strings.Contains(out.String(), "KKT residuals: stationarity") {
		t.Errorf("no objective in:\n%s", out)
	}
}
