package runtime_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// authAgent answers GetTask with a task whose id is the caller's subject,
// so a test sees the identity the authenticator established.
type authAgent struct {
	a2av1.UnimplementedA2AServiceHandler
}

func (authAgent) GetTask(ctx context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	id, ok := runtime.IdentityFromContext(ctx)
	if !ok {
		return &a2av1.Task{Id: "anonymous"}, nil
	}
	return &a2av1.Task{Id: id.Subject}, nil
}

// testAuthenticator accepts "Authorization: Bearer good" (scope read),
// "Bearer weak" (no scope), an "X-Key: k1" header, a "key=k2" query
// parameter and a "session=k3" cookie; anything else is refused.
func testAuthenticator(ctx context.Context, r *runtime.AuthRequest) (context.Context, error) {
	sub := ""
	switch {
	case r.Header.Get("Authorization") == "Bearer good":
		sub = "token"
	case r.Header.Get("Authorization") == "Bearer weak":
		return ctx, runtime.Unauthorized("scope read is missing").WithChallenge(`Bearer error="insufficient_scope", scope="read"`)
	case r.Header.Get("X-Key") == "k1":
		sub = "header-key"
	case r.QueryValue("key") == "k2":
		sub = "query-key"
	default:
		if c, err := r.Cookie("session"); err == nil && c.Value == "k3" {
			sub = "cookie-key"
		}
	}
	if sub == "" {
		return ctx, runtime.Unauthenticated("send a bearer token").WithChallenge(`Bearer realm="test"`)
	}
	return runtime.WithIdentity(ctx, &runtime.Identity{Subject: sub + "@" + r.Info.Binding.String()}), nil
}

// authServers serves authAgent with testAuthenticator on every binding.
type authServers struct {
	jsonrpc, rest string // URLs
	grpc          string // target
}

func startAuthServers(t *testing.T) authServers {
	t.Helper()
	opt := runtime.WithAuthenticator(testAuthenticator)
	j := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(authAgent{}, opt))
	t.Cleanup(j.Close)
	r := httptest.NewServer(a2av1.NewA2AServiceRESTHandler(authAgent{}, opt))
	t.Cleanup(r.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(g, authAgent{}, opt)
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(g.Stop)
	return authServers{jsonrpc: j.URL, rest: r.URL, grpc: ln.Addr().String()}
}

