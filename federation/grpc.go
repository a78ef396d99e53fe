package federation

import (
	"crypto/tls"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"

	"github.com/fedcon/fedcon/federation/fedpb"
)

// keepalive pings find a peer that vanished without closing its connection
// (a machine that lost power), independently of the round timeout.
var (
	serverKeepalive = keepalive.ServerParameters{Time: 15 * time.Second, Timeout: 10 * time.Second}
	clientKeepalive = keepalive.ClientParameters{Time: 15 * time.Second, Timeout: 10 * time.Second, PermitWithoutStream: true}
	enforcement     = keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}
)

// ServerCredentials are mutual TLS from a certificate directory (ca.pem,
// server.pem, server-key.pem), or plaintext when dir is empty.
func ServerCredentials(dir string) (credentials.TransportCredentials, error) {
	if dir == "" {
		return insecure.NewCredentials(), nil
	}
	cert, key := CertFiles(dir, "server")
	c, err := ServerTLS(filepath.Join(dir, CAFile), cert, key)
	if err != nil {
		return nil, err
	}
	return credentials.NewTLS(c), nil
}

// ClientCredentials are client party's mutual TLS from a certificate
// directory (ca.pem, client-N.pem, client-N-key.pem), or plaintext when dir
// is empty. serverName overrides the name checked in the server's
// certificate (empty: the host dialled).
func ClientCredentials(dir string, party int, serverName string) (credentials.TransportCredentials, error) {
	c, err := ClientTLSConfig(dir, party, serverName)
	if err != nil || c == nil {
		return insecure.NewCredentials(), err
	}
	return credentials.NewTLS(c), nil
}

// ClientTLSConfig is what ClientCredentials build on: nil for an empty dir
// (plaintext).
func ClientTLSConfig(dir string, party int, serverName string) (*tls.Config, error) {
	if dir == "" {
		return nil, nil
	}
	cert, key := CertFiles(dir, ClientName(party))
	return ClientTLS(filepath.Join(dir, CAFile), cert, key, serverName)
}

// maxMsg bounds one message: w of up to 8 million floats (gRPC's default
// of 4 MB would stop at half a million).
const maxMsg = 64 << 20

// NewGRPCServer returns a gRPC server that serves s. A connection has
// HandshakeTimeout for its handshake; a refused one is logged with the
// peer's address (ServerConfig.Log).
func NewGRPCServer(s *Server, creds credentials.TransportCredentials) *grpc.Server {
	sc := &serverCreds{TransportCredentials: creds, plaintext: creds.Info().SecurityProtocol == "insecure",
		log: s.logf, open: map[net.Conn]struct{}{}}
	s.mu.Lock()
	s.creds = sc
	s.mu.Unlock()
	g := grpc.NewServer(grpc.Creds(sc), grpc.ConnectionTimeout(HandshakeTimeout),
		grpc.KeepaliveParams(serverKeepalive), grpc.KeepaliveEnforcementPolicy(enforcement),
		grpc.MaxRecvMsgSize(maxMsg), grpc.MaxSendMsgSize(maxMsg))
	fedpb.RegisterFederationServer(g, s)
	return g
}

// Dial connects to a server at addr (lazily: RunClient waits for it).
func Dial(addr string, creds credentials.TransportCredentials) (*grpc.ClientConn, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds), grpc.WithKeepaliveParams(clientKeepalive),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMsg), grpc.MaxCallSendMsgSize(maxMsg)))
	if err != nil {
		return nil, fmt.Errorf("federation: dial %s: %w", addr, err)
	}
	return conn, nil
}
