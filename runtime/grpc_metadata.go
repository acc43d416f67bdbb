package runtime

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"

	"google.golang.org/grpc/metadata"
)

// Metadata keys of the A2A service parameters on the gRPC binding: lower
// case, as gRPC requires.
const (
	mdVersion    = "a2a-version"
	mdExtensions = "a2a-extensions"
)

// headerFromIncomingMetadata presents the request metadata of a gRPC call as
// an http.Header, so that handlers read service parameters and credentials
// the same way on every binding (info.Header.Get("Authorization")). Keys are
// canonicalised like HTTP header keys; repeated entries stay separate values;
// HTTP/2 pseudo-headers (":authority") are left out; binary ("-bin") entries
// hold their decoded bytes, as grpc-go delivers them.
func headerFromIncomingMetadata(ctx context.Context) http.Header {
	md, ok := metadata.FromIncomingContext(ctx) // a private copy: safe to re-key
	if !ok {
		return http.Header{}
	}
	h := http.Header(md)
	for k, v := range md {
		if strings.HasPrefix(k, ":") {
			delete(h, k)
			continue
		}
		if ck := canonicalMetadataKey(k); ck != k {
			delete(h, k)
			h[ck] = v // keys added while ranging are canonical: a second visit is a no-op
		}
	}
	return h
}

// canonicalMetadataKey returns the canonical HTTP form of a metadata key,
// without allocating for the keys every A2A call carries.
func canonicalMetadataKey(k string) string {
	switch k {
	case mdVersion:
		return "A2a-Version"
	case mdExtensions:
		return "A2a-Extensions"
	case "authorization":
		return "Authorization"
	case "content-type":
		return "Content-Type"
	case "user-agent":
		return "User-Agent"
	case "grpc-accept-encoding":
		return "Grpc-Accept-Encoding"
	case "traceparent": // W3C trace context
		return "Traceparent"
	case "tracestate":
		return "Tracestate"
	case "baggage":
		return "Baggage"
	case "idempotency-key": // every send's (client_sendkey.go)
		return IdempotencyKeyHeader
	}
	return http.CanonicalHeaderKey(k)
}

// activatedExtensionsMD is the a2a-extensions response metadata echoing the
// extensions the handler activated, or nil when there are none.
func activatedExtensionsMD(info *CallInfo) metadata.MD {
	if info == nil {
		return nil
	}
	exts := info.ActivatedExtensions()
	if len(exts) == 0 {
		return nil
	}
	return metadata.MD{mdExtensions: []string{strings.Join(exts, ",")}}
}

// outgoingMetadata flattens the service parameters and static headers a
// client sends with every call into key/value pairs for
// metadata.AppendToOutgoingContext: a2a-version, one comma-joined
// a2a-extensions entry, then every WithHeader entry under its lower-cased
// name. A static header named like a service parameter replaces it, as it
// does on the HTTP bindings.
func (c *clientConfig) outgoingMetadata() []string {
	md := metadata.MD{}
	if c.protocolVersion != "" {
		md[mdVersion] = []string{c.protocolVersion}
	}
	if len(c.extensions) > 0 {
		md[mdExtensions] = []string{strings.Join(c.extensions, ",")}
	}
	for k, vs := range c.header {
		md[strings.ToLower(k)] = append([]string(nil), vs...)
	}
	kv := make([]string, 0, 2*len(md)+2)
	// The service parameters go first, so that a server reading only the
	// first entries sees them early; the rest follow in a fixed order.
	for _, k := range []string{mdVersion, mdExtensions} {
		for _, v := range md[k] {
			kv = append(kv, k, v)
		}
		delete(md, k)
	}
	for _, k := range slices.Sorted(maps.Keys(md)) {
		for _, v := range md[k] {
			kv = append(kv, k, v)
		}
	}
	return kv
}

// headerFromMetadata presents response metadata as an http.Header with
// canonical keys (a copy; nil for none).
func headerFromMetadata(md metadata.MD) http.Header {
	if len(md) == 0 {
		return nil
	}
	h := make(http.Header, len(md))
	for k, v := range md {
		if !strings.HasPrefix(k, ":") {
			h[canonicalMetadataKey(k)] = v
		}
	}
	return h
}

// hasHeaderKeys reports whether headerFromMetadata(md) has any entry.
func hasHeaderKeys(md metadata.MD) bool {
	for k := range md {
		if !strings.HasPrefix(k, ":") {
			return true
		}
	}
	return false
}

// outgoingContext is ctx with the metadata of a client call: the headers of
// the intercepted call in ctx (which interceptors may have changed), else
// the transport's own.
func (t *GRPCTransport) outgoingContext(ctx context.Context) context.Context {
	call := clientCallFrom(ctx)
	if call == nil || t.chains != nil && t.chains.header.same(call.Header) {
		if k := sentKeyOf(ctx); k != "" { // a send (client_sendkey.go)
			// grpc-go copies the pairs: they can be put together on the
			// stack (for up to eight pairs; more take an allocation).
			var pairs [16]string
			return metadata.AppendToOutgoingContext(ctx, append(append(pairs[:0], t.md...), "idempotency-key", k)...)
		}
		return metadata.AppendToOutgoingContext(ctx, t.md...)
	}
	// Appended as pairs, like t.md: grpc-go then neither copies nor merges
	// a map (and keeps a caller's own outgoing metadata).
	n := 0
	for _, vs := range call.Header {
		n += 2 * len(vs)
	}
	kv := make([]string, 0, n)
	for k, vs := range call.Header {
		mk := metadataKey(k)
		for _, v := range vs {
			kv = append(kv, mk, v)
		}
	}
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

// metadataKey is the gRPC metadata key (lowercase) of a header key, without
// allocating for the keys every call has.
func metadataKey(k string) string {
	switch k {
	case canonicalVersion:
		return "a2a-version"
	case canonicalExtensions:
		return "a2a-extensions"
	case "Authorization":
		return "authorization"
	case "Traceparent":
		return "traceparent"
	case "Tracestate":
		return "tracestate"
	case IdempotencyKeyHeader:
		return "idempotency-key"
	}
	return strings.ToLower(k)
}
