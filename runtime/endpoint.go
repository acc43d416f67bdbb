package runtime

import (
	"context"
	"errors"
	"iter"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Stream is what a server-streaming handler sends its responses on. Send
// returns an error when the client has gone away or the binding failed to write;
// the handler should then return.
type Stream[T proto.Message] interface {
	Send(T) error
}

// Endpoint binds one Operation to the handler method that implements it. It is
// built by generated code with NewUnaryEndpoint or NewStreamEndpoint and used by
// every binding's router.
type Endpoint struct {
	Operation *Operation

	newRequest func() proto.Message
	unary      func(context.Context, proto.Message) (proto.Message, error)
	stream     func(context.Context, proto.Message, func(proto.Message) error) error
	// requestStream serves an rpc whose client streams its requests
	// (endpoint_requests.go).
	requestStream func(context.Context, iter.Seq2[proto.Message, error], func(proto.Message) error) error
}

// NewRequest returns a new, empty request message for the endpoint.
func (e *Endpoint) NewRequest() proto.Message { return e.newRequest() }

// errNilResponse is returned (as an internal error) when a handler returns a
// nil response together with a nil error.
var errNilResponse = errors.New("handler returned a nil response and a nil error")

// NewUnaryEndpoint adapts a typed unary handler method.
func NewUnaryEndpoint[Req, Resp proto.Message](op *Operation, newReq func() Req, h func(context.Context, Req) (Resp, error)) *Endpoint {
	return &Endpoint{
		Operation:  op,
		newRequest: func() proto.Message { return newReq() },
		unary: func(ctx context.Context, req proto.Message) (proto.Message, error) {
			resp, err := h(ctx, req.(Req))
			if err != nil {
				return nil, err
			}
			if !resp.ProtoReflect().IsValid() {
				return nil, errNilResponse
			}
			return resp, nil
		},
	}
}

// NewStreamEndpoint adapts a typed server-streaming handler method.
func NewStreamEndpoint[Req, Resp proto.Message](op *Operation, newReq func() Req, h func(context.Context, Req, Stream[Resp]) error) *Endpoint {
	return &Endpoint{
		Operation:  op,
		newRequest: func() proto.Message { return newReq() },
		stream: func(ctx context.Context, req proto.Message, send func(proto.Message) error) error {
			return h(ctx, req.(Req), streamFunc[Resp](send))
		},
	}
}

// streamFunc adapts an untyped send function to Stream[T].
type streamFunc[T proto.Message] func(proto.Message) error

func (f streamFunc[T]) Send(m T) error {
	if !m.ProtoReflect().IsValid() {
		return errNilResponse
	}
	return f(m)
}

// Service is a service's description together with its endpoints: what every
// binding router is built from.
type Service struct {
	Desc      *ServiceDesc
	Endpoints []*Endpoint

	byName    map[string]*Endpoint // by rpc name
	byMethod  map[string]*Endpoint // by JSON-RPC method name
	validator *validator
}

// NewService bundles a service description with the endpoints generated code
// built for it. The endpoints must be in the order of desc.Operations.
func NewService(desc *ServiceDesc, endpoints ...*Endpoint) *Service {
	s := &Service{Desc: desc, Endpoints: endpoints,
		byName:   make(map[string]*Endpoint, len(endpoints)),
		byMethod: make(map[string]*Endpoint, len(endpoints))}
	for _, e := range endpoints {
		s.byName[e.Operation.Name] = e
		s.byMethod[e.Operation.JSONRPCName()] = e
	}
	s.validator = newValidator()
	return s
}

// Accepting returns a copy of s whose Validate does not require the named
// fields (full names, e.g. "a2a.v1.CreateTaskPushNotificationConfigRequest.config_id")
// although their descriptors mark them REQUIRED: for a service that accepts
// what a widespread client omits, and fills the field in itself. The
// endpoints are shared with s.
func (s *Service) Accepting(optional ...protoreflect.FullName) *Service {
	skip := make(map[protoreflect.FullName]bool, len(optional))
	for _, n := range optional {
		skip[n] = true
	}
	c := &Service{Desc: s.Desc, Endpoints: s.Endpoints, byName: s.byName, byMethod: s.byMethod,
		validator: &validator{isRequired: func(fd protoreflect.FieldDescriptor) bool {
			return !skip[fd.FullName()] && s.validator.isRequired(fd)
		}}}
	return c
}

// Endpoint returns the endpoint for an rpc name, or nil.
func (s *Service) Endpoint(name string) *Endpoint { return s.byName[name] }

// Validate checks the required fields of a decoded request message and returns
// an InvalidParams *Error naming every missing field path, or nil.
func (s *Service) Validate(req proto.Message) error { return s.validator.validate(req) }

// IsStreaming reports whether the endpoint serves a server-streaming rpc
// whose client sends one request (a bidirectional rpc is not one: see
// IsClientStreaming).
func (e *Endpoint) IsStreaming() bool { return e.stream != nil }

// CallUnary invokes a unary endpoint. It is used by the binding routers.
func (e *Endpoint) CallUnary(ctx context.Context, req proto.Message) (proto.Message, error) {
	return e.unary(ctx, req)
}

// CallStream invokes a streaming endpoint; send is called for every response.
func (e *Endpoint) CallStream(ctx context.Context, req proto.Message, send func(proto.Message) error) error {
	return e.stream(ctx, req, send)
}
