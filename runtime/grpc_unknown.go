package runtime

import (
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// GRPCUnknownServiceHandler is the handler of calls to a method no service
// of the gRPC server has, for grpc.UnknownServiceHandler:
//
//	grpc.NewServer(grpc.UnknownServiceHandler(runtime.GRPCUnknownServiceHandler(opts...)))
//
// With the WithAuthenticator of opts (give it the HandlerOptions of
// RegisterGRPC) the call is authenticated first, as on the HTTP bindings
// (A2A §7.4: every incoming request): a caller without valid credentials
// gets UNAUTHENTICATED (or PERMISSION_DENIED) with its challenges as
// www-authenticate trailer metadata, and so learns nothing of which methods
// exist; an authenticated caller, or any caller without an Authenticator,
// gets UNIMPLEMENTED, as from grpc-go without the option. The request
// message is never read.
func GRPCUnknownServiceHandler(opts ...HandlerOption) grpc.StreamHandler {
	c := newHandlerConfig(opts)
	return func(_ any, ss grpc.ServerStream) error {
		method, _ := grpc.MethodFromServerStream(ss)
		if c.authenticator != nil {
			ctx := ss.Context()
			info := &CallInfo{Binding: BindingGRPC, Header: headerFromIncomingMetadata(ctx)}
			if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
				info.Peer = p.Addr.String()
			}
			if _, e := c.authenticate(ctx, c.grpcAuthRequest(ctx, info)); e != nil {
				if ctxErr := handlerContextErr(ctx, e); ctxErr != nil {
					return grpcContextStatus(ctxErr)
				}
				if md := grpcChallenges(e); md != nil {
					ss.SetTrailer(md)
				}
				return grpcStatus(e, time.Now()).Err()
			}
		}
		return status.Errorf(codes.Unimplemented, "unknown method %s", method)
	}
}
