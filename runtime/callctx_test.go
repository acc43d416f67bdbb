package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The end of a call's context, on the server (a handler giving up because
// its context ended) and on the client (an answer arriving as the caller's
// context ends), on every binding over loopback sockets.

// ctxService serves Echo (unary) and Stream with the same handler logic:
// Stream sends one event first, then both call fail and return its error.
func ctxService(fail func(ctx context.Context) error) *Service {
	newReq := func() *dynamicpb.Message { return dynamicpb.NewMessage(mdRequest) }
	return NewService(restTestDesc,
		NewUnaryEndpoint(restTestDesc.Operation("Echo"), newReq, func(ctx context.Context, _ *dynamicpb.Message) (*dynamicpb.Message, error) {
			return nil, fail(ctx)
		}),
		NewStreamEndpoint(restTestDesc.Operation("Stream"), newReq, func(ctx context.Context, _ *dynamicpb.Message, s Stream[*dynamicpb.Message]) error {
			resp := dynamicpb.NewMessage(mdResponse)
			setString(resp, "text", "first")
			if err := s.Send(resp); err != nil {
				return err
			}
			return fail(ctx)
		}),
	)
}

// bindingClient is a client transport of one binding.
type bindingClient struct {
	binding string
	client  ClientTransport
}

// startBindings serves svc on JSON-RPC, HTTP+JSON and gRPC and returns a
// client of each.
func startBindings(t *testing.T, svc *Service, opts []HandlerOption, grpcOpts []grpc.ServerOption, clientOpts ...ClientOption) []bindingClient {
	t.Helper()
	j := httptest.NewServer(NewJSONRPCHandler(svc, opts...))
	t.Cleanup(j.Close)
	r := httptest.NewServer(NewRESTHandler(svc, opts...))
	t.Cleanup(r.Close)
	g, _, _ := startGRPC(t, svc, grpcOpts, opts, clientOpts...)
	return []bindingClient{
		{BindingJSONRPC, NewJSONRPCTransport(j.URL, append([]ClientOption{WithHTTPClient(j.Client())}, clientOpts...)...)},
		{BindingHTTPJSON, NewRESTTransport(r.URL, append([]ClientOption{WithHTTPClient(r.Client())}, clientOpts...)...)},
		{BindingGRPC, g},
	}
}

// callBoth makes a unary Echo and a Stream call, each with a context of
// its own from newCtx, and returns their errors; the stream's first event
// must arrive.
func callBoth(t *testing.T, c ClientTransport, newCtx func() context.Context) (unary, stream error) {
	t.Helper()
	unary = c.Unary(newCtx(), restOp("Echo"), dynamicpb.NewMessage(mdRequest), newResponse())
	if unary == nil {
		t.Error("Echo succeeded")
	}
	n := 0
	for _, err := range c.Stream(newCtx(), restOp("Stream"), dynamicpb.NewMessage(mdRequest), newResponse) {
		if err != nil {
			stream = err
			break
		}
		n++
	}
	if n != 1 || stream == nil {
		t.Errorf("Stream: %d events, error %v; want 1 event, then an error", n, stream)
	}
	return unary, stream
}

// endCtx is how a test ends the context of a call: by a deadline or by
// canceling it.
type endCtx struct {
	name string
	err  error
	code codes.Code
	end  func(ctx context.Context) (context.Context, context.CancelFunc)
}

// ctxEndAfter is how long a call's context lives: long enough for a stream's
// first event to go out before it ends on a loaded machine (at 30 ms the
// stream tests failed under a load average of 35).
const ctxEndAfter = 250 * time.Millisecond

var ctxEnds = []endCtx{
	{"deadline", context.DeadlineExceeded, codes.DeadlineExceeded, func(ctx context.Context) (context.Context, context.CancelFunc) {
		return context.WithTimeout(ctx, ctxEndAfter)
	}},
	{"cancel", context.Canceled, codes.Canceled, func(ctx context.Context) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(ctxEndAfter, cancel)
		return ctx, cancel
	}},
}

