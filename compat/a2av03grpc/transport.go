package a2av03grpc

import (
	"context"
	"crypto/rand"
	"io"
	"iter"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// NewTransport returns a transport for the v1.0 client
// (a2av1.NewA2AServiceClient) that calls a v0.3-only agent through inner, a
// transport of the v0.3 service (for gRPC: runtime.NewGRPCTransport with
// runtime.ClientDefaults(&a2av03pb.A2AServiceDesc, nil), so that it sends
// A2A-Version 0.3). Each v1.0 request is converted to v0.3, sent as the
// matching a2a.v1.A2AService rpc, and the answer converted back; errors are
// inner's, the same *runtime.Error codes, except that a FAILED_PRECONDITION
// without an ErrorInfo is TaskNotCancelable, as v0.3 servers mean it
// (v03StatusError). ListTasks has no v0.3 rpc: it is
// UnsupportedOperation without a call. A push config created without an id
// gets a random one: v0.3 requires config_id, v1.0 lets the server choose. Close closes inner when it is an
// io.Closer.
func NewTransport(inner runtime.ClientTransport) runtime.ClientTransport {
	return &transport{inner: inner}
}

type transport struct{ inner runtime.ClientTransport }

// v03Ops are the operations of a2a.v1.A2AService by v1.0 rpc name.
var v03Ops = func() map[string]*runtime.Operation {
	m := make(map[string]*runtime.Operation, len(a2av03pb.A2AServiceDesc.Operations))
	for i := range a2av03pb.A2AServiceDesc.Operations {
		op := &a2av03pb.A2AServiceDesc.Operations[i]
		m[a2av03.V1RPC(op.Name)] = op
	}
	return m
}()

func noV03(op string) error {
	return runtime.UnsupportedOperation(op + " has no A2A v0.3 counterpart, and the agent speaks only v0.3")
}

// typeError is a programming error: the v1.0 client passes the types of
// its own operation table.
func typeError(op string, m proto.Message) error {
	return runtime.NewError(runtime.CodeInternal, "a2av03grpc: "+op+": unexpected request type "+string(m.ProtoReflect().Descriptor().FullName()))
}

func (t *transport) Unary(ctx context.Context, op *runtime.Operation, req, resp proto.Message) error {
	v03op := v03Ops[op.Name]
	if v03op == nil {
		return noV03(op.Name)
	}
	var v03req, v03resp proto.Message
	var back func() proto.Message
	switch r := req.(type) {
	case *a2av1.SendMessageRequest:
		out := new(a2av03pb.SendMessageResponse)
		v03req, v03resp, back = SendRequestFromV1(r), out, func() proto.Message { return SendResponseToV1(out) }
	case *a2av1.GetTaskRequest:
		out := new(a2av03pb.Task)
		v03req, v03resp, back = GetTaskRequestFromV1(r), out, func() proto.Message { return TaskToV1(out) }
	case *a2av1.CancelTaskRequest:
		out := new(a2av03pb.Task)
		v03req, v03resp, back = CancelTaskRequestFromV1(r), out, func() proto.Message { return TaskToV1(out) }
	case *a2av1.TaskPushNotificationConfig:
		if r.GetId() == "" {
			// v0.3's config_id is REQUIRED (the client names the config);
			// v1.0 lets the server choose. Choose one here.
			r = proto.CloneOf(r)
			r.Id = rand.Text()
		}
		out := new(a2av03pb.TaskPushNotificationConfig)
		v03req, v03resp, back = CreatePushConfigRequestFromV1(r), out, pushConfigOf(out, r.GetTaskId())
	case *a2av1.GetTaskPushNotificationConfigRequest:
		out := new(a2av03pb.TaskPushNotificationConfig)
		v03req, v03resp, back = GetPushConfigRequestFromV1(r), out, pushConfigOf(out, r.GetTaskId())
	case *a2av1.ListTaskPushNotificationConfigsRequest:
		out := new(a2av03pb.ListTaskPushNotificationConfigResponse)
		v03req, v03resp, back = ListPushConfigsRequestFromV1(r), out, func() proto.Message { return ListPushConfigsResponseToV1(out) }
	case *a2av1.DeleteTaskPushNotificationConfigRequest:
		out := new(emptypb.Empty)
		v03req, v03resp, back = DeletePushConfigRequestFromV1(r), out, func() proto.Message { return out }
	case *a2av1.GetExtendedAgentCardRequest:
		out := new(a2av03pb.AgentCard)
		v03req, v03resp, back = &a2av03pb.GetAgentCardRequest{}, out, func() proto.Message { return CardToV1(out) }
	default:
		return typeError(op.Name, req)
	}
	if err := t.inner.Unary(ctx, v03op, v03req, v03resp); err != nil {
		return v03StatusError(err)
	}
	proto.Merge(resp, back())
	return nil
}

func (t *transport) Stream(ctx context.Context, op *runtime.Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		v03op := v03Ops[op.Name]
		var v03req proto.Message
		switch r := req.(type) {
		case *a2av1.SendMessageRequest:
			v03req = SendRequestFromV1(r)
		case *a2av1.SubscribeToTaskRequest:
			v03req = SubscribeRequestFromV1(r)
		default:
			yield(nil, typeError(op.Name, req))
			return
		}
		if v03op == nil {
			yield(nil, noV03(op.Name))
			return
		}
		for m, err := range t.inner.Stream(ctx, v03op, v03req, func() proto.Message { return new(a2av03pb.StreamResponse) }) {
			if err != nil {
				yield(nil, v03StatusError(err))
				return
			}
			out := newResp()
			proto.Merge(out, StreamResponseToV1(m.(*a2av03pb.StreamResponse)))
			if !yield(out, nil) {
				return
			}
		}
	}
}

// Close closes the inner transport when it holds something (a gRPC
// connection).
func (t *transport) Close() error {
	if c, ok := t.inner.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// pushConfigOf reads the answer out in v1.0 form once it is filled in; a
// config without its task is the request's task's.
func pushConfigOf(out *a2av03pb.TaskPushNotificationConfig, taskID string) func() proto.Message {
	return func() proto.Message {
		c := TaskPushConfigToV1(out)
		if c.TaskId == "" {
			c.TaskId = taskID
		}
		return c
	}
}
