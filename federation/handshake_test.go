package federation

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// pki is a CA directory whose certificates the test issues at will.
type pki struct{ dir string }

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	if err := InitCA(dir, time.Hour); err != nil {
		t.Fatal(err)
	}
	return pki{dir}
}

// cert issues name (valid from nb to na) in a fresh directory holding the
// CA, and returns the certificate and key files.
func (p pki) cert(t *testing.T, name string, hosts []string, nb, na time.Time) (string, string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{CAFile, CAKeyFile} {
		b, err := os.ReadFile(filepath.Join(p.dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := issue(dir, name, hosts, nb, na); err != nil {
		t.Fatal(err)
	}
	return CertFiles(dir, name)
}

func (p pki) pool(t *testing.T) *x509.CertPool {
	t.Helper()
	pool, err := caPool(filepath.Join(p.dir, CAFile))
	if err != nil {
		t.Fatal(err)
	}
	return pool
}

func pair(t *testing.T, cert, key string) tls.Certificate {
	t.Helper()
	c, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// logBuf collects a server's log lines.
type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

// await returns the log once it holds want, or what it holds at the hang
// guard's deadline.
func (l *logBuf) await(want string) string {
	deadline := time.Now().Add(20 * time.Second)
	for {
		l.mu.Lock()
		s := l.b.String()
		l.mu.Unlock()
		if strings.Contains(s, want) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHandshakeRefusals: every kind of certificate or transport mismatch
// is refused at once, named on the client (the probe before joining, and
// the local check of its own certificate) and in the server's log with the
// client's address.
func TestHandshakeRefusals(t *testing.T) {
	good, other := newPKI(t), newPKI(t)
	now := time.Now()
	valid := func(p pki, name string, hosts ...string) tls.Certificate {
		c, k := p.cert(t, name, hosts, now.Add(-time.Hour), now.Add(time.Hour))
		return pair(t, c, k)
	}
	at := func(p pki, name string, nb, na time.Time, hosts ...string) tls.Certificate {
		c, k := p.cert(t, name, hosts, nb, na)
		return pair(t, c, k)
	}
	expired := func(p pki, name string, hosts ...string) tls.Certificate {
		return at(p, name, now.Add(-2*time.Hour), now.Add(-time.Hour), hosts...)
	}
	future := func(p pki, name string, hosts ...string) tls.Certificate {
		return at(p, name, now.Add(time.Hour), now.Add(2*time.Hour), hosts...)
	}
	server := valid(good, "server", "127.0.0.1")
	client := valid(good, "client-1")
	for _, tc := range []struct {
		name   string
		server *tls.Certificate // nil: a plaintext server
		client *tls.Certificate // nil: a plaintext client
		// want is the kind the client's probe reports; log, what the
		// server logs; own, the kind of the local check of the client's
		// certificate ("" when it passes).
		want, log, own string
		serverName     string // the name the client checks (empty: the host dialled)
	}{
		{"client of another CA", &server, ptr(valid(other, "client-1")), KindUnknownAuthority, KindUnknownAuthority, KindUnknownAuthority, ""},
		{"client expired", &server, ptr(expired(good, "client-1")), KindExpired, KindExpired, KindExpired, ""},
		{"client not yet valid", &server, ptr(future(good, "client-1")), KindExpired, KindNotYetValid, KindNotYetValid, ""},
		{"client with the server's certificate", &server, &server, KindRefused, KindWrongRole, KindWrongRole, ""},
		{"plaintext client, TLS server", &server, nil, KindPlaintext, KindPlaintext, "", ""},
		{"server of another CA", ptr(valid(other, "server", "127.0.0.1")), &client, KindUnknownAuthority, KindRefused, "", ""},
		{"server expired", ptr(expired(good, "server", "127.0.0.1")), &client, KindExpired, KindRefused, "", ""},
		{"server not yet valid", ptr(future(good, "server", "127.0.0.1")), &client, KindNotYetValid, KindRefused, "", ""},
		{"server for another host", ptr(valid(good, "server", "localhost")), &client, KindWrongHost, KindRefused, "", ""},
		{"server with a client's certificate", ptr(valid(good, "client-2")), &client, KindWrongRole, KindRefused, "", "client-2"},
		{"TLS client, plaintext server", nil, &client, KindPlaintext, KindPlaintext, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var creds credentials.TransportCredentials = insecure.NewCredentials()
			if tc.server != nil {
				creds = credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{*tc.server}, ClientCAs: good.pool(t),
					ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS13})
			}
			var log logBuf
			srv, err := NewServer(ServerConfig{RunID: "r", DRFL: &DRFLConfig{C: 1, Tol: 1, Clients: 1}, Log: log.logf})
			if err != nil {
				t.Fatal(err)
			}
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			g := NewGRPCServer(srv, creds)
			go g.Serve(lis)
			defer g.Stop()

			var cfg *tls.Config
			if tc.client != nil {
				cfg = &tls.Config{Certificates: []tls.Certificate{*tc.client}, RootCAs: good.pool(t), ServerName: tc.serverName, MinVersion: tls.VersionTLS13}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // hang guard
			defer cancel()
			err = Probe(ctx, lis.Addr().String(), cfg)
			var he *HandshakeError
			if !errors.As(err, &he) || he.Kind != tc.want {
				t.Fatalf("probe: %v, want a refusal of kind %q", err, tc.want)
			}
			want := "refused connection from 127.0.0.1:"
			if got := log.await(tc.log); !strings.Contains(got, want) || !strings.Contains(got, tc.log) {
				t.Errorf("server log %q lacks %q and %q", got, want, tc.log)
			}
			if tc.client == nil {
				return
			}
			// The same certificate checked by the client before it dials.
			err = checkOwn("client.pem", *tc.client, good.pool(t), x509.ExtKeyUsageClientAuth)
			var ce *CertError
			switch {
			case tc.own == "" && err != nil:
				t.Errorf("own certificate refused: %v", err)
			case tc.own != "" && (!errors.As(err, &ce) || ce.Kind != tc.own):
				t.Errorf("own certificate: %v, want kind %q", err, tc.own)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestServerOwnCertificate: serve refuses to start on a certificate its
// clients would refuse, naming why.
func TestServerOwnCertificate(t *testing.T) {
	good, other := newPKI(t), newPKI(t)
	now := time.Now()
	for _, tc := range []struct {
		name   string
		p      pki
		cert   string
		nb, na time.Time
		want   string
	}{
		{"valid", good, "server", now.Add(-time.Hour), now.Add(time.Hour), ""},
		{"another CA", other, "server", now.Add(-time.Hour), now.Add(time.Hour), KindUnknownAuthority},
		{"expired", good, "server", now.Add(-2 * time.Hour), now.Add(-time.Hour), KindExpired},
		{"not yet valid", good, "server", now.Add(time.Hour), now.Add(2 * time.Hour), KindNotYetValid},
		{"a client's certificate", good, "client-1", now.Add(-time.Hour), now.Add(time.Hour), KindWrongRole},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cert, key := tc.p.cert(t, tc.cert, []string{"127.0.0.1"}, tc.nb, tc.na)
			_, err := ServerTLS(filepath.Join(good.dir, CAFile), cert, key)
			var ce *CertError
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (!errors.As(err, &ce) || ce.Kind != tc.want):
				t.Errorf("%v, want kind %q", err, tc.want)
			}
		})
	}
}

// TestValidityMustBePositive: a certificate that would be born expired is
// not written.
func TestValidityMustBePositive(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []time.Duration{0, -time.Hour} {
		if err := InitCA(dir, v); !errors.Is(err, ErrValidity) {
			t.Errorf("InitCA(%v): %v, want ErrValidity", v, err)
		}
	}
	if err := InitCA(dir, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := Issue(dir, "client-1", nil, -time.Hour); !errors.Is(err, ErrValidity) {
		t.Errorf("Issue(-1h): %v, want ErrValidity", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "client-1.pem")); !os.IsNotExist(err) {
		t.Errorf("a certificate was written: %v", err)
	}
}
