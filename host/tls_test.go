package host_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// tlsCardDoc is a card that requires a client certificate, with plaintext
// interface URLs on the given addresses.
func tlsCardDoc(httpAddr, grpcAddr string, extraSkill bool) string {
	skills := `{"id": "a", "name": "A", "description": "a", "tags": ["t"]}`
	if extraSkill {
		skills += `, {"id": "x", "name": "X", "description": "x", "tags": ["t"]}`
	}
	return fmt.Sprintf(`{
  "name": "tls",
  "description": "served over TLS",
  "supportedInterfaces": [
    {"url": "http://%[1]s/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    {"url": "http://%[1]s/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
    {"url": "%[2]s", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
  ],
  "documentationUrl": "http://%[1]s/docs",
  "version": "1",
  "capabilities": {"streaming": true, "extendedAgentCard": true},
  "securitySchemes": {"cert": {"mtlsSecurityScheme": {}}},
  "securityRequirements": [{"schemes": {"cert": {"list": []}}}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [%[3]s]
}`, httpAddr, grpcAddr, skills)
}

// TestTLSCardURLs: an agent serving TLS serves its card with TLS interface
// URLs (https:// for the HTTP bindings, https://host:port for a loopback
// gRPC address), every other byte unchanged; the extended card says the
// same; and clients made from the served card reach every binding.
func TestTLSCardURLs(t *testing.T) {
	pki := hosttest.NewPKI(t)
	httpAddr, grpcAddr := freeAddr(t), freeAddr(t)
	doc := tlsCardDoc(httpAddr, grpcAddr, false)
	card := hosttest.Card(t, doc)
	a, err := host.Start(host.Config{
		CardJSON: []byte(doc), ExtendedCardJSON: []byte(tlsCardDoc(httpAddr, grpcAddr, true)),
		Bindings: []host.Binding{
			{Protocol: runtime.BindingJSONRPC, Address: httpAddr, Path: "/a2a"},
			{Protocol: runtime.BindingHTTPJSON, Address: httpAddr, Path: "/rest"},
			{Protocol: runtime.BindingGRPC, Address: grpcAddr},
		},
		Skills:    []host.Skill{{ID: "a", Run: replyWith("a")}, {ID: "x", Run: replyWith("x")}},
		Verifiers: hosttest.Verifiers(card),
		TLS:       pki.ServerTLS(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown(context.Background())

	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: pki.ClientTLS()}}
	resp, err := hc.Get("https://" + httpAddr + runtime.AgentCardPath)
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := strings.NewReplacer(`"http://`+httpAddr+`/a2a"`, `"https://`+httpAddr+`/a2a"`, `"http://`+httpAddr+`/rest"`, `"https://`+httpAddr+`/rest"`,
		`"`+grpcAddr+`"`, `"https://`+grpcAddr+`"`).Replace(doc)
	if string(served) != want {
		t.Errorf("served card:\n%s\nwant:\n%s", served, want)
	}
	if string(a.CardJSON()) != want {
		t.Errorf("Agent.CardJSON differs from what is served")
	}
	servedCard := hosttest.Card(t, string(served))
	for _, b := range runtime.Bindings() {
		c, err := agentcard.NewClient(servedCard, agentcard.WithBindings(b), agentcard.WithHTTPClient(hc),
			agentcard.WithGRPCDialOptions(grpc.WithTransportCredentials(credentials.NewTLS(pki.ClientTLS()))))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		u := c.Interface.GetUrl()
		if !strings.HasPrefix(u, "https://") {
			t.Errorf("%s interface URL %q", b, u)
		}
		if target, err := runtime.ParseGRPCTarget(u); b == runtime.BindingGRPC && (err != nil || !target.TLS) {
			t.Errorf("clients read the gRPC interface URL %q as plaintext (%v)", u, err)
		}
		got, err := c.SendMessage(context.Background(), message("hi", "a"))
		if err != nil || server.MessageText(got.GetMessage()) != "a:hi" {
			t.Errorf("%s: SendMessage through the served card: %v, %v", b, got, err)
		}
		ext, err := c.GetExtendedAgentCard(context.Background(), &a2av1.GetExtendedAgentCardRequest{})
		if err != nil {
			t.Fatalf("%s: GetExtendedAgentCard: %v", b, err)
		}
		for _, itf := range ext.GetSupportedInterfaces() {
			if !strings.HasPrefix(itf.GetUrl(), "https://") {
				t.Errorf("%s: the extended card's interface URL %q", b, itf.GetUrl())
			}
		}
		if len(ext.GetSkills()) != 2 {
			t.Errorf("%s: the extended card has %d skills", b, len(ext.GetSkills()))
		}
	}
}

// TestStartRefusesSignedCardWithPlainURLs: over TLS, a signed card with
// plaintext URLs cannot be served truthfully: Start says so. Without TLS
// the same card is served byte for byte.
func TestStartRefusesSignedCardWithPlainURLs(t *testing.T) {
	httpAddr := freeAddr(t)
	doc := strings.Replace(string(plainCard(t)), `"name"`, `"signatures":[{"protected":"eyJhbGciOiJFUzI1NiJ9","signature":"c2ln"}],"supportedInterfaces":[{"url":"http://`+httpAddr+`/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"name"`, 1)
	cfg := host.Config{CardJSON: []byte(doc), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: httpAddr, Path: "/"}}}
	withTLS := cfg
	withTLS.TLS = hosttest.NewPKI(t).ServerTLS()
	if _, err := host.Start(withTLS); err == nil || !strings.Contains(err.Error(), "signed") || !strings.Contains(err.Error(), "sign it again") {
		t.Errorf("Start of a signed card with http URLs over TLS = %v, want a refusal", err)
	}
	a, err := host.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown(context.Background())
	if code, body := get(t, http.DefaultClient, "http://"+httpAddr+runtime.AgentCardPath); code != 200 || body != doc {
		t.Errorf("the signed card without TLS: %d\n%s\nwant\n%s", code, body, doc)
	}
}

