package runtime

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// startGRPC serves the fixture service over gRPC on a loopback TCP socket
// and returns a transport over a connection to it.
func startGRPC(t *testing.T, svc *Service, serverOpts []grpc.ServerOption, opts []HandlerOption, clientOpts ...ClientOption) (*GRPCTransport, *grpc.ClientConn, *grpc.Server) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(serverOpts...)
	RegisterGRPC(srv, svc, opts...)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return NewGRPCTransportFromConn(cc, clientOpts...), cc, srv
}

func TestGRPCServiceDescFromOperationTable(t *testing.T) {
	_, _, srv := startGRPC(t, newTestService(nil), nil, nil)
	info, ok := srv.GetServiceInfo()["rpctest.TestService"]
	if !ok {
		t.Fatalf("services = %v, want rpctest.TestService", srv.GetServiceInfo())
	}
	var got []string
	for _, m := range info.Methods {
		kind := "unary"
		if m.IsServerStream {
			kind = "server-stream"
		}
		if m.IsClientStream {
			kind += "+client-stream"
		}
		got = append(got, m.Name+":"+kind)
	}
	slices.Sort(got)
	want := []string{"Block:server-stream", "Delete:unary", "Echo:unary", "Fail:unary", "Send:unary", "Stream:server-stream"}
	if !slices.Equal(got, want) {
		t.Errorf("methods = %v, want %v", got, want)
	}
}

func TestGRPCServiceParameters(t *testing.T) {
	tr, _, _ := startGRPC(t, newTestService(nil), nil, []HandlerOption{WithTenant("acme")},
		WithExtensions("urn:a", "urn:b"), WithHeader("Authorization", "Bearer xyz"), WithClientTenant("acme"))
	req := newMessage(t, mdRequest, `{"text":"hi"}`)
	resp := newResponse()
	if err := tr.Unary(context.Background(), testOp("Echo"), req, resp); err != nil {
		t.Fatal(err)
	}
	got := []string{getString(resp, "text"), getString(resp, "tenant"), getString(resp, "version"),
		strings.Join(getStrings(resp, "extensions"), ","), getString(resp, "authorization")}
	if want := []string{"hi", "acme", "1.0", "urn:a,urn:b", "Bearer xyz"}; !slices.Equal(got, want) {
		t.Errorf("handler saw %q, want %q", got, want)
	}
	if getString(req, "tenant") != "" {
		t.Errorf("the caller's request was modified: tenant %q", getString(req, "tenant"))
	}
}

func TestGRPCActivatedExtensionsEcho(t *testing.T) {
	_, cc, _ := startGRPC(t, newTestService(nil), nil, nil)
	var header, trailer metadata.MD
	req := newMessage(t, mdRequest, `{"activate":["urn:x","urn:y"]}`)
	err := cc.Invoke(context.Background(), "/rpctest.TestService/Echo", req, newResponse(), grpc.Header(&header), grpc.Trailer(&trailer))
	if err != nil {
		t.Fatal(err)
	}
	if got := header.Get("a2a-extensions"); !slices.Equal(got, []string{"urn:x,urn:y"}) {
		t.Errorf("header a2a-extensions = %q", got)
	}
	if got := trailer.Get("a2a-extensions"); !slices.Equal(got, []string{"urn:x,urn:y"}) {
		t.Errorf("trailer a2a-extensions = %q", got)
	}
	// Nothing activated: no a2a-extensions at all.
	header, trailer = nil, nil
	if err := cc.Invoke(context.Background(), "/rpctest.TestService/Echo", newMessage(t, mdRequest, `{}`), newResponse(), grpc.Header(&header), grpc.Trailer(&trailer)); err != nil {
		t.Fatal(err)
	}
	if header.Get("a2a-extensions") != nil || trailer.Get("a2a-extensions") != nil {
		t.Errorf("a2a-extensions sent without activation: header %v, trailer %v", header, trailer)
	}
}

func TestGRPCHandlerFailures(t *testing.T) {
	logger, logs := newTestLogger()
	tr, _, _ := startGRPC(t, newTestService(nil), nil, []HandlerOption{WithLogger(logger)})
	tests := []struct {
		fail     string
		code     ErrorCode
		message  string
		logged   string
		grpcCode codes.Code
	}{
		{"plain", CodeInternal, "internal error", "hunter2", codes.Internal},
		{"panic", CodeInternal, "internal error", "fixture panic", codes.Internal},
		{"typed-nil", CodeInternal, "internal error", "nil *Error", codes.Internal},
		{"TaskNotFound", CodeTaskNotFound, "fixture TaskNotFound", "", codes.NotFound},
		{"InvalidAgentResponse", CodeInvalidAgentResponse, "fixture InvalidAgentResponse", "fixture InvalidAgentResponse", codes.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.fail, func(t *testing.T) {
			err := tr.Unary(context.Background(), testOp("Fail"), newMessage(t, mdRequest, `{"fail":"`+tt.fail+`"}`), newResponse())
			var e *Error
			if !errors.As(err, &e) || e.Code() != tt.code || e.Message() != tt.message {
				t.Fatalf("error %v, want %v with message %q", err, tt.code, tt.message)
			}
			if status.Code(err) != tt.grpcCode {
				t.Errorf("status code %v, want %v", status.Code(err), tt.grpcCode)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "goroutine") {
				t.Errorf("internal detail leaked to the client: %v", err)
			}
			if tt.logged != "" && !strings.Contains(logs.String(), tt.logged) {
				t.Errorf("log lacks %q:\n%s", tt.logged, logs)
			}
		})
	}
}

