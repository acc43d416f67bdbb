package a2av1a2a_test

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	a2av1 "example.com/golden/grpc_coexist"
	"example.com/golden/grpc_coexist/a2av1a2a"
	"github.com/a2agen/a2agen/runtime"
)

type agent struct {
	a2av1a2a.UnimplementedA2AServiceHandler
}

func (agent) GetTask(_ context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	if req.GetId() != "t-1" {
		return nil, runtime.TaskNotFound(req.GetId())
	}
	return &a2av1.Task{Id: "t-1", ContextId: "c-1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}, nil
}

// TestGRPCStubsClientCallsA2AServer serves the A2A bindings' gRPC
// registration and calls it with protoc-gen-go-grpc's client of the same
// package, then with the A2A client: one wire, two generated clients.
func TestGRPCStubsClientCallsA2AServer(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	a2av1a2a.RegisterA2AServiceGRPC(srv, agent{})
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()

	ctx := metadata.AppendToOutgoingContext(context.Background(), "a2a-version", "1.0")
	task, err := a2av1.NewA2AServiceClient(cc).GetTask(ctx, &a2av1.GetTaskRequest{Id: "t-1"})
	if err != nil || task.GetContextId() != "c-1" {
		t.Fatalf("protoc-gen-go-grpc client GetTask = %v, %v", task, err)
	}
	task, err = a2av1a2a.NewA2AServiceGRPCClientFromConn(cc).GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t-1"})
	if err != nil || task.GetContextId() != "c-1" {
		t.Fatalf("A2A gRPC client GetTask = %v, %v", task, err)
	}
	if a2av1.A2AService_GetTask_FullMethodName != a2av1a2a.A2AServiceGetTaskProcedure {
		t.Errorf("protoc-gen-go-grpc names GetTask %q, protoc-gen-a2a %q", a2av1.A2AService_GetTask_FullMethodName, a2av1a2a.A2AServiceGetTaskProcedure)
	}
}

// TestJSONRPCNextToGRPCStubs serves the JSON-RPC binding of the suffixed
// package over loopback HTTP.
func TestJSONRPCNextToGRPCStubs(t *testing.T) {
	srv := httptest.NewServer(a2av1a2a.NewA2AServiceJSONRPCHandler(agent{}))
	defer srv.Close()
	c := a2av1a2a.NewA2AServiceJSONRPCClient(srv.URL)
	if task, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t-1"}); err != nil || task.GetId() != "t-1" {
		t.Fatalf("GetTask = %v, %v", task, err)
	}
	if _, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "nope"}); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Errorf("GetTask(nope) = %v, want TaskNotFound", err)
	}
}

// The protoc-gen-go-grpc server side links next to the A2A one.
var _ a2av1.A2AServiceServer = a2av1.UnimplementedA2AServiceServer{}