func TestAuthenticatorOnEveryBinding(t *testing.T) {
	s := startAuthServers(t)
	cases := []struct {
		name    string
		header  [2]string // sent as header / metadata
		query   string    // HTTP only
		want    string    // subject, or "" for an error
		wantErr error
	}{
		{name: "no credentials", wantErr: runtime.ErrUnauthenticated},
		{name: "bearer", header: [2]string{"Authorization", "Bearer good"}, want: "token"},
		{name: "bad bearer", header: [2]string{"Authorization", "Bearer bad"}, wantErr: runtime.ErrUnauthenticated},
		{name: "missing scope", header: [2]string{"Authorization", "Bearer weak"}, wantErr: runtime.ErrUnauthorized},
		{name: "header key", header: [2]string{"X-Key", "k1"}, want: "header-key"},
		{name: "cookie", header: [2]string{"Cookie", "a=b; session=k3"}, want: "cookie-key"},
		{name: "query key", query: "key=k2", want: "query-key"},
	}
	for _, binding := range runtime.Bindings() {
		for _, tc := range cases {
			t.Run(binding.String()+"/"+tc.name, func(t *testing.T) {
				var opts []runtime.ClientOption
				if tc.header[0] != "" {
					opts = append(opts, runtime.WithHeader(tc.header[0], tc.header[1]))
				}
				var c a2av1.A2AServiceClient
				switch binding {
				case runtime.BindingJSONRPC:
					u := s.jsonrpc
					if tc.query != "" {
						u += "?" + tc.query
					}
					c = a2av1.NewA2AServiceJSONRPCClient(u, opts...)
				case runtime.BindingHTTPJSON:
					if tc.query != "" {
						opts = append(opts, runtime.WithHTTPClient(&http.Client{Transport: addQuery(tc.query)}))
					}
					c = a2av1.NewA2AServiceRESTClient(s.rest, opts...)
				case runtime.BindingGRPC:
					if tc.query != "" { // gRPC has no query: metadata of that name stands in
						k, v, _ := strings.Cut(tc.query, "=")
						opts = append(opts, runtime.WithHeader(k, v))
					}
					gc, err := a2av1.NewA2AServiceGRPCClient(s.grpc, opts...)
					if err != nil {
						t.Fatal(err)
					}
					c = gc
				}
				task, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t1"})
				if tc.wantErr != nil {
					if !errors.Is(err, tc.wantErr) {
						t.Fatalf("error %v, want %v", err, tc.wantErr)
					}
					// Every client hands the server's challenges on, for
					// unary and streaming calls alike.
					wantBearerChallenge(t, err)
					var streamErr error
					for _, err := range c.SubscribeToTask(context.Background(), &a2av1.SubscribeToTaskRequest{Id: "t1"}) {
						streamErr = err
						break
					}
					if !errors.Is(streamErr, tc.wantErr) {
						t.Fatalf("stream error %v, want %v", streamErr, tc.wantErr)
					}
					wantBearerChallenge(t, streamErr)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if want := tc.want + "@" + binding.String(); task.GetId() != want {
					t.Errorf("handler saw subject %q, want %q", task.GetId(), want)
				}
			})
		}
	}
}

// wantBearerChallenge fails t unless err is an *Error carrying the test
// server's Bearer challenge.
func wantBearerChallenge(t *testing.T, err error) {
	t.Helper()
	var e *runtime.Error
	if !errors.As(err, &e) || len(e.Challenges()) == 0 || !strings.HasPrefix(e.Challenges()[0], "Bearer ") {
		t.Errorf("challenges of %v = %q, want the server's Bearer challenge", err, e.Challenges())
	}
}

// addQuery is a transport that appends a query to every request.
type addQuery string

func (q addQuery) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if r.URL.RawQuery != "" {
		r.URL.RawQuery += "&"
	}
	r.URL.RawQuery += string(q)
	return http.DefaultTransport.RoundTrip(r)
}

// TestAuthenticationWireAnswers checks the HTTP status, WWW-Authenticate and
// body of refused calls, and that authentication comes before decoding.
func TestAuthenticationWireAnswers(t *testing.T) {
	s := startAuthServers(t)
	for _, tc := range []struct {
		name, method, url, body, auth string
		status                        int
		challenge, bodyContains       string
	}{
		{"JSON-RPC unauthenticated", "POST", s.jsonrpc, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}`, "",
			401, `Bearer realm="test"`, `"code":-31401`},
		{"JSON-RPC unauthorized", "POST", s.jsonrpc, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}`, "Bearer weak",
			403, `Bearer error="insufficient_scope", scope="read"`, `"code":-31403`},
		{"JSON-RPC before params decoding", "POST", s.jsonrpc, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":5}}`, "",
			401, `Bearer realm="test"`, `"reason":"UNAUTHENTICATED"`},
		{"REST unauthenticated", "GET", s.rest + "/tasks/t", "", "",
			401, `Bearer realm="test"`, `"status":"UNAUTHENTICATED"`},
		{"REST unauthorized", "GET", s.rest + "/tasks/t", "", "Bearer weak",
			403, `Bearer error="insufficient_scope", scope="read"`, `"status":"PERMISSION_DENIED"`},
		{"REST before body decoding", "POST", s.rest + "/message:send", `{not json`, "",
			401, `Bearer realm="test"`, `"reason":"UNAUTHENTICATED"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, tc.url, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || resp.Header.Get("WWW-Authenticate") != tc.challenge || !strings.Contains(string(body), tc.bodyContains) {
				t.Errorf("got %d, WWW-Authenticate %q, body %s; want %d, %q, body with %s",
					resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, tc.status, tc.challenge, tc.bodyContains)
			}
		})
	}

	t.Run("gRPC challenge trailer", func(t *testing.T) {
		conn, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var trailer metadata.MD
		err = conn.Invoke(context.Background(), "/lf.a2a.v1.A2AService/GetTask", &a2av1.GetTaskRequest{Id: "t"}, &a2av1.Task{}, grpc.Trailer(&trailer))
		if status.Code(err) != codes.Unauthenticated || strings.Join(trailer.Get("www-authenticate"), "|") != `Bearer realm="test"` {
			t.Errorf("got %v, trailer %v", err, trailer)
		}
	})
}

// TestDuplicateAuthorizationRefused: a request with two Authorization field
// lines (gRPC: two authorization metadata entries) is refused as malformed
// (InvalidRequest) on every binding before the Authenticator sees it, whose
// Header.Get would read only the first (issue 13).
func TestDuplicateAuthorizationRefused(t *testing.T) {
	s := startAuthServers(t)
	for _, tc := range []struct {
		name, method, url, body string
		status                  int
		bodyContains            string
	}{
		{"JSON-RPC", "POST", s.jsonrpc, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}`, 200, `"code":-32600`},
		{"REST", "GET", s.rest + "/tasks/t", "", 400, `"reason":"INVALID_REQUEST"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, tc.url, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Add("Authorization", "Bearer good")
			req.Header.Add("Authorization", "Bearer bad")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.bodyContains) ||
				!strings.Contains(string(body), "2 Authorization headers") || strings.Contains(string(body), `"token@`) {
				t.Errorf("got %d, body %s; want %d with %s naming the 2 Authorization headers", resp.StatusCode, body, tc.status, tc.bodyContains)
			}
		})
	}
	t.Run("gRPC", func(t *testing.T) {
		conn, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer good", "authorization", "Bearer bad")
		err = conn.Invoke(ctx, "/lf.a2a.v1.A2AService/GetTask", &a2av1.GetTaskRequest{Id: "t"}, &a2av1.Task{})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "2 Authorization headers") {
			t.Errorf("got %v, want InvalidArgument naming the 2 Authorization headers", err)
		}
	})
	if e := runtime.CheckSingleAuthorization(http.Header{"Authorization": {"Bearer a"}}); e != nil {
		t.Errorf("one Authorization refused: %v", e)
	}
}