func TestGRPCValidation(t *testing.T) {
	tr, _, _ := startGRPC(t, newTestService(nil), nil, nil)
	err := tr.Unary(context.Background(), testOp("Send"), newMessage(t, mdSendRequest, `{"message":{"messageId":"m"}}`), newResponse())
	var e *Error
	if !errors.As(err, &e) || e.Code() != CodeInvalidParams {
		t.Fatalf("error %v, want InvalidParams", err)
	}
	var fields []string
	for _, v := range e.FieldViolations() {
		fields = append(fields, v.Field)
	}
	if want := []string{"message.role", "message.parts"}; !slices.Equal(fields, want) {
		t.Errorf("violations = %v, want %v", fields, want)
	}
}

func TestGRPCStreams(t *testing.T) {
	tr, _, _ := startGRPC(t, newTestService(nil), nil, []HandlerOption{WithLogger(slogDiscard())})
	tests := []struct {
		name   string
		req    string
		events int
		err    ErrorCode
	}{
		{"three events", `{"count":3,"text":"x"}`, 3, 0},
		{"no events", `{"count":0}`, 0, 0},
		{"error after two", `{"count":3,"fail":"TaskNotFound","failAfter":2}`, 2, CodeTaskNotFound},
		{"error before the first", `{"count":3,"fail":"UnsupportedOperation","failAfter":0}`, 0, CodeUnsupportedOperation},
		{"internal error after all", `{"count":1,"fail":"plain","failAfter":1}`, 1, CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n int
			var last error
			for m, err := range tr.Stream(context.Background(), testOp("Stream"), newMessage(t, mdRequest, tt.req), newResponse) {
				if err != nil {
					last = err
					break
				}
				if getInt(m, "seq") != int32(n) {
					t.Errorf("event %d has seq %d", n, getInt(m, "seq"))
				}
				n++
			}
			if n != tt.events {
				t.Errorf("%d events, want %d", n, tt.events)
			}
			var e *Error
			switch {
			case tt.err == 0 && last != nil:
				t.Errorf("stream error %v, want none", last)
			case tt.err != 0 && (!errors.As(last, &e) || e.Code() != tt.err):
				t.Errorf("stream error %v, want %v", last, tt.err)
			}
		})
	}
}

// TestGRPCStreamCancelEndsHandler stops reading after the first event; the
// handler's context must end and its next Send must fail.
func TestGRPCStreamCancelEndsHandler(t *testing.T) {
	done := make(chan error, 1)
	tr, _, _ := startGRPC(t, newTestService(done), nil, []HandlerOption{WithLogger(slogDiscard())})
	for _, err := range tr.Stream(context.Background(), testOp("Block"), newMessage(t, mdRequest, `{}`), newResponse) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Send succeeded after the client went away")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("handler still blocked 10s after the client stopped reading")
	}
}

