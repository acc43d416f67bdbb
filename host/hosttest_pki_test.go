package host_test

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
)

// TestHosttestPKI: for a card with an mtls scheme hosttest.Start serves TLS
// from a throw-away PKI, and Agent.PKI hands it to tests that make their own
// clients: its client configuration reaches the agent; a card without mtls
// gets none.
func TestHosttestPKI(t *testing.T) {
	a, _, _ := startTestAgent(t)
	pki := a.PKI()
	if pki == nil {
		t.Fatal("PKI() = nil for a card with an mtls scheme")
	}
	url := a.URL(bindings[0])
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("URL %q, want https", url)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: pki.ClientTLS()}}
	resp, err := hc.Get(strings.TrimSuffix(url, "/") + runtime.AgentCardPath)
	if err != nil {
		t.Fatalf("GET the card with PKI().ClientTLS(): %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET the card: %d, want 200", resp.StatusCode)
	}
	plain := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{}}}
	if _, err := plain.Get(strings.TrimSuffix(url, "/") + runtime.AgentCardPath); err == nil {
		t.Error("GET the card trusting only the system roots succeeded; want the test PKI's certificate refused")
	}

	cfg, _ := plainConfig(t)
	if p := hosttest.Start(t, host.Config{CardJSON: cfg.CardJSON, Skills: cfg.Skills, Bindings: cfg.Bindings}).PKI(); p != nil {
		t.Errorf("PKI() = %v for a card without mtls, want nil", p)
	}
}
