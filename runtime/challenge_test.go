package runtime_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
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

// refusingAgent refuses the extended card and subscriptions with an
// Unauthenticated error that names no challenge, as the default server does
// for an anonymous caller of GetExtendedAgentCard.
type refusingAgent struct {
	a2av1.UnimplementedA2AServiceHandler
}

func (refusingAgent) GetExtendedAgentCard(context.Context, *a2av1.GetExtendedAgentCardRequest) (*a2av1.AgentCard, error) {
	return nil, runtime.Unauthenticated("the extended card is for authenticated callers")
}

func (refusingAgent) SubscribeToTask(context.Context, *a2av1.SubscribeToTaskRequest, runtime.Stream[*a2av1.StreamResponse]) error {
	return runtime.Unauthenticated("log in first")
}

// challengelessAuthenticator refuses "Authorization: Bearer bad" with an
// Unauthenticated error that names no challenge, and lets everything else
// through.
func challengelessAuthenticator(ctx context.Context, r *runtime.AuthRequest) (context.Context, error) {
	if r.Header.Get("Authorization") == "Bearer bad" {
		return ctx, runtime.Unauthenticated("bad token")
	}
	return ctx, nil
}

// TestEveryUnauthenticatedAnswerHasAChallenge: an Unauthenticated error
// without challenges — from a handler, unary or streaming, or from an
// Authenticator — is answered with WWW-Authenticate (HTTP 401, on JSON-RPC
// too) or the www-authenticate trailer (gRPC UNAUTHENTICATED): the
// WithAuthenticator defaults, else runtime.GenericChallenge.
func TestEveryUnauthenticatedAnswerHasAChallenge(t *testing.T) {
	apiKey := `APIKey realm="agent", in="header", name="X-API-Key"`
	for _, tc := range []struct {
		name string
		opts []runtime.HandlerOption
		want []string
	}{
		{"no authenticator", nil, []string{runtime.GenericChallenge}},
		{"defaults only", []runtime.HandlerOption{runtime.WithAuthenticator(nil, apiKey)}, []string{apiKey}},
		{"authenticator with defaults", []runtime.HandlerOption{runtime.WithAuthenticator(challengelessAuthenticator, apiKey, `Basic realm="agent"`)},
			[]string{apiKey, `Basic realm="agent"`}},
		{"authenticator without defaults", []runtime.HandlerOption{runtime.WithAuthenticator(challengelessAuthenticator)}, []string{runtime.GenericChallenge}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(refusingAgent{}, tc.opts...))
			defer j.Close()
			r := httptest.NewServer(a2av1.NewA2AServiceRESTHandler(refusingAgent{}, tc.opts...))
			defer r.Close()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			g := grpc.NewServer()
			a2av1.RegisterA2AServiceGRPC(g, refusingAgent{}, tc.opts...)
			go func() { _ = g.Serve(ln) }()
			defer g.Stop()
			cc, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()

			type call struct {
				name, auth                 string
				jsonrpc, restMethod, route string
				grpcMethod                 string
				stream                     bool
			}
			calls := []call{
				{name: "handler", jsonrpc: `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}`,
					restMethod: "GET", route: "/extendedAgentCard", grpcMethod: "GetExtendedAgentCard"},
				{name: "streaming handler", jsonrpc: `{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"t1"}}`,
					restMethod: "POST", route: "/tasks/t1:subscribe", grpcMethod: "SubscribeToTask", stream: true},
			}
			if strings.HasPrefix(tc.name, "authenticator") {
				calls = append(calls, call{name: "authenticator", auth: "Bearer bad", jsonrpc: `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t1"}}`,
					restMethod: "GET", route: "/tasks/t1", grpcMethod: "GetTask"})
			}
			for _, c := range calls {
				// JSON-RPC and HTTP+JSON: 401 with the challenges.
				for _, h := range []struct{ binding, method, url, body string }{
					{runtime.BindingJSONRPC, "POST", j.URL, c.jsonrpc},
					{runtime.BindingHTTPJSON, c.restMethod, r.URL + c.route, ""},
				} {
					req, _ := http.NewRequest(h.method, h.url, strings.NewReader(h.body))
					req.Header.Set("A2A-Version", "1.0")
					req.Header.Set("Content-Type", "application/json")
					if c.stream {
						req.Header.Set("Accept", "text/event-stream")
					}
					if c.auth != "" {
						req.Header.Set("Authorization", c.auth)
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if got := resp.Header.Values("WWW-Authenticate"); resp.StatusCode != 401 || !slices.Equal(got, tc.want) {
						t.Errorf("%s %s: %d with WWW-Authenticate %q, want 401 with %q\n%s", h.binding, c.name, resp.StatusCode, got, tc.want, body)
					}
				}
				// gRPC: UNAUTHENTICATED with the challenges in the trailer.
				ctx := metadata.AppendToOutgoingContext(context.Background(), "a2a-version", "1.0")
				if c.auth != "" {
					ctx = metadata.AppendToOutgoingContext(ctx, "authorization", c.auth)
				}
				proc := "/lf.a2a.v1.A2AService/" + c.grpcMethod
				var trailer metadata.MD
				if c.stream {
					cs, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, proc)
					if err != nil {
						t.Fatal(err)
					}
					if err := cs.SendMsg(&a2av1.SubscribeToTaskRequest{Id: "t1"}); err != nil {
						t.Fatal(err)
					}
					_ = cs.CloseSend()
					err = cs.RecvMsg(&a2av1.StreamResponse{})
					trailer = cs.Trailer()
					checkGRPCChallenges(t, c.name, err, trailer, tc.want)
					continue
				}
				var in, out any = &a2av1.GetExtendedAgentCardRequest{}, &a2av1.AgentCard{}
				if c.grpcMethod == "GetTask" {
					in, out = &a2av1.GetTaskRequest{Id: "t1"}, &a2av1.Task{}
				}
				err = cc.Invoke(ctx, proc, in, out, grpc.Trailer(&trailer))
				checkGRPCChallenges(t, c.name, err, trailer, tc.want)
			}

			// The clients hand the challenges on.
			jc := a2av1.NewA2AServiceJSONRPCClient(j.URL)
			rc := a2av1.NewA2AServiceRESTClient(r.URL)
			gc := a2av1.NewA2AServiceGRPCClientFromConn(cc)
			for name, c := range map[string]a2av1.A2AServiceClient{"JSON-RPC": jc, "HTTP+JSON": rc, "gRPC": gc} {
				_, err := c.GetExtendedAgentCard(context.Background(), &a2av1.GetExtendedAgentCardRequest{})
				var e *runtime.Error
				if !errors.As(err, &e) || e.Code() != runtime.CodeUnauthenticated || !slices.Equal(e.Challenges(), tc.want) {
					t.Errorf("%s client: %v with challenges %q, want Unauthenticated with %q", name, err, e.Challenges(), tc.want)
				}
			}
		})
	}
}

func checkGRPCChallenges(t *testing.T, call string, err error, trailer metadata.MD, want []string) {
	t.Helper()
	if got := trailer.Get("www-authenticate"); status.Code(err) != codes.Unauthenticated || !slices.Equal(got, want) {
		t.Errorf("gRPC %s: %v with www-authenticate %q, want UNAUTHENTICATED with %q", call, err, got, want)
	}
}
