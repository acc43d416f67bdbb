package runtime

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestUnknownOperationsAreAuthenticatedFirst: with an Authenticator, a
// request for a JSON-RPC method or an HTTP+JSON route that does not exist is
// authenticated like any other (A2A §7.4): without credentials it gets 401
// with a challenge, not -32601 or 404, so an anonymous caller learns
// nothing of what exists; with credentials it gets "not found".
func TestUnknownOperationsAreAuthenticatedFirst(t *testing.T) {
	authn := WithAuthenticator(func(ctx context.Context, r *AuthRequest) (context.Context, error) {
		if r.Header.Get("Authorization") != "Bearer ok" {
			return nil, NewError(CodeUnauthenticated, "a bearer token is required")
		}
		return ctx, nil
	}, `Bearer realm="test"`)
	rpc := httptest.NewServer(NewJSONRPCHandler(newTestService(nil), authn, WithLogger(slogDiscard())))
	defer rpc.Close()
	rest := httptest.NewServer(NewRESTHandler(newRESTTestService(nil), authn, WithLogger(slogDiscard())))
	defer rest.Close()

	do := func(method, url, body, token string) (int, string, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
	}
	unknown := `{"jsonrpc":"2.0","id":1,"method":"NoSuchMethod","params":{}}`
	for _, tc := range []struct {
		name, method, url, body string
	}{
		{"JSON-RPC unknown method", http.MethodPost, rpc.URL, unknown},
		{"HTTP+JSON unknown route", http.MethodGet, rest.URL + "/no/such/route", ""},
		{"HTTP+JSON wrong verb", http.MethodDelete, rest.URL + "/echo", ""},
	} {
		status, challenge, body := do(tc.method, tc.url, tc.body, "")
		if status != http.StatusUnauthorized || challenge == "" {
			t.Errorf("%s without credentials: %d %q (WWW-Authenticate %q), want 401 with a challenge", tc.name, status, body, challenge)
		}
		status, _, body = do(tc.method, tc.url, tc.body, "ok")
		if status == http.StatusUnauthorized || !(strings.Contains(body, "-32601") || status == http.StatusNotFound || status == http.StatusMethodNotAllowed) {
			t.Errorf("%s with credentials: %d %q, want not found", tc.name, status, body)
		}
	}
}
