package hosttest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// PKI is a throw-away certificate authority with a server certificate for
// 127.0.0.1 and localhost and a client certificate, for tests of agents
// served over TLS and of mtls schemes.
type PKI struct {
	pool   *x509.CertPool
	caDER  []byte
	server tls.Certificate
	client tls.Certificate
}

// NewPKI creates a CA and its two certificates (ECDSA P-256, valid for a
// day).
func NewPKI(t testing.TB) *PKI {
	t.Helper()
	caKey := newKey(t)
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "hosttest CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	p := &PKI{pool: x509.NewCertPool(), caDER: caDER}
	p.pool.AddCert(caCert)
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, hosts bool) tls.Certificate {
		key := newKey(t)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: cn},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		}
		if hosts {
			tmpl.DNSNames = []string{"localhost"}
			tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	}
	p.server = issue(2, "localhost", x509.ExtKeyUsageServerAuth, true)
	p.client = issue(3, Subject, x509.ExtKeyUsageClientAuth, false)
	return p
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// ServerTLS is the agent's configuration: the server certificate, and
// client certificates of the CA verified when given (as
// auth.ServerTLSConfig sets it up).
func (p *PKI) ServerTLS() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{p.server},
		ClientCAs:    p.pool,
		ClientAuth:   tls.VerifyClientCertIfGiven,
		MinVersion:   tls.VersionTLS12,
	}
}

// ClientTLS is a client's configuration: it trusts the CA and presents the
// client certificate.
func (p *PKI) ClientTLS() *tls.Config { return p.clientTLS(true) }

// clientTLS is ClientTLS, without the client certificate unless cert.
func (p *PKI) clientTLS(cert bool) *tls.Config {
	c := &tls.Config{RootCAs: p.pool, MinVersion: tls.VersionTLS12}
	if cert {
		c.Certificates = []tls.Certificate{p.client}
	}
	return c
}

// Files writes the server certificate, its private key and the CA
// certificate as PEM files into a temporary directory of t and returns
// their paths: what a program reads with -tls-cert, -tls-key and -client-ca
// (host.Main).
func (p *PKI) Files(t testing.TB) (cert, key, ca string) {
	t.Helper()
	dir := t.TempDir()
	keyDER, err := x509.MarshalPKCS8PrivateKey(p.server.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return write("cert.pem", "CERTIFICATE", p.server.Certificate[0]),
		write("key.pem", "PRIVATE KEY", keyDER),
		write("ca.pem", "CERTIFICATE", p.caDER)
}

// ClientTLSWithoutCertificate is a client's configuration that trusts the
// CA but presents no client certificate.
func (p *PKI) ClientTLSWithoutCertificate() *tls.Config { return p.clientTLS(false) }
