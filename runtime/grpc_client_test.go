package runtime

import (
	"context"
	"errors"
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
)

func TestOutgoingMetadata(t *testing.T) {
	tests := []struct {
		name string
		opts []ClientOption
		want []string
	}{
		{"defaults", nil, []string{}},
		{"service defaults", ClientDefaults(testDesc, nil), []string{"a2a-version", "1.0"}},
		{"extensions joined", ClientDefaults(testDesc, []ClientOption{WithExtensions("urn:a", " urn:b ", "")}),
			[]string{"a2a-version", "1.0", "a2a-extensions", "urn:a,urn:b"}},
		{"static headers lower-cased and sorted", ClientDefaults(testDesc, []ClientOption{WithHeader("X-Trace", "1"), WithHeader("Authorization", "Bearer t"), WithHeader("X-Trace", "2")}),
			[]string{"a2a-version", "1.0", "authorization", "Bearer t", "x-trace", "1", "x-trace", "2"}},
		{"a static header replaces a service parameter", []ClientOption{WithProtocolVersion("1.1"), WithHeader("A2A-Version", "0.3"), WithExtensions("urn:a")},
			[]string{"a2a-version", "0.3", "a2a-extensions", "urn:a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newClientConfig(tt.opts).outgoingMetadata(); !slices.Equal(got, tt.want) {
				t.Errorf("metadata = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGRPCTransportRequestTenant(t *testing.T) {
	withTenant := NewGRPCTransportFromConn(nil, WithClientTenant("acme"))
	plain := NewGRPCTransportFromConn(nil)

	req := newMessage(t, mdRequest, `{"text":"x"}`)
	sent := withTenant.request(req)
	if getString(sent, "tenant") != "acme" || getString(req, "tenant") != "" || getString(sent, "text") != "x" {
		t.Errorf("sent %v from %v; want a copy with the tenant", sent, req)
	}
	own := newMessage(t, mdRequest, `{"tenant":"mine"}`)
	if withTenant.request(own) != proto.Message(own) {
		t.Error("a request with its own tenant was copied")
	}
	if plain.request(req) != proto.Message(req) {
		t.Error("a request was copied without a tenant to fill in")
	}
	if _, ok := plain.request(nil).(*emptypb.Empty); !ok {
		t.Error("a nil request is not sent as an empty message")
	}
	typedNil := (*emptypb.Empty)(nil)
	if withTenant.request(typedNil) != proto.Message(typedNil) {
		t.Error("a message without a tenant field was copied")
	}
	invalid := dynamicpb.NewMessageType(mdRequest).Zero().Interface() // read-only, like a typed nil
	if got := withTenant.request(invalid); getString(got, "tenant") != "acme" {
		t.Errorf("invalid message: sent %v, want a new message with the tenant", got)
	}
}

func TestGRPCTransportClose(t *testing.T) {
	tr, err := NewGRPCTransport("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := tr.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	err = tr.Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{}`), newResponse())
	var e *Error
	if err == nil || errors.As(err, &e) {
		t.Fatalf("call on a closed transport: %v, want a transport error", err)
	}

	cc, err := grpc.NewClient("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	if err := NewGRPCTransportFromConn(cc).Close(); err != nil {
		t.Fatal(err)
	}
	if err := cc.Close(); err != nil {
		t.Errorf("the caller's connection was closed by the transport: %v", err)
	}
}

func TestNewGRPCTransportErrors(t *testing.T) {
	if _, err := NewGRPCTransport("https://"); err == nil {
		t.Error("NewGRPCTransport accepted a URL without a host")
	}
}

func TestGRPCTransportMaxResponseBytes(t *testing.T) {
	tr, _, _ := startGRPC(t, newTestService(nil), nil, nil, WithMaxResponseBytes(16))
	err := tr.Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{"text":"a text longer than sixteen bytes"}`), newResponse())
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("a response over WithMaxResponseBytes: %v, want RESOURCE_EXHAUSTED", err)
	}
}

// TestGRPCTransportDialOptions checks that WithGRPCDialOptions reach the
// connection: an interceptor given there sees every call.
func TestGRPCTransportDialOptions(t *testing.T) {
	_, cc, _ := startGRPC(t, newTestService(nil), nil, nil)
	var calls []string
	icpt := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		calls = append(calls, method)
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	tr, err := NewGRPCTransport(cc.Target(), WithGRPCDialOptions(grpc.WithUnaryInterceptor(icpt)))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Unary(context.Background(), testOp("Echo"), newMessage(t, mdRequest, `{}`), newResponse()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, []string{"/rpctest.TestService/Echo"}) {
		t.Errorf("interceptor saw %v", calls)
	}
}

// TestGRPCTransportClosedWhenUnreachable checks that a transport dropped
// without Close releases its connection once garbage collected.
func TestGRPCTransportClosedWhenUnreachable(t *testing.T) {
	cc := func() *grpc.ClientConn {
		tr, err := NewGRPCTransport("127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		return tr.owned
	}()
	deadline := time.Now().Add(10 * time.Second)
	for cc.GetState() != connectivity.Shutdown {
		if time.Now().After(deadline) {
			t.Fatal("the connection of an unreachable transport is still open")
		}
		goruntime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}
