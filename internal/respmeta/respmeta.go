// Package respmeta lets the interceptors of this module tell the runtime
// that they never read the response metadata of client calls
// (runtime.CallInfo.ResponseHeader and ResponseTrailer). When no
// interceptor of a client reads it and the call's context has no
// runtime.ResponseMetadata, the gRPC transport does not ask grpc-go for
// the response header (which grpc-go copies for every call that asks).
//
// Only packages of this module can name Unread, so only their
// interceptors can claim this; any other interceptor is assumed to read
// the metadata.
package respmeta

// Unread is the argument of Ignorer's method.
type Unread struct{}

// Ignorer is an interceptor that never reads the response metadata of the
// client calls it wraps, unary or streaming.
type Ignorer interface {
	IgnoresResponseMetadata(Unread)
}
