package runtime

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// TestGRPCUnknownMethodsAreAuthenticatedFirst: with GRPCUnknownServiceHandler
// and an Authenticator, a call to a method or service the server does not
// have is authenticated like any other (A2A §7.4), over a real loopback gRPC
// connection: without credentials, or with wrong ones, it is UNAUTHENTICATED
// with the challenge in the www-authenticate trailer; with valid ones it is
// UNIMPLEMENTED. Unary and streaming calls alike.
func TestGRPCUnknownMethodsAreAuthenticatedFirst(t *testing.T) {
	authn := WithAuthenticator(func(ctx context.Context, r *AuthRequest) (context.Context, error) {
		if r.Info.Operation != nil {
			t.Errorf("AuthRequest of an unknown method names operation %q", r.Info.Operation.Name)
		}
		if r.Header.Get("Authorization") != "Bearer ok" {
			return nil, NewError(CodeUnauthenticated, "a bearer token is required")
		}
		return ctx, nil
	}, `Bearer realm="test"`)
	opts := []HandlerOption{authn, WithLogger(slogDiscard())}
	_, cc, _ := startGRPC(t, newTestService(nil), []grpc.ServerOption{grpc.UnknownServiceHandler(GRPCUnknownServiceHandler(opts...))}, opts)

	call := func(method, token string, stream bool) (codes.Code, []string) {
		t.Helper()
		ctx := context.Background()
		if token != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
		}
		var trailer metadata.MD
		var err error
		if stream {
			var cs grpc.ClientStream
			cs, err = cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, method)
			if err == nil {
				if err = cs.SendMsg(&emptypb.Empty{}); err == nil {
					_ = cs.CloseSend()
					err = cs.RecvMsg(&emptypb.Empty{})
				}
				trailer = cs.Trailer()
			}
		} else {
			err = cc.Invoke(ctx, method, &emptypb.Empty{}, &emptypb.Empty{}, grpc.Trailer(&trailer))
		}
		return status.Code(err), trailer.Get("www-authenticate")
	}
	for _, method := range []string{"/rpctest.TestService/NoSuchMethod", "/no.such.Service/Call"} {
		for _, stream := range []bool{false, true} {
			for _, token := range []string{"", "wrong"} {
				code, challenges := call(method, token, stream)
				if code != codes.Unauthenticated || len(challenges) != 1 || challenges[0] != `Bearer realm="test"` {
					t.Errorf("%s (stream %v, token %q): %v, www-authenticate %q; want Unauthenticated with the challenge", method, stream, token, code, challenges)
				}
			}
			if code, challenges := call(method, "ok", stream); code != codes.Unimplemented || len(challenges) != 0 {
				t.Errorf("%s (stream %v) with credentials: %v, www-authenticate %q; want Unimplemented", method, stream, code, challenges)
			}
		}
	}
}

// TestGRPCUnknownServiceHandlerWithoutAuthenticator answers Unimplemented,
// as grpc-go does without the option.
func TestGRPCUnknownServiceHandlerWithoutAuthenticator(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.UnknownServiceHandler(GRPCUnknownServiceHandler()))
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	err = cc.Invoke(context.Background(), "/no.such.Service/Call", &emptypb.Empty{}, &emptypb.Empty{})
	if status.Code(err) != codes.Unimplemented {
		t.Fatalf("%v, want Unimplemented", err)
	}
}