// ctxEndsCall is a gRPC server stream whose context is another one.
type ctxEndsCall struct {
	grpc.ServerStream
	ctx context.Context
}

func (s ctxEndsCall) Context() context.Context { return s.ctx }

// TestGRPCServerAnswersTheEndOfTheCallContext: a handler that returns the
// error of its ended context — as is, wrapped, or as an Internal *Error
// around it — is answered DEADLINE_EXCEEDED or CANCELED without details,
// not INTERNAL with an ErrorInfo, and not logged at error level. The
// context ends by a server interceptor, so that what the client receives
// is the binding's answer (a client deadline would end the call on the
// client first, and grpc-go's own deadline timer would race with the
// handler).
func TestGRPCServerAnswersTheEndOfTheCallContext(t *testing.T) {
	returns := map[string]func(ctx context.Context) error{
		"ctx.Err()": func(ctx context.Context) error { return ctx.Err() },
		"wrapped":   func(ctx context.Context) error { return fmt.Errorf("calling the model: %w", ctx.Err()) },
		"Internal":  func(ctx context.Context) error { return Internal(fmt.Errorf("store: %w", ctx.Err())) },
	}
	for _, end := range ctxEnds {
		for name, ret := range returns {
			t.Run(end.name+"/"+name, func(t *testing.T) {
				logger, logs := newTestLogger()
				svc := ctxService(func(ctx context.Context) error {
					<-ctx.Done()
					return ret(ctx)
				})
				_, cc, _ := startGRPC(t, svc, []grpc.ServerOption{
					grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
						ctx, cancel := end.end(ctx)
						defer cancel()
						return h(ctx, req)
					}),
					grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
						ctx, cancel := end.end(ss.Context())
						defer cancel()
						return h(srv, ctxEndsCall{ss, ctx})
					}),
				}, []HandlerOption{WithLogger(logger)})

				ctx := context.Background()
				var trailer metadata.MD
				err := cc.Invoke(ctx, restOp("Echo").Procedure, dynamicpb.NewMessage(mdRequest), newResponse(), grpc.Trailer(&trailer))
				checkContextStatus(t, "unary", err, end.code)

				cs, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, restOp("Stream").Procedure)
				if err != nil {
					t.Fatal(err)
				}
				if err := cs.SendMsg(dynamicpb.NewMessage(mdRequest)); err != nil {
					t.Fatal(err)
				}
				if err := cs.CloseSend(); err != nil {
					t.Fatal(err)
				}
				if err := cs.RecvMsg(newResponse()); err != nil {
					t.Fatalf("first stream event: %v", err)
				}
				checkContextStatus(t, "stream", cs.RecvMsg(newResponse()), end.code)

				if out := logs.String(); strings.Contains(out, "level=ERROR") || strings.Contains(out, "level=WARN") {
					t.Errorf("logged above debug level:\n%s", out)
				}
			})
		}
	}
}

// TestGRPCAuthenticatorGivingUpAtTheEndOfTheCallContext: the same for an
// Authenticator that gives up (a token introspection call, say) because
// the call's context ended.
func TestGRPCAuthenticatorGivingUpAtTheEndOfTheCallContext(t *testing.T) {
	for _, end := range ctxEnds {
		t.Run(end.name, func(t *testing.T) {
			logger, logs := newTestLogger()
			svc := ctxService(func(context.Context) error { return errors.New("the handler must not run") })
			authenticate := func(ctx context.Context, _ *AuthRequest) (context.Context, error) {
				<-ctx.Done()
				return ctx, fmt.Errorf("introspecting the token: %w", ctx.Err())
			}
			// The call is authenticated before grpc-go's interceptors run
			// (they need the decoded request), so the context ends by a tap
			// handle, which gives the call its context.
			_, cc, _ := startGRPC(t, svc, []grpc.ServerOption{
				grpc.InTapHandle(func(ctx context.Context, _ *tap.Info) (context.Context, error) {
					ctx, cancel := end.end(ctx)
					time.AfterFunc(10*time.Second, cancel)
					return ctx, nil
				}),
			}, []HandlerOption{WithLogger(logger), WithAuthenticator(authenticate)})

			ctx := context.Background()
			err := cc.Invoke(ctx, restOp("Echo").Procedure, dynamicpb.NewMessage(mdRequest), newResponse())
			checkContextStatus(t, "unary", err, end.code)
			cs, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, restOp("Stream").Procedure)
			if err != nil {
				t.Fatal(err)
			}
			if err := cs.SendMsg(dynamicpb.NewMessage(mdRequest)); err != nil {
				t.Fatal(err)
			}
			_ = cs.CloseSend()
			checkContextStatus(t, "stream", cs.RecvMsg(newResponse()), end.code)
			if out := logs.String(); strings.Contains(out, "level=ERROR") || strings.Contains(out, "level=WARN") {
				t.Errorf("logged above debug level:\n%s", out)
			}
		})
	}
}

