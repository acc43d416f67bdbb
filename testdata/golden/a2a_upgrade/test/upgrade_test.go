package a2av1_test

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	a2av1 "example.com/golden/a2a_upgrade"
	"github.com/a2agen/a2agen/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// upgraded implements the new rpc and reads the new field; every answer
// carries the protocol version the binding negotiated in contextId.
type upgraded struct {
	a2av1.UnimplementedA2AServiceHandler
}

func version(ctx context.Context) string {
	info, _ := runtime.CallInfoFromContext(ctx)
	return info.Version
}

func (upgraded) ArchiveTask(ctx context.Context, req *a2av1.ArchiveTaskRequest) (*a2av1.Task, error) {
	return &a2av1.Task{Id: req.GetId(), ContextId: version(ctx),
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED}}, nil
}

func (upgraded) GetTask(ctx context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	if !req.GetIncludeArtifacts() {
		return nil, runtime.InvalidParams("includeArtifacts did not arrive")
	}
	return &a2av1.Task{Id: req.GetId(), ContextId: version(ctx)}, nil
}

// clients serves upgraded{} on every binding over loopback and returns a
// client factory per binding.
func clients(t *testing.T) map[string]func(...runtime.ClientOption) a2av1.A2AServiceClient {
	t.Helper()
	jsonrpc := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(upgraded{}))
	rest := httptest.NewServer(a2av1.NewA2AServiceRESTHandler(upgraded{}))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(gs, upgraded{})
	go func() { _ = gs.Serve(lis) }()
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cc.Close()
		gs.Stop()
		rest.Close()
		jsonrpc.Close()
	})
	return map[string]func(...runtime.ClientOption) a2av1.A2AServiceClient{
		"JSONRPC": func(o ...runtime.ClientOption) a2av1.A2AServiceClient {
			return a2av1.NewA2AServiceJSONRPCClient(jsonrpc.URL, o...)
		},
		"HTTP+JSON": func(o ...runtime.ClientOption) a2av1.A2AServiceClient {
			return a2av1.NewA2AServiceRESTClient(rest.URL, o...)
		},
		"GRPC": func(o ...runtime.ClientOption) a2av1.A2AServiceClient {
			return a2av1.NewA2AServiceGRPCClientFromConn(cc, o...)
		},
	}
}

// TestVersionUpgradeByRegeneration: generated with protocol_versions=1.1,1.0,
// the service speaks 1.1 (its clients send it), still serves 1.0 clients,
// refuses 0.3 naming both versions, and carries the new rpc and field on
// every binding — with no change to the runtime.
func TestVersionUpgradeByRegeneration(t *testing.T) {
	if got := a2av1.A2AServiceDesc.ProtocolVersions; !slices.Equal(got, []string{"1.1", "1.0"}) {
		t.Fatalf("ProtocolVersions = %q, want [1.1 1.0]", got)
	}
	ctx := context.Background()
	for binding, client := range clients(t) {
		t.Run(binding, func(t *testing.T) {
			task, err := client().ArchiveTask(ctx, &a2av1.ArchiveTaskRequest{Id: "t1", Reason: "done"})
			if err != nil || task.GetId() != "t1" || task.GetContextId() != "1.1" {
				t.Fatalf("ArchiveTask = %v, %v; want task t1 served as 1.1", task, err)
			}
			task, err = client(runtime.WithProtocolVersion("1.0")).GetTask(ctx, &a2av1.GetTaskRequest{Id: "t1", IncludeArtifacts: ptr(true)})
			if err != nil || task.GetContextId() != "1.0" {
				t.Fatalf("GetTask from a 1.0 client = %v, %v; want it served as 1.0 with the new field", task, err)
			}
			_, err = client(runtime.WithProtocolVersion("0.3")).ArchiveTask(ctx, &a2av1.ArchiveTaskRequest{Id: "t1"})
			if !errors.Is(err, runtime.ErrVersionNotSupported) || !strings.Contains(err.Error(), "1.1, 1.0") {
				t.Fatalf("ArchiveTask as 0.3 = %v, want VersionNotSupported naming 1.1, 1.0", err)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
