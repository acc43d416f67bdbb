package agentcard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// TestCredentialsStayOnTheInterfaceHost follows a redirect to another host
// and checks that the credentials are not sent there.
func TestCredentialsStayOnTheInterfaceHost(t *testing.T) {
	got := map[string]string{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got["other"] = r.Header.Get("Authorization")
	}))
	defer other.Close()
	iface := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got["interface"] = r.Header.Get("Authorization")
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	}))
	defer iface.Close()

	creds := boundCredentials{{name: "bearer", scheme: &a2av1.SecurityScheme{}, creds: StaticHeader("Authorization", "Bearer secret")}}
	hc := &http.Client{Transport: credentialMiddleware(iface.URL+"/a2a", creds)(http.DefaultTransport)}
	resp, err := hc.Get(iface.URL + "/a2a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got["interface"] != "Bearer secret" || got["other"] != "" {
		t.Errorf("Authorization seen: %v; want it on the interface host only", got)
	}
}

func TestGRPCCredentialsMetadata(t *testing.T) {
	creds := boundCredentials{
		{name: "bearer", creds: StaticHeader("Authorization", "Bearer x")},
		{name: "apikey", creds: StaticHeader("X-Api-Key", "k")},
	}
	md, err := grpcCredentials{creds: creds}.GetRequestMetadata(context.Background())
	if err != nil || md["authorization"] != "Bearer x" || md["x-api-key"] != "k" || len(md) != 2 {
		t.Errorf("metadata = %v, %v", md, err)
	}
	empty := boundCredentials{{name: "bad", creds: StaticHeader("", "v")}}
	if _, err := (grpcCredentials{creds: empty}).GetRequestMetadata(context.Background()); err == nil {
		t.Error("an empty header name was accepted")
	}
}