func checkContextStatus(t *testing.T, call string, err error, want codes.Code) {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("%s: %v is no gRPC status", call, err)
	}
	if st.Code() != want || len(st.Details()) != 0 {
		t.Errorf("%s: %v with details %v, want %v without details", call, st.Code(), st.Details(), want)
	}
}

// TestHandlerTimeoutIsAnInternalError: a handler that runs out of a
// deadline of the agent's own — its own timeout, or one set on the
// request's context by a middleware — answers InternalError (an A2A error
// with its ErrorInfo) saying "deadline exceeded", on every binding; on
// gRPC, where the call's context is still alive, too.
func TestHandlerTimeoutIsAnInternalError(t *testing.T) {
	own := ctxService(func(ctx context.Context) error {
		tctx, cancel := context.WithTimeout(ctx, time.Millisecond)
		defer cancel()
		<-tctx.Done()
		return fmt.Errorf("asking the model: %w", tctx.Err())
	})
	for _, b := range startBindings(t, own, []HandlerOption{WithLogger(slogDiscard())}, nil) {
		t.Run("own timeout/"+b.binding, func(t *testing.T) {
			unary, stream := callBoth(t, b.client, context.Background)
			checkTimeoutError(t, "unary", unary)
			checkTimeoutError(t, "stream", stream)
		})
	}

	// A middleware's deadline on the HTTP request.
	logger, logs := newTestLogger()
	mw := ctxService(func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	withDeadline := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), 20*time.Millisecond)
			defer cancel()
			h.ServeHTTP(w, r.WithContext(ctx))
		})
	}
	for _, b := range []struct {
		binding string
		handler http.Handler
		client  func(url string, opts ...ClientOption) ClientTransport
	}{
		{BindingJSONRPC, NewJSONRPCHandler(mw, WithLogger(logger)), NewJSONRPCTransport},
		{BindingHTTPJSON, NewRESTHandler(mw, WithLogger(logger)), NewRESTTransport},
	} {
		t.Run("middleware deadline/"+b.binding, func(t *testing.T) {
			srv := httptest.NewServer(withDeadline(b.handler))
			defer srv.Close()
			unary, stream := callBoth(t, b.client(srv.URL, WithHTTPClient(srv.Client())), context.Background)
			checkTimeoutError(t, "unary", unary)
			checkTimeoutError(t, "stream", stream)
		})
	}
	if out := logs.String(); strings.Count(out, "level=ERROR") != 4 {
		t.Errorf("want the 4 timeouts logged at error level, got:\n%s", out)
	}
}

func checkTimeoutError(t *testing.T, call string, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code() != CodeInternal || e.Message() != "deadline exceeded" {
		t.Errorf("%s: %v, want Internal: deadline exceeded", call, err)
		return
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%s: %v reads as the caller's own deadline", call, err)
	}
}

// lateContext is a context whose deadline has passed before its timer
// fired (a loaded machine, a descheduled timer goroutine): Deadline
// reports the deadline, while Done and Err follow the parent only.
type lateContext struct {
	context.Context
	deadline time.Time
}

func (c lateContext) Deadline() (time.Time, bool) { return c.deadline, true }

