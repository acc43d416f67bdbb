package hosttest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"
)

// PKI is a throw-away certificate authority with a server certificate for
// 127.0.0.1 and localhost and a client certificate, for tests of agents
// served over TLS and of mtls schemes.
type PKI struct {
	pool   *x509.CertPool
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
	p := &PKI{pool: x509.NewCertPool()}
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
