// Package a2av03grpc is A2A v0.3 over gRPC for a2agen: conversions between
// the v0.3 proto messages (package a2av03pb, proto package a2a.v1) and the
// v1.0 ones (package a2av1, lf.a2a.v1), a server adapter that serves
// a2a.v1.A2AService from the same a2av1.A2AServiceHandler (and so the same
// Executor and store) as lf.a2a.v1.A2AService, and a client transport that
// lets the typed v1.0 client call a v0.3-only gRPC agent.
//
//	srv := grpc.NewServer()
//	a2av1.RegisterA2AServiceGRPC(srv, handler, opts...)
//	a2av03grpc.Register(srv, handler, opts...) // v0.3 clients too
//
//	t, _ := runtime.NewGRPCTransport(target, runtime.ClientDefaults(&a2av03pb.A2AServiceDesc, nil)...)
//	client := a2av1.NewA2AServiceClient(a2av03grpc.NewTransport(t))
//
// v0.3 names tasks and push configs by resource name ("tasks/{id}",
// "tasks/{id}/pushNotificationConfigs/{config}"); a name of another form is
// InvalidParams naming the field. Errors travel as on v1.0 (gRPC code plus
// google.rpc.ErrorInfo), which v0.3 clients read by their code, so a v0.3
// agent's errors come back as the same *runtime.Error codes. Conversions
// without an exact counterpart are listed in Lossy and in docs/bindings.md.
package a2av03grpc