// TestMainClientCertificates: -tls-cert, -tls-key and -client-ca (here as
// files of a test PKI) serve TLS, on the HTTP and the gRPC address, that
// accepts calls without a client certificate; A2A_REQUIRE_CLIENT_CERT (and
// the other variables) make the agent refuse connections without a
// verified one on both.
func TestMainClientCertificates(t *testing.T) {
	pki := hosttest.NewPKI(t)
	cert, key, ca := pki.Files(t)
	// tlsConfig is an agent on a JSON-RPC and a gRPC address.
	tlsConfig := func(t *testing.T) (cfg host.Config, httpAddr, grpcAddr string) {
		cfg, httpAddr = plainConfig(t)
		grpcAddr = freeAddr(t)
		cfg.Bindings = append(cfg.Bindings, host.Binding{Protocol: runtime.BindingGRPC, Address: grpcAddr})
		return cfg, httpAddr, grpcAddr
	}
	call := func(t *testing.T, b runtime.Binding, addr string, withCert bool) error {
		t.Helper()
		tlsCfg := pki.ClientTLSWithoutCertificate()
		if withCert {
			tlsCfg = pki.ClientTLS()
		}
		c := a2av1.NewA2AServiceJSONRPCClient("https://"+addr+"/", runtime.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg}}))
		if b == runtime.BindingGRPC {
			gc, err := a2av1.NewA2AServiceGRPCClient("https://"+addr, runtime.WithGRPCDialOptions(grpc.WithTransportCredentials(credentials.NewTLS(tlsCfg))))
			if err != nil {
				t.Fatal(err)
			}
			defer gc.(io.Closer).Close()
			c = gc
		}
		_, err := c.SendMessage(context.Background(), message("hi", ""))
		return err
	}

	t.Run("optional", func(t *testing.T) {
		cfg, httpAddr, grpcAddr := tlsConfig(t)
		out, stop := runMain(t, cfg, []string{"-tls-cert", cert, "-tls-key", key, "-client-ca", ca}, 4)
		defer stop()
		if !strings.Contains(out, "JSONRPC   https://"+httpAddr) || !strings.Contains(out, "GRPC      https://"+grpcAddr) {
			t.Errorf("stdout %q does not show the https URLs", out)
		}
		for b, addr := range map[runtime.Binding]string{runtime.BindingJSONRPC: httpAddr, runtime.BindingGRPC: grpcAddr} {
			if err := call(t, b, addr, false); err != nil {
				t.Errorf("%s: a call without a client certificate: %v", b, err)
			}
		}
	})
	t.Run("required", func(t *testing.T) {
		cfg, addr, grpcAddr := tlsConfig(t)
		t.Setenv("A2A_TLS_CERT", cert)
		t.Setenv("A2A_TLS_KEY", key)
		t.Setenv("A2A_CLIENT_CA", ca)
		t.Setenv("A2A_REQUIRE_CLIENT_CERT", "true")
		_, stop := runMain(t, cfg, nil, 4)
		defer stop()
		for b, a := range map[runtime.Binding]string{runtime.BindingJSONRPC: addr, runtime.BindingGRPC: grpcAddr} {
			// With TLS 1.3 the client may write before it reads the
			// server's alert: on gRPC it then sees the closed connection
			// (UNAVAILABLE, "broken pipe") rather than the alert.
			err := call(t, b, a, false)
			if refused := err != nil && (strings.Contains(err.Error(), "certificate") ||
				b == runtime.BindingGRPC && status.Code(err) == codes.Unavailable); !refused {
				t.Errorf("%s: a call without a client certificate: %v, want a TLS refusal", b, err)
			}
			if err := call(t, b, a, true); err != nil {
				t.Errorf("%s: a call with a client certificate: %v", b, err)
			}
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close() // the listener is there; only the handshake refuses
		} else {
			t.Errorf("dial %s: %v", addr, err)
		}
	})
}
