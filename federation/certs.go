package federation

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
)

// File names in a certificate directory.
const (
	CAFile    = "ca.pem"
	CAKeyFile = "ca-key.pem"
)

// CertFiles returns the certificate and key file of name ("server", "client-3").
func CertFiles(dir, name string) (cert, key string) {
	return filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
}

// ClientName is the certificate identity of client party (1..n).
func ClientName(party int) string { return "client-" + strconv.Itoa(party) }

// ErrValidity signifies a certificate validity that is not positive.
var ErrValidity = errors.New("certs: validity must be positive")

// InitCA writes a new CA (ECDSA P-256) into dir; it refuses to overwrite one.
func InitCA(dir string, validity time.Duration) error {
	if validity <= 0 {
		return fmt.Errorf("%w, got %v", ErrValidity, validity)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	tmpl, err := template("fedcon CA", validity)
	if err != nil {
		return err
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.MaxPathLenZero = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	return writePair(filepath.Join(dir, CAFile), filepath.Join(dir, CAKeyFile), der, key)
}

// Issue writes name's certificate and key into dir, signed by dir's CA:
// "server" (for hosts: DNS names or IP addresses) or "client-N".
func Issue(dir, name string, hosts []string, validity time.Duration) error {
	if validity <= 0 {
		return fmt.Errorf("%w, got %v", ErrValidity, validity)
	}
	now := time.Now()
	return issue(dir, name, hosts, now.Add(-time.Hour), now.Add(validity))
}

// issue writes name's certificate valid from notBefore to notAfter.
func issue(dir, name string, hosts []string, notBefore, notAfter time.Time) error {
	server := name == "server"
	if !server {
		if _, err := partyOf(name); err != nil {
			return err
		}
	}
	caCert, caKey, err := loadCA(dir)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	tmpl, err := template(name, notAfter.Sub(time.Now()))
	if err != nil {
		return err
	}
	tmpl.NotBefore, tmpl.NotAfter = notBefore, notAfter
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		tmpl.DNSNames = []string{name}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	cert, keyFile := CertFiles(dir, name)
	return writePair(cert, keyFile, der, key)
}

func template(cn string, validity time.Duration) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	now := time.Now()
	return &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity)}, nil
}

// writePair writes a certificate (0644) and its key (0600), never over
// existing files.
func writePair(certPath, keyPath string, der []byte, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	for _, f := range []struct {
		path string
		mode os.FileMode
		typ  string
		b    []byte
	}{{keyPath, 0o600, "EC PRIVATE KEY", kb}, {certPath, 0o644, "CERTIFICATE", der}} {
		fh, err := os.OpenFile(f.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode)
		if err != nil {
			return fmt.Errorf("certs: %w", err)
		}
		err = pem.Encode(fh, &pem.Block{Type: f.typ, Bytes: f.b})
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("certs: %s: %w", f.path, err)
		}
	}
	return nil
}

func loadCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, CAFile), filepath.Join(dir, CAKeyFile))
	if err != nil {
		return nil, nil, fmt.Errorf("certs: CA in %s: %w (run 'fedcon certs init' first)", dir, err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, nil, fmt.Errorf("certs: %w", err)
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, nil, fmt.Errorf("certs: CA key in %s is not ECDSA", dir)
	}
	return cert, key, nil
}

func caPool(caFile string) (*x509.CertPool, error) {
	b, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("certs: %s holds no PEM certificate", caFile)
	}
	return pool, nil
}

// CertError signifies that a process's own certificate cannot work: it
// does not chain to ca.pem, has expired or is not yet valid, or is not for
// its role. Kind is one of the Kind* constants of HandshakeError.
type CertError struct {
	File string
	Kind string
	Err  error
}

func (e *CertError) Error() string { return fmt.Sprintf("certs: %s: %s: %v", e.File, e.Kind, e.Err) }
func (e *CertError) Unwrap() error { return e.Err }

// checkOwn refuses, before any connection, a certificate that the peer
// would refuse: the reason is then said where it can be fixed.
func checkOwn(file string, pair tls.Certificate, pool *x509.CertPool, usage x509.ExtKeyUsage) error {
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return fmt.Errorf("certs: %s: %w", file, err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
		kind, hint := handshakeKind(err)
		if kind == "" {
			kind, hint = KindTLS, "not a usable certificate"
		}
		return &CertError{File: file, Kind: kind, Err: fmt.Errorf("%w (%s)", err, hint)}
	}
	return nil
}

// ServerTLS is the server's mutual-TLS configuration: clients must present
// a certificate signed by the CA in caFile. The server's own certificate
// must chain to that CA, be valid now and carry the server-auth usage.
func ServerTLS(caFile, certFile, keyFile string) (*tls.Config, error) {
	pool, err := caPool(caFile)
	if err != nil {
		return nil, err
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	if err := checkOwn(certFile, pair, pool, x509.ExtKeyUsageServerAuth); err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS13}, nil
}

// ClientTLS is a client's mutual-TLS configuration; serverName is checked
// against the server certificate (empty: the host dialled). The client's
// own certificate must chain to the CA, be valid now and carry the
// client-auth usage.
func ClientTLS(caFile, certFile, keyFile, serverName string) (*tls.Config, error) {
	pool, err := caPool(caFile)
	if err != nil {
		return nil, err
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	if err := checkOwn(certFile, pair, pool, x509.ExtKeyUsageClientAuth); err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, ServerName: serverName,
		MinVersion: tls.VersionTLS13}, nil
}

// PeerParty returns the party a session's peer may answer for: the N of
// "client-N" in its verified certificate (CN or a DNS name).
func PeerParty(ctx context.Context) (int, error) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return 0, errors.New("no peer")
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.VerifiedChains) == 0 || len(info.State.VerifiedChains[0]) == 0 {
		return 0, errors.New("peer presented no verified certificate")
	}
	leaf := info.State.VerifiedChains[0][0]
	for _, name := range append([]string{leaf.Subject.CommonName}, leaf.DNSNames...) {
		if n, err := partyOf(name); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("certificate %q names no client-N identity", leaf.Subject.CommonName)
}

func partyOf(name string) (int, error) {
	s, ok := strings.CutPrefix(name, "client-")
	n, err := strconv.Atoi(s)
	if !ok || err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("certs: %q is not a client identity (client-1, client-2, ...)", name)
	}
	return n, nil
}

// IsLoopback reports whether addr ("host:port") is a loopback address:
// the only place where --insecure is allowed.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
