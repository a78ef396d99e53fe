package federation

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/credentials"
)

// HandshakeTimeout bounds a connection's TLS handshake and HTTP/2 preface
// on the server (gRPC's default is 120 s): an idle or half-open connection
// must not hold the end of a run.
const HandshakeTimeout = 5 * time.Second

// HandshakeError signifies that a connection was refused for its
// certificates or its transport: a configuration error that waiting does
// not cure. Kind is one of the Kind* constants.
type HandshakeError struct {
	Addr string // the peer
	Kind string
	Err  error
}

// Kinds of HandshakeError.
const (
	KindUnknownAuthority = "unknown authority"
	KindExpired          = "expired"
	KindNotYetValid      = "not yet valid"
	KindWrongHost        = "wrong host"
	KindWrongRole        = "wrong role"
	KindPlaintext        = "plaintext"
	KindRefused          = "refused by the peer"
	KindTLS              = "TLS"
)

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("federation: %s: %s: %v", e.Addr, e.Kind, e.Err)
}
func (e *HandshakeError) Unwrap() error { return e.Err }

// handshakeKind names why err (of a TLS handshake) refused a certificate,
// and a hint for the operator.
func handshakeKind(err error) (kind, hint string) {
	var ua x509.UnknownAuthorityError
	var ci x509.CertificateInvalidError
	var he x509.HostnameError
	var rh tls.RecordHeaderError
	switch {
	case errors.As(err, &ua):
		return KindUnknownAuthority, "the certificate is not signed by the CA in ca.pem"
	case errors.As(err, &ci) && ci.Reason == x509.Expired:
		if strings.Contains(ci.Detail, "before") {
			return KindNotYetValid, "the certificate's validity has not begun (check the clocks)"
		}
		return KindExpired, "the certificate has expired: issue a new one"
	case errors.As(err, &ci) && ci.Reason == x509.IncompatibleUsage:
		return KindWrongRole, "a client needs a client-N certificate, the server a server certificate"
	case errors.As(err, &he):
		return KindWrongHost, "the server certificate does not name the host dialled (certs issue server --host, or --server-name)"
	case errors.As(err, &rh):
		return KindPlaintext, "the peer does not speak TLS (one side runs --insecure)"
	}
	s := err.Error()
	switch {
	case strings.Contains(s, "remote error: tls: unknown certificate authority"):
		return KindUnknownAuthority, "the peer does not trust the CA of this certificate"
	case strings.Contains(s, "remote error: tls: expired certificate"):
		return KindExpired, "the peer finds this certificate expired or not yet valid"
	case strings.Contains(s, "remote error: tls: unsupported certificate"):
		return KindWrongRole, "the peer refuses this certificate's usage (a client needs client-N, the server a server certificate)"
	case strings.Contains(s, "remote error: tls: bad certificate"), strings.Contains(s, "remote error: tls: certificate required"):
		return KindRefused, "the peer refused this certificate (see its log)"
	case strings.Contains(s, "remote error"):
		return KindTLS, "the peer refused the handshake"
	}
	return "", ""
}

// asHandshakeError is err as a HandshakeError when it is a refusal, else nil.
func asHandshakeError(addr string, err error) *HandshakeError {
	kind, hint := handshakeKind(err)
	if kind == "" {
		return nil
	}
	return &HandshakeError{Addr: addr, Kind: kind, Err: fmt.Errorf("%w (%s)", err, hint)}
}

