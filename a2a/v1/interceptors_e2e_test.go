package a2av1_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// journal records what interceptors saw, in order.
type journal struct {
	mu    sync.Mutex
	lines []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines = append(j.lines, fmt.Sprintf(format, args...))
}

func (j *journal) take() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := j.lines
	j.lines = nil
	return out
}

// recorder is an interceptor that writes what it sees into a journal under
// its name: the call (side, binding, operation, the caller's subject), each
// stream event, and the outcome.
func recorder(name string, j *journal) runtime.Interceptor {
	describe := func(ctx context.Context, call *runtime.CallInfo) string {
		side := "server"
		if call.Client {
			side = "client"
		}
		who := "anonymous"
		if id, ok := runtime.IdentityFromContext(ctx); ok {
			who = id.Subject
		}
		if call.Client {
			who = "-"
		}
		return fmt.Sprintf("%s %s %s %s %s", name, side, call.Binding, call.Operation.Name, who)
	}
	outcome := func(err error) string {
		if err == nil {
			return "ok"
		}
		var e *runtime.Error
		if errors.As(err, &e) {
			return e.Code().String()
		}
		return err.Error()
	}
	return runtime.InterceptorFuncs{
		Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
				j.add("%s >", describe(ctx, call))
				resp, err := next(ctx, call, req)
				j.add("%s < %s", name, outcome(err))
				return resp, err
			}
		},
		Stream: func(next runtime.StreamFunc) runtime.StreamFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
				j.add("%s >", describe(ctx, call))
				err := next(ctx, call, req, func(m proto.Message) error {
					j.add("%s event", name)
					return send(m)
				})
				j.add("%s < %s", name, outcome(err))
				return err
			}
		},
	}
}

// subjectFromHeader authenticates every caller as the X-User header says
// (anonymous without one).
func subjectFromHeader(ctx context.Context, r *runtime.AuthRequest) (context.Context, error) {
	if u := r.Header.Get("X-User"); u != "" {
		return runtime.WithIdentity(ctx, &runtime.Identity{Subject: u}), nil
	}
	return ctx, nil
}

func wantLines(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", what, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// TestServerInterceptors: the same interceptors wrap the handler on every
// binding, first one outermost; they see the caller's identity, every
// stream event and the outcome, also of calls refused before the handler.
func TestServerInterceptors(t *testing.T) {
	for _, b := range bindings {
		if b.tenant != "" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			j := &journal{}
			addr := b.serve(t, paramsEcho{}, runtime.WithAuthenticator(subjectFromHeader),
				runtime.WithInterceptors(recorder("a", j), recorder("b", j))).addr
			c := b.dial(t, addr, runtime.WithHeader("X-User", "ada"))
			bn := b.callInfoBinding

			if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1"}); err != nil {
				t.Fatal(err)
			}
			wantLines(t, "unary", j.take(),
				"a server "+bn+" GetTask ada >", "b server "+bn+" GetTask ada >", "b < ok", "a < ok")

			for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "s1"}) {
				if err != nil {
					t.Fatal(err)
				}
			}
			wantLines(t, "stream", j.take(),
				"a server "+bn+" SubscribeToTask ada >", "b server "+bn+" SubscribeToTask ada >",
				"b event", "a event", "b < ok", "a < ok")

			// A request without its required message never reaches the
			// handler; the interceptors still see it and its error.
			if _, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{}); !errors.Is(err, runtime.ErrInvalidParams) {
				t.Fatalf("SendMessage without message: %v, want InvalidParams", err)
			}
			wantLines(t, "refused", j.take(),
				"a server "+bn+" SendMessage ada >", "b server "+bn+" SendMessage ada >", "b < InvalidParams", "a < InvalidParams")

			// The unimplemented operation's error passes through too.
			if _, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: "t1"}); !errors.Is(err, runtime.ErrUnsupportedOperation) {
				t.Fatalf("CancelTask: %v, want UnsupportedOperation", err)
			}
			wantLines(t, "unimplemented", j.take(),
				"a server "+bn+" CancelTask ada >", "b server "+bn+" CancelTask ada >", "b < UnsupportedOperation", "a < UnsupportedOperation")
		})
	}
}