// TestClientsReportTheCallersDeadline: an answer that arrives after the
// caller's deadline — an A2A error here, or on gRPC the agent's own
// DEADLINE_EXCEEDED — is reported as context.DeadlineExceeded, also before
// the caller's context noticed, on every binding, for unary calls and
// streams.
func TestClientsReportTheCallersDeadline(t *testing.T) {
	var deadline atomic.Int64 // unix nanoseconds, set before each call; read by the handlers
	svc := ctxService(func(context.Context) error {
		time.Sleep(time.Until(time.Unix(0, deadline.Load())) + 20*time.Millisecond)
		return TaskNotFound("t1")
	})
	for _, b := range startBindings(t, svc, []HandlerOption{WithLogger(slogDiscard())}, nil) {
		t.Run(b.binding, func(t *testing.T) {
			parent, cancel := context.WithCancel(context.Background())
			defer cancel()
			unary, stream := callBoth(t, b.client, func() context.Context {
				d := time.Now().Add(150 * time.Millisecond)
				deadline.Store(d.UnixNano())
				return lateContext{parent, d}
			})
			if !errors.Is(unary, context.DeadlineExceeded) {
				t.Errorf("unary: %v, want context.DeadlineExceeded", unary)
			}
			if !errors.Is(stream, context.DeadlineExceeded) {
				t.Errorf("stream: %v, want context.DeadlineExceeded", stream)
			}
		})
	}
}

// TestClientsReportTheCallersCancellation: a caller that cancels while the
// agent's answer (an A2A error) arrives gets context.Canceled, on every
// binding, for unary calls and streams. The cancellation is made to come
// exactly then: by a gRPC client interceptor once the call's status is in,
// and by an HTTP round tripper once the whole response is read.
func TestClientsReportTheCallersCancellation(t *testing.T) {
	svc := ctxService(func(context.Context) error { return TaskNotFound("t1") })
	type cancelKey struct{}
	cancelOf := func(ctx context.Context) context.CancelFunc { return ctx.Value(cancelKey{}).(context.CancelFunc) }
	httpClient := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		cancelOf(r.Context())()
		return resp, nil
	})}
	dial := WithGRPCDialOptions(
		grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			err := invoker(ctx, method, req, reply, cc, opts...)
			cancelOf(ctx)()
			return err
		}),
		grpc.WithStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			cs, err := streamer(ctx, desc, cc, method, opts...)
			if err != nil {
				return nil, err
			}
			return cancelOnError{cs, cancelOf(ctx)}, nil
		}),
	)
	quiet := []HandlerOption{WithLogger(slogDiscard())}
	j := httptest.NewServer(NewJSONRPCHandler(svc, quiet...))
	defer j.Close()
	r := httptest.NewServer(NewRESTHandler(svc, quiet...))
	defer r.Close()
	_, cc, _ := startGRPC(t, svc, nil, quiet)
	g, err := NewGRPCTransport(cc.Target(), dial)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, b := range []bindingClient{
		{BindingJSONRPC, NewJSONRPCTransport(j.URL, WithHTTPClient(httpClient))},
		{BindingHTTPJSON, NewRESTTransport(r.URL, WithHTTPClient(httpClient))},
		{BindingGRPC, g},
	} {
		t.Run(b.binding, func(t *testing.T) {
			unary, stream := callBoth(t, b.client, func() context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				t.Cleanup(cancel)
				return context.WithValue(ctx, cancelKey{}, cancel)
			})
			if !errors.Is(unary, context.Canceled) {
				t.Errorf("unary: %v, want context.Canceled", unary)
			}
			if !errors.Is(stream, context.Canceled) {
				t.Errorf("stream: %v, want context.Canceled", stream)
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// cancelOnError is a gRPC client stream that cancels its call when it
// receives the call's status, before handing it on.
type cancelOnError struct {
	grpc.ClientStream
	cancel context.CancelFunc
}

func (s cancelOnError) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil {
		s.cancel()
	}
	return err
}