// Probe connects once to a server at addr as the client will (TLS with
// cfg, or plaintext when cfg is nil) and reports a refusal at once: a
// HandshakeError for certificates or transport, another error when no
// server answers (the caller retries those).
func Probe(ctx context.Context, addr string, cfg *tls.Config) error {
	d := net.Dialer{Timeout: HandshakeTimeout}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("federation: %w", err)
	}
	defer raw.Close()
	raw.SetDeadline(time.Now().Add(2 * HandshakeTimeout))
	if cfg == nil {
		// A TLS server closes a connection whose first bytes are not a
		// handshake; a gRPC server answers the preface with SETTINGS.
		if _, err := io.WriteString(raw, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00"); err != nil {
			return fmt.Errorf("federation: %w", err)
		}
		if _, err := raw.Read(make([]byte, 1)); errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err) {
			return &HandshakeError{Addr: addr, Kind: KindPlaintext,
				Err: errors.New("the server closed a plaintext connection at once: it expects TLS (drop --insecure, use --certs)")}
		}
		return nil
	}
	c := cfg.Clone()
	if c.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return fmt.Errorf("federation: %w", err)
		}
		c.ServerName = host
	}
	c.NextProtos = []string{"h2"}
	conn := tls.Client(raw, c)
	if err := conn.HandshakeContext(ctx); err != nil {
		if he := asHandshakeError(addr, err); he != nil {
			return he
		}
		return fmt.Errorf("federation: TLS handshake with %s: %w", addr, err)
	}
	// In TLS 1.3 the server checks the client's certificate after the
	// client's handshake is done: its verdict is the first read.
	if _, err := conn.Read(make([]byte, 1)); err != nil {
		if he := asHandshakeError(addr, err); he != nil {
			return he
		}
		if errors.Is(err, io.EOF) || isReset(err) {
			return &HandshakeError{Addr: addr, Kind: KindRefused, Err: errors.New("the server closed the connection after the handshake (see its log)")}
		}
	}
	return nil
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// serverCreds wrap a server's transport credentials: a refused handshake
// is logged with the peer's address, a plaintext server refuses a TLS
// client by name, and the connections still in their handshake can be
// closed when the run ends.
type serverCreds struct {
	credentials.TransportCredentials
	plaintext bool
	log       func(format string, args ...any)

	mu     sync.Mutex
	open   map[net.Conn]struct{}
	closed bool
}

func (c *serverCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		raw.Close()
		return nil, nil, errors.New("federation: server stopping")
	}
	c.open[raw] = struct{}{}
	c.mu.Unlock()
	defer func(conn net.Conn) {
		c.mu.Lock()
		delete(c.open, conn)
		c.mu.Unlock()
	}(raw)
	if c.plaintext {
		br := bufio.NewReader(raw)
		b, err := br.Peek(1)
		if err == nil && b[0] == 0x16 { // a TLS handshake record
			err = &HandshakeError{Addr: raw.RemoteAddr().String(), Kind: KindPlaintext,
				Err: errors.New("a TLS client on this plaintext (--insecure) server")}
			c.log("refused connection from %s: %s: a TLS client on this plaintext (--insecure) server", raw.RemoteAddr(), KindPlaintext)
			// Not a TLS record: the client's handshake fails at once
			// with "does not look like a TLS handshake".
			io.WriteString(raw, "fedcon: this server runs without TLS (--insecure)\n")
			return nil, nil, err
		}
		raw = &peekedConn{Conn: raw, r: br}
	}
	conn, info, err := c.TransportCredentials.ServerHandshake(raw)
	c.mu.Lock()
	stopping := c.closed
	c.mu.Unlock()
	if err != nil && !stopping {
		kind, hint := handshakeKind(err)
		if kind == "" {
			kind, hint = "handshake failed", "an idle, probing or non-TLS connection"
		}
		c.log("refused connection from %s: %s: %v (%s)", raw.RemoteAddr(), kind, err, hint)
	}
	return conn, info, err
}

func (c *serverCreds) Clone() credentials.TransportCredentials {
	return &serverCreds{TransportCredentials: c.TransportCredentials.Clone(), plaintext: c.plaintext, log: c.log, open: map[net.Conn]struct{}{}}
}

// closeHandshakes closes the connections still in their handshake and
// refuses new ones.
func (c *serverCreds) closeHandshakes() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for conn := range c.open {
		conn.Close()
	}
}

// peekedConn reads first what a bufio.Reader peeked.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (p *peekedConn) Read(b []byte) (int, error) { return p.r.Read(b) }