// TestServerInterceptorRefuses: an interceptor can answer a call itself,
// with an A2A error the client receives as such.
func TestServerInterceptorRefuses(t *testing.T) {
	refuse := runtime.InterceptorFuncs{
		Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
				if _, ok := runtime.IdentityFromContext(ctx); !ok {
					return nil, runtime.NewError(runtime.CodeUnauthorized, "only known users may read tasks")
				}
				return next(ctx, call, req)
			}
		},
	}
	for _, b := range bindings {
		if b.tenant != "" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			addr := b.serve(t, paramsEcho{}, runtime.WithAuthenticator(subjectFromHeader), runtime.WithInterceptors(refuse)).addr
			_, err := b.dial(t, addr).GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"})
			if !errors.Is(err, runtime.ErrUnauthorized) || !strings.Contains(err.Error(), "only known users") {
				t.Fatalf("anonymous GetTask: %v, want the interceptor's Unauthorized", err)
			}
			if _, err := b.dial(t, addr, runtime.WithHeader("X-User", "ada")).GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t"}); err != nil {
				t.Fatalf("GetTask as ada: %v", err)
			}
		})
	}
}

// TestClientInterceptors: client interceptors wrap every call of a
// transport, first one outermost, see each stream event, can add headers
// the agent receives, and read the response headers; a caller reads them
// with WithResponseMetadata, interceptors or not.
func TestClientInterceptors(t *testing.T) {
	addHeader := runtime.InterceptorFuncs{
		Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
				call.Header.Set("Authorization", "Bearer from-interceptor")
				resp, err := next(ctx, call, req)
				if got := call.ResponseHeader().Get("A2A-Extensions"); got != "https://ext.example/a" {
					return nil, fmt.Errorf("the interceptor saw A2A-Extensions %q in the response header", got)
				}
				return resp, err
			}
		},
		Stream: func(next runtime.StreamFunc) runtime.StreamFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
				call.Header.Set("Authorization", "Bearer from-interceptor")
				return next(ctx, call, req, send)
			}
		},
	}
	for _, b := range bindings {
		if b.tenant != "" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			j := &journal{}
			addr := b.serve(t, paramsEcho{}).addr
			c := b.dial(t, addr, runtime.WithClientInterceptors(recorder("a", j), recorder("b", j), addHeader),
				runtime.WithHeader("Authorization", "Bearer static"))
			bn := b.callInfoBinding

			ctx, md := runtime.WithResponseMetadata(context.Background())
			task, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(task.GetContextId(), "|Bearer from-interceptor") {
				t.Errorf("the agent saw %q; want the interceptor's Authorization", task.GetContextId())
			}
			if got := md.Extensions(); !slices.Equal(got, []string{"https://ext.example/a"}) {
				t.Errorf("ResponseMetadata.Extensions() = %q after GetTask", got)
			}
			wantLines(t, "unary", j.take(), "a client "+bn+" GetTask - >", "b client "+bn+" GetTask - >", "b < ok", "a < ok")

			ctx, md = runtime.WithResponseMetadata(context.Background())
			n := 0
			for ev, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "s1"}) {
				if err != nil {
					t.Fatal(err)
				}
				if got := md.Extensions(); !slices.Equal(got, []string{"https://ext.example/a"}) {
					t.Errorf("ResponseMetadata.Extensions() = %q at the first event", got)
				}
				if !strings.HasSuffix(ev.GetTask().GetContextId(), "|Bearer from-interceptor") {
					t.Errorf("the agent saw %q on the stream", ev.GetTask().GetContextId())
				}
				n++
			}
			if n != 1 {
				t.Fatalf("%d events, want 1", n)
			}
			wantLines(t, "stream", j.take(), "a client "+bn+" SubscribeToTask - >", "b client "+bn+" SubscribeToTask - >",
				"b event", "a event", "b < ok", "a < ok")

			// Without interceptors the metadata is recorded too.
			plain := b.dial(t, addr)
			ctx, md = runtime.WithResponseMetadata(context.Background())
			if _, err := plain.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1"}); err != nil {
				t.Fatal(err)
			}
			if got := md.Extensions(); !slices.Equal(got, []string{"https://ext.example/a"}) {
				t.Errorf("without interceptors: Extensions() = %q", got)
			}
			// And with interceptors that do not read it (on gRPC the
			// transport then captures it for the ResponseMetadata only).
			blind := b.dial(t, addr, runtime.WithClientInterceptors(runtime.InterceptorFuncs{}))
			ctx, md = runtime.WithResponseMetadata(context.Background())
			if _, err := blind.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1"}); err != nil {
				t.Fatal(err)
			}
			if got := md.Extensions(); !slices.Equal(got, []string{"https://ext.example/a"}) {
				t.Errorf("with a blind interceptor: Extensions() = %q", got)
			}
		})
	}
}

