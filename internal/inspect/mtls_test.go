package inspect

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc"
	grpccreds "google.golang.org/grpc/credentials"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestMutualTLS: against an agent whose every listener requires a client
// certificate of its CA (JSON-RPC, HTTP+JSON and the card over HTTPS, gRPC
// over TLS), the inspector without a certificate cannot even read the card;
// with the certificate and key given in the Auth view (PEM, as the page
// sends them) it reads the card and a message is answered on every
// binding.
func TestMutualTLS(t *testing.T) {
	pki := hosttest.NewPKI(t)
	serverTLS := pki.ServerTLS()
	serverTLS.ClientAuth = tls.RequireAndVerifyClientCert

	hs := httptest.NewUnstartedServer(nil)
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "https://" + hs.Listener.Addr().String()
	card := echo.Card(
		&a2av1.AgentInterface{Url: base + "/a2a/jsonrpc", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "1.0"},
		&a2av1.AgentInterface{Url: base + "/a2a/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: "1.0"},
		&a2av1.AgentInterface{Url: "https://" + gl.Addr().String(), ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: "1.0"},
	)
	card.SecuritySchemes = map[string]*a2av1.SecurityScheme{"mtls": {Scheme: &a2av1.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &a2av1.MutualTlsSecurityScheme{}}}}
	srv, err := server.New(card, &echo.Agent{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(card))
	mux.Handle("/a2a/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(srv))
	mux.Handle("/a2a/rest/", a2av1.NewA2AServiceRESTHandler(srv))
	hs.Config.Handler = mux
	hs.TLS = serverTLS
	hs.StartTLS()
	gs := grpc.NewServer(grpc.Creds(grpccreds.NewTLS(serverTLS.Clone())))
	a2av1.RegisterA2AServiceGRPC(gs, srv)
	go func() { _ = gs.Serve(gl) }()
	t.Cleanup(func() {
		hs.Close()
		gs.Stop()
		_ = srv.Shutdown(context.Background())
	})

	// The inspector trusts the agent's CA (as SSL_CERT_FILE would make it).
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = pki.ClientTLSWithoutCertificate()
	s, err := New(Options{Token: "test-session-token", HTTPTransport: transport})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	api := newAPI(t, s)

	if out := api.postJSON("/api/card", map[string]string{"url": base}); out["error"] == nil {
		t.Fatalf("the card was read without a client certificate: %v", out)
	}

	client := pki.ClientTLS().Certificates[0]
	keyDER, err := x509.MarshalPKCS8PrivateKey(client.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	applied := api.postJSON("/api/auth", map[string]any{
		"clientCert": string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: client.Certificate[0]})),
		"clientKey":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})),
	})
	if applied["error"] != nil {
		t.Fatal(applied["error"])
	}
	if out := api.postJSON("/api/card", map[string]string{"url": base}); out["error"] != nil {
		t.Fatalf("the card with the client certificate: %v", out["error"])
	}
	for i, b := range []string{"JSON-RPC", "HTTP+JSON", "gRPC"} {
		out := api.postJSON("/api/call", sendText(i, "hello"))
		if raw, _ := json.Marshal(out["response"]); !strings.Contains(string(raw), "Echo: hello") {
			t.Errorf("%s over mutual TLS: %v", b, out)
		}
	}
}