// TestGRPCStreamSendAfterReturn keeps the Stream past the handler's return.
func TestGRPCStreamSendAfterReturn(t *testing.T) {
	late := make(chan error, 1)
	var mu sync.Mutex
	var kept Stream[proto.Message]
	svc := NewService(&ServiceDesc{Name: "rpctest.TestService", Operations: []Operation{
		{Name: "Stream", Procedure: "/rpctest.TestService/Stream", ServerStreaming: true},
	}}, NewStreamEndpoint(&Operation{Name: "Stream", Procedure: "/rpctest.TestService/Stream", ServerStreaming: true},
		func() proto.Message { return newResponse() },
		func(ctx context.Context, _ proto.Message, s Stream[proto.Message]) error {
			mu.Lock()
			kept = s
			mu.Unlock()
			return s.Send(newResponse())
		}))
	tr, _, _ := startGRPC(t, svc, nil, nil)
	for _, err := range tr.Stream(context.Background(), &Operation{Name: "Stream", Procedure: "/rpctest.TestService/Stream"}, newResponse(), newResponse) {
		if err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	go func() { late <- kept.Send(newResponse()) }()
	mu.Unlock()
	if err := <-late; err == nil {
		t.Fatal("Send after the handler returned succeeded")
	}
}

func TestGRPCInterceptorsSeeEveryCall(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
	}
	unary := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		resp, err := handler(ctx, req)
		record(info.FullMethod + " " + status.Code(err).String())
		return resp, err
	}
	stream := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		err := handler(srv, ss)
		record(info.FullMethod + " " + status.Code(err).String())
		return err
	}
	tr, _, _ := startGRPC(t, newTestService(nil), []grpc.ServerOption{grpc.UnaryInterceptor(unary), grpc.StreamInterceptor(stream)}, nil)
	_ = tr.Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{}`), newResponse())
	_ = tr.Unary(context.Background(), testOp("Send"), newMessage(t, mdSendRequest, `{}`), newResponse())
	for range tr.Stream(context.Background(), testOp("Stream"), newMessage(t, mdRequest, `{"count":1}`), newResponse) {
	}
	want := []string{"/rpctest.TestService/Echo OK", "/rpctest.TestService/Send InvalidArgument", "/rpctest.TestService/Stream OK"}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, want) {
		t.Errorf("interceptors saw %q, want %q", seen, want)
	}
}

func TestGRPCVersionNegotiation(t *testing.T) {
	_, cc, _ := startGRPC(t, newTestService(nil), nil, []HandlerOption{WithVersionPolicy(VersionStrict), WithSupportedVersions("1.0", "0.3")})
	tests := []struct {
		md      []string
		version string
		err     ErrorCode
	}{
		{nil, "0.3", 0}, // strict: absent means 0.3, which this interface serves
		{[]string{"a2a-version", "1.0.3"}, "1.0", 0},
		{[]string{"a2a-version", "", "a2a-version", "1.0"}, "1.0", 0},
		{[]string{"a2a-version", "2.0"}, "", CodeVersionNotSupported},
		{[]string{"a2a-version", "one"}, "", CodeVersionNotSupported},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.md, "="), func(t *testing.T) {
			ctx := metadata.NewOutgoingContext(context.Background(), metadata.Pairs(tt.md...))
			// grpc-go directly, so that no a2a-version is added.
			resp := newResponse()
			err := cc.Invoke(ctx, "/rpctest.TestService/Echo", newMessage(t, mdRequest, `{}`), resp)
			if tt.err != 0 {
				var e *Error
				if !errors.As(grpcCallError(ctx, "Echo", err), &e) || e.Code() != tt.err {
					t.Fatalf("error %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil || getString(resp, "version") != tt.version {
				t.Fatalf("version %q, %v; want %q", getString(resp, "version"), err, tt.version)
			}
		})
	}
}

func TestHeaderFromIncomingMetadata(t *testing.T) {
	ctx := metadata.NewIncomingContext(context.Background(), metadata.MD{
		":authority":     {"agent.example"},
		"authorization":  {"Bearer a"},
		"a2a-extensions": {"urn:a", "urn:b,urn:c"},
		"a2a-version":    {"1.0"},
		"x-trace-id":     {"abc"},
		"x-blob-bin":     {"\x00\x01"},
	})
	h := headerFromIncomingMetadata(ctx)
	want := http.Header{
		"Authorization":  {"Bearer a"},
		"A2a-Extensions": {"urn:a", "urn:b,urn:c"},
		"A2a-Version":    {"1.0"},
		"X-Trace-Id":     {"abc"},
		"X-Blob-Bin":     {"\x00\x01"},
	}
	if len(h) != len(want) {
		t.Fatalf("header = %v, want %v", h, want)
	}
	for k, v := range want {
		if !slices.Equal(h[k], v) {
			t.Errorf("header[%s] = %q, want %q", k, h[k], v)
		}
	}
	if h.Get("Authorization") != "Bearer a" {
		t.Errorf("Get(Authorization) = %q", h.Get("Authorization"))
	}
	if len(headerFromIncomingMetadata(context.Background())) != 0 {
		t.Error("a context without metadata yields headers")
	}
}

// TestGRPCAbortPanicDoesNotCrash: http.ErrAbortHandler means "abort the
// response" to net/http; on gRPC it must not escape (grpc-go recovers
// nothing, so it would end the process).
func TestGRPCAbortPanicDoesNotCrash(t *testing.T) {
	op := &Operation{Name: "Echo", Procedure: "/rpctest.TestService/Echo"}
	svc := NewService(&ServiceDesc{Name: "rpctest.TestService", Operations: []Operation{*op}},
		NewUnaryEndpoint(op, func() proto.Message { return newResponse() },
			func(context.Context, proto.Message) (proto.Message, error) { panic(http.ErrAbortHandler) }))
	tr, _, _ := startGRPC(t, svc, nil, []HandlerOption{WithLogger(slogDiscard())})
	err := tr.Unary(context.Background(), op, newResponse(), newResponse())
	if !errors.Is(err, ErrInternal) {
		t.Fatalf("aborting handler: %v, want Internal", err)
	}
}