// TestClientInterceptorStreamStop: a caller that stops reading a stream
// early ends the call; the interceptors see the stop as an error and a
// send after it is refused instead of panicking.
func TestClientInterceptorStreamStop(t *testing.T) {
	var sendAfterStop error
	misbehave := runtime.InterceptorFuncs{
		Stream: func(next runtime.StreamFunc) runtime.StreamFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
				err := next(ctx, call, req, send)
				sendAfterStop = send(&a2av1.StreamResponse{})
				return err
			}
		},
	}
	for _, b := range bindings {
		if b.tenant != "" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			j := &journal{}
			addr := b.serve(t, paramsEcho{}).addr
			c := b.dial(t, addr, runtime.WithClientInterceptors(recorder("a", j), misbehave))
			for range c.SubscribeToTask(context.Background(), &a2av1.SubscribeToTaskRequest{Id: "s1"}) {
				break
			}
			if sendAfterStop == nil {
				t.Fatal("a send after the caller stopped reading succeeded")
			}
			// (misbehave's late send goes through a's send too: a second
			// "a event", refused.)
			lines := j.take()
			if len(lines) != 4 || lines[1] != "a event" || lines[3] != "a < a2a: the caller stopped reading the stream" {
				t.Fatalf("journal %q: want the call, the event, the refused late send and the stop as an error", lines)
			}
		})
	}
}

// TestClientReadsResponseTrailers: a caller reads the trailers of an answer
// with WithResponseMetadata, and a client interceptor with
// CallInfo.ResponseTrailer, for unary calls and streams on every binding
// (here a trailer the agent's HTTP middleware or gRPC interceptor adds; on
// HTTP/1.1 a unary answer carries a declared trailer only without a
// Content-Length).
func TestClientReadsResponseTrailers(t *testing.T) {
	for _, b := range bindings {
		if b.tenant != "" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			addr := serveWithTrailer(t, b, paramsEcho{})
			var seen []string
			read := runtime.InterceptorFuncs{
				Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
					return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
						resp, err := next(ctx, call, req)
						seen = append(seen, "unary "+call.ResponseTrailer().Get("X-Served-By"))
						return resp, err
					}
				},
				Stream: func(next runtime.StreamFunc) runtime.StreamFunc {
					return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
						err := next(ctx, call, req, send)
						seen = append(seen, "stream "+call.ResponseTrailer().Get("X-Served-By"))
						return err
					}
				},
			}
			for _, c := range []a2av1.A2AServiceClient{b.dial(t, addr), b.dial(t, addr, runtime.WithClientInterceptors(read))} {
				ctx, md := runtime.WithResponseMetadata(context.Background())
				if _, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1"}); err != nil {
					t.Fatal(err)
				}
				if got := md.Trailer().Get("X-Served-By"); got != "agent-1" {
					t.Errorf("unary: trailer X-Served-By = %q, want agent-1 (trailer %v)", got, md.Trailer())
				}
				ctx, md = runtime.WithResponseMetadata(context.Background())
				for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: "s1"}) {
					if err != nil {
						t.Fatal(err)
					}
				}
				if got := md.Trailer().Get("X-Served-By"); got != "agent-1" {
					t.Errorf("stream: trailer X-Served-By = %q, want agent-1 (trailer %v)", got, md.Trailer())
				}
			}
			wantLines(t, "the interceptor's ResponseTrailer", seen, "unary agent-1", "stream agent-1")
		})
	}
}

// serveWithTrailer serves h on b behind an HTTP middleware (or gRPC
// interceptors) that adds the trailer X-Served-By: agent-1 to every answer.
func serveWithTrailer(t *testing.T, b binding, h a2av1.A2AServiceHandler) string {
	t.Helper()
	switch b.callInfoBinding {
	case runtime.BindingGRPC:
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		trailer := metadata.Pairs("x-served-by", "agent-1")
		srv := grpc.NewServer(
			grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
				_ = grpc.SetTrailer(ctx, trailer)
				return next(ctx, req)
			}),
			grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, next grpc.StreamHandler) error {
				ss.SetTrailer(trailer)
				return next(srv, ss)
			}))
		a2av1.RegisterA2AServiceGRPC(srv, h)
		served := make(chan struct{})
		go func() { defer close(served); _ = srv.Serve(lis) }()
		t.Cleanup(func() { srv.Stop(); <-served })
		return lis.Addr().String()
	default:
		newHandler := a2av1.NewA2AServiceJSONRPCHandler
		if b.callInfoBinding == runtime.BindingHTTPJSON {
			newHandler = a2av1.NewA2AServiceRESTHandler
		}
		next := newHandler(h)
		return serveHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Trailer", "X-Served-By")
			next.ServeHTTP(w, r)
			w.Header().Set("X-Served-By", "agent-1")
		})).addr
	}
}
