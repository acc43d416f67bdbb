package main

import "github.com/a2agen/a2agen/host"

// hosting adds to the agent what agent.yaml does not describe. cfg already
// holds the agent of agent.yaml (cards, bindings, skills, route,
// verifiers); set more of its fields here:
//
//   - Routes: handlers of your own on every HTTP address, next to the agent
//     card and the bindings (a pattern that clashes with theirs fails at
//     start);
//   - HTTPMiddleware: wraps everything served on the HTTP addresses, the
//     first one outermost (request ids, access logs, security headers);
//   - GRPCServerOptions: options of the gRPC server (message sizes,
//     keepalive, stats handlers);
//   - Interceptors: wrap every A2A call on every binding, refused ones
//     included, and see its operation, CallInfo, caller, request and
//     outcome (runtime.InterceptorFuncs).
//
// Other fields of host.Config, such as Logger and Limits, can be set
// too. The generated tests start the agent with what hosting sets.
// a2a-scaffold wrote this file once and never modifies it.
func hosting(cfg *host.Config) {
	// For instance (with the imports context, log/slog, net/http,
	// google.golang.org/grpc, google.golang.org/protobuf/proto and
	// github.com/a2agen/a2agen/runtime):
	//
	//	cfg.Routes = func(mux *http.ServeMux) {
	//		mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
	//			w.Write([]byte("1.0.0\n"))
	//		})
	//	}
	//	cfg.HTTPMiddleware = append(cfg.HTTPMiddleware, func(next http.Handler) http.Handler {
	//		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	//			w.Header().Set("X-Content-Type-Options", "nosniff")
	//			next.ServeHTTP(w, r)
	//		})
	//	})
	//	cfg.GRPCServerOptions = append(cfg.GRPCServerOptions, grpc.MaxRecvMsgSize(16<<20))
	//	cfg.Interceptors = append(cfg.Interceptors, runtime.InterceptorFuncs{
	//		Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
	//			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
	//				resp, err := next(ctx, call, req)
	//				if err != nil {
	//					slog.WarnContext(ctx, "call failed", "operation", call.Operation.Name, "error", err)
	//				}
	//				return resp, err
	//			}
	//		},
	//	})
}