func TestAuthenticatorInternalError(t *testing.T) {
	h := a2av1.NewA2AServiceJSONRPCHandler(authAgent{}, runtime.WithLogger(slog.New(slog.DiscardHandler)),
		runtime.WithAuthenticator(func(ctx context.Context, _ *runtime.AuthRequest) (context.Context, error) {
			return nil, errors.New("directory down: secret detail")
		}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	_, err := a2av1.NewA2AServiceJSONRPCClient(srv.URL).GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"})
	if !errors.Is(err, runtime.ErrInternal) || strings.Contains(err.Error(), "secret") {
		t.Errorf("got %v, want an Internal error without the cause's text", err)
	}
}

func TestErrorChallenges(t *testing.T) {
	base := runtime.Unauthenticated("no")
	a := base.WithChallenge("Basic")
	b := base.WithChallenge("Bearer")
	ab := a.WithChallenge("Bearer")
	if len(base.Challenges()) != 0 || strings.Join(a.Challenges(), ",") != "Basic" ||
		strings.Join(b.Challenges(), ",") != "Bearer" || strings.Join(ab.Challenges(), ",") != "Basic,Bearer" {
		t.Errorf("challenges leak between copies: %v %v %v %v", base.Challenges(), a.Challenges(), b.Challenges(), ab.Challenges())
	}
	if !errors.Is(ab, runtime.ErrUnauthenticated) {
		t.Error("a challenge changed the error's code")
	}
}

func TestIdentityHasScheme(t *testing.T) {
	id := &runtime.Identity{Subject: "u", Schemes: map[string][]string{"oauth": {"read", "write"}, "key": nil}}
	for _, tc := range []struct {
		scheme string
		scopes []string
		want   bool
	}{
		{"oauth", nil, true},
		{"oauth", []string{"read"}, true},
		{"oauth", []string{"read", "admin"}, false},
		{"key", nil, true},
		{"mtls", nil, false},
	} {
		if got := id.HasScheme(tc.scheme, tc.scopes...); got != tc.want {
			t.Errorf("HasScheme(%q, %v) = %v", tc.scheme, tc.scopes, got)
		}
	}
	var none *runtime.Identity
	if none.HasScheme("key") {
		t.Error("nil identity has a scheme")
	}
}
