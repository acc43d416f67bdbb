package a2av1_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/testagent"
	"github.com/a2agen/a2agen/runtime"
)

// TestWireNameConstantsRouteCalls uses the exported per-rpc constants the way
// interceptors and routing code do: a server interceptor compares the call's
// operation against them, a raw JSON-RPC request names its method with one and
// a raw gRPC call its procedure.
func TestWireNameConstantsRouteCalls(t *testing.T) {
	seen := make(chan [2]string, 4)
	spy := runtime.InterceptorFuncs{
		Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
				seen <- [2]string{call.Operation.Procedure, call.Operation.Name}
				return next(ctx, call, req)
			}
		},
	}
	want := [2]string{a2av1.A2AServiceGetTaskProcedure, a2av1.A2AServiceGetTaskJSONRPCMethod}

	url := serveJSONRPC(t, testagent.New(), runtime.WithInterceptors(spy))
	body := `{"jsonrpc":"2.0","id":1,"method":"` + a2av1.A2AServiceGetTaskJSONRPCMethod + `","params":{"id":"nope"}}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out rpcResponse
	err = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if err != nil || out.Error == nil || out.Error.Code != -32001 {
		t.Fatalf("GetTask by constant: %+v, %v; want TaskNotFound (the method was routed)", out, err)
	}
	if got := <-seen; got != want {
		t.Errorf("JSON-RPC call seen as %q, want %q", got, want)
	}

	srv := serveGRPC(t, testagent.New(), runtime.WithInterceptors(spy))
	cc := dialGRPC(t, srv.addr)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "a2a-version", "1.0")
	err = cc.Invoke(ctx, a2av1.A2AServiceGetTaskProcedure, &a2av1.GetTaskRequest{Id: "nope"}, new(a2av1.Task))
	if st, _ := status.FromError(err); st.Code() != codes.NotFound {
		t.Fatalf("gRPC GetTask by constant: %v, want TaskNotFound", err)
	}
	if got := <-seen; got != want {
		t.Errorf("gRPC call seen as %q, want %q", got, want)
	}

	for _, op := range a2av1.A2AServiceDesc.Operations {
		if !strings.HasPrefix(op.Procedure, "/"+a2av1.A2AServiceName+"/") {
			t.Errorf("%s: procedure %q is not under %s", op.Name, op.Procedure, a2av1.A2AServiceName)
		}
	}
}
