package toolsv2_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	commonv1 "example.com/golden/other_package/common/v1"
	toolsv2 "example.com/golden/other_package/tools/v2"
	"github.com/a2agen/a2agen/runtime"
)

type tools struct {
	toolsv2.UnimplementedToolServiceHandler
}

func (tools) ResolveRef(_ context.Context, ref *commonv1.Ref) (*toolsv2.Tool, error) {
	if ref.GetKind() != "tool" {
		return nil, runtime.InvalidParams("kind must be tool", runtime.FieldViolation{Field: "kind", Description: "must be tool"})
	}
	return &toolsv2.Tool{Name: ref.GetId(), Owner: &commonv1.Ref{Kind: "team", Id: "core"}}, nil
}

// TestCrossPackageTypesOverJSONRPC sends and receives messages of another Go
// package through the generated handler and client.
func TestCrossPackageTypesOverJSONRPC(t *testing.T) {
	srv := httptest.NewServer(toolsv2.NewToolServiceJSONRPCHandler(tools{}))
	defer srv.Close()
	c := toolsv2.NewToolServiceJSONRPCClient(srv.URL)

	tool, err := c.ResolveRef(context.Background(), &commonv1.Ref{Kind: "tool", Id: "hammer"})
	if err != nil || tool.GetName() != "hammer" || tool.GetOwner().GetId() != "core" {
		t.Fatalf("ResolveRef = %v, %v", tool, err)
	}
	// acme.common.v1.Ref.id is REQUIRED: the table crosses packages.
	if _, err := c.ResolveRef(context.Background(), &commonv1.Ref{Kind: "tool"}); !errors.Is(err, runtime.ErrInvalidParams) {
		t.Errorf("ResolveRef without id: %v, want InvalidParams", err)
	}
	for _, err := range c.WatchLabels(context.Background(), &toolsv2.GetToolRefRequest{Name: "hammer"}) {
		if !errors.Is(err, runtime.ErrUnsupportedOperation) {
			t.Errorf("WatchLabels on the unimplemented handler: %v, want UnsupportedOperation", err)
		}
	}
}
