package runtime

import (
	"context"
	"net/http"
	"sync"
)

// CallInfo is what a handler can learn about the call it serves, whatever the
// binding: the operation, the negotiated protocol version, the extensions the
// client asked for, the tenant, and the request headers (gRPC metadata is
// presented as headers, so Authorization is read the same way everywhere).
type CallInfo struct {
	Operation *Operation
	Binding   string // BindingJSONRPC, BindingREST or BindingGRPC
	// Version is the negotiated A2A protocol version, Major.Minor ("1.0").
	Version string
	// Extensions are the extension URIs requested in A2A-Extensions, split on
	// commas, trimmed, repeated headers merged, duplicates removed, in order.
	Extensions []string
	// Tenant is the tenant of the request (params.tenant, the /{tenant} path
	// segment, or the gRPC request field).
	Tenant string
	// Header holds the request headers (or gRPC metadata).
	Header http.Header

	mu        sync.Mutex
	activated []string
}

type callInfoKey struct{}

// WithCallInfo returns a context carrying info. Binding routers call it; tests
// of handlers may call it too.
func WithCallInfo(ctx context.Context, info *CallInfo) context.Context {
	return context.WithValue(ctx, callInfoKey{}, info)
}

// CallInfoFromContext returns the CallInfo of the call being served.
func CallInfoFromContext(ctx context.Context) (*CallInfo, bool) {
	info, ok := ctx.Value(callInfoKey{}).(*CallInfo)
	return info, ok
}

// ActivateExtension records that the handler activated extension uri for this
// call; bindings echo activated extensions in the A2A-Extensions response
// header (gRPC: response metadata). It is a no-op outside a call.
func ActivateExtension(ctx context.Context, uri string) {
	info, ok := CallInfoFromContext(ctx)
	if !ok {
		return
	}
	info.mu.Lock()
	defer info.mu.Unlock()
	for _, u := range info.activated {
		if u == uri {
			return
		}
	}
	info.activated = append(info.activated, uri)
}

// ActivatedExtensions returns the extensions activated so far.
func (c *CallInfo) ActivatedExtensions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.activated...)
}
