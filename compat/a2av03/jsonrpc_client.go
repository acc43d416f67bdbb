package a2av03

import (
	"context"
	"encoding/json"
	"iter"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// NewJSONRPCClientTransport returns a transport for the v1.0 client
// (a2av1.NewA2AServiceClient) that calls a v0.3-only agent over JSON-RPC at
// url: each v1.0 request is written as the params of its v0.3 method
// (message/send, tasks/get, tasks/pushNotificationConfig/set, …) in the v0.3
// shapes, and each result read back into v1.0. It is a runtime JSON-RPC
// transport underneath, so opts (HTTP client, headers, interceptors,
// limits) apply as to a v1.0 one; it sends A2A-Version 0.3 unless opts say
// otherwise. Errors are the agent's JSON-RPC errors as *runtime.Error (v0.3
// shares v1.0's codes); a result that is not a valid v0.3 shape is
// InvalidAgentResponse naming the field. ListTasks has no v0.3 method: it is
// UnsupportedOperation without a call.
func NewJSONRPCClientTransport(url string, opts ...runtime.ClientOption) runtime.ClientTransport {
	opts = append([]runtime.ClientOption{runtime.WithProtocolVersion("0.3")}, opts...)
	return &jsonrpcClient{innerTransport{runtime.NewJSONRPCTransport(url, opts...)}}
}

type jsonrpcClient struct{ innerTransport }

// v03Op is op renamed to its v0.3 method.
func v03Op(op *runtime.Operation) (*runtime.Operation, error) {
	m, ok := v03Methods[op.Name]
	if !ok {
		return nil, runtime.UnsupportedOperation(op.Name + " has no A2A v0.3 counterpart, and the agent speaks only v0.3")
	}
	return &runtime.Operation{Name: op.Name, JSONRPCMethod: m, ServerStreaming: op.ServerStreaming}, nil
}

// toValue is v as the JSON value the runtime transport sends as params.
func toValue(v any) (*structpb.Value, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := new(structpb.Value)
	return out, protojson.Unmarshal(b, out)
}

// badAnswer turns a conversion error of an agent's answer into
// InvalidAgentResponse (the decoders report InvalidParams, what a server
// answers for a bad request), keeping what it says: the message of an
// *runtime.Error, the text of any other error (ReadCard's).
func badAnswer(op string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if e, ok := err.(*runtime.Error); ok {
		msg = e.Message()
	}
	return runtime.NewError(runtime.CodeInvalidAgentResponse, "the A2A v0.3 "+op+" result: "+msg)
}

type taskIDParams struct {
	ID            string `json:"id"`
	HistoryLength *int32 `json:"historyLength,omitempty"`
}

type pushConfigIDParams struct {
	ID                       string `json:"id"`
	PushNotificationConfigID string `json:"pushNotificationConfigId,omitempty"`
}

// params is the v0.3 params of a v1.0 request, and the reader of its result.
func params(req proto.Message) (any, func(json.RawMessage) (proto.Message, error), error) {
	switch r := req.(type) {
	case *a2av1.SendMessageRequest:
		p, err := SendParamsFromV1(r)
		return p, func(raw json.RawMessage) (proto.Message, error) { return SendResultToV1(raw, "result") }, err
	case *a2av1.GetTaskRequest:
		return taskIDParams{ID: r.GetId(), HistoryLength: r.HistoryLength}, readTask, nil
	case *a2av1.CancelTaskRequest:
		return taskIDParams{ID: r.GetId()}, readTask, nil
	case *a2av1.TaskPushNotificationConfig:
		return PushConfigFromV1(r), readPushConfig, nil
	case *a2av1.GetTaskPushNotificationConfigRequest:
		return pushConfigIDParams{ID: r.GetTaskId(), PushNotificationConfigID: r.GetId()}, readPushConfig, nil
	case *a2av1.ListTaskPushNotificationConfigsRequest:
		return pushConfigIDParams{ID: r.GetTaskId()}, readPushConfigList, nil
	case *a2av1.DeleteTaskPushNotificationConfigRequest:
		return pushConfigIDParams{ID: r.GetTaskId(), PushNotificationConfigID: r.GetId()},
			func(json.RawMessage) (proto.Message, error) { return &emptypb.Empty{}, nil }, nil
	case *a2av1.GetExtendedAgentCardRequest:
		return struct{}{}, func(raw json.RawMessage) (proto.Message, error) { return ReadCard(raw) }, nil
	case *a2av1.SubscribeToTaskRequest:
		return taskIDParams{ID: r.GetId()}, nil, nil
	}
	return nil, nil, runtime.NewError(runtime.CodeInternal, "a2av03: no A2A v0.3 form for a request of type "+string(req.ProtoReflect().Descriptor().FullName()))
}

// readPushConfigList reads the result of tasks/pushNotificationConfig/list.
func readPushConfigList(raw json.RawMessage) (proto.Message, error) {
	var list []TaskPushNotificationConfig
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, invalid("result", "must be a list of push configs: "+err.Error())
	}
	out := &a2av1.ListTaskPushNotificationConfigsResponse{}
	for i := range list {
		c, err := PushConfigToV1(list[i].TaskID, &list[i].PushNotificationConfig, index("result", i))
		if err != nil {
			return nil, err
		}
		out.Configs = append(out.Configs, c)
	}
	return out, nil
}

func readTask(raw json.RawMessage) (proto.Message, error) {
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, invalid("result", "does not decode as an A2A v0.3 task: "+err.Error())
	}
	return TaskToV1(&t, "result")
}

func readPushConfig(raw json.RawMessage) (proto.Message, error) {
	var c TaskPushNotificationConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, invalid("result", "does not decode as an A2A v0.3 push config: "+err.Error())
	}
	return PushConfigToV1(c.TaskID, &c.PushNotificationConfig, "result.pushNotificationConfig")
}

func (t *jsonrpcClient) Unary(ctx context.Context, op *runtime.Operation, req, resp proto.Message) error {
	vop, err := v03Op(op)
	if err != nil {
		return err
	}
	p, read, err := params(req)
	if err != nil {
		return err
	}
	pv, err := toValue(p)
	if err != nil {
		return err
	}
	result := new(structpb.Value)
	if err := t.inner.Unary(ctx, vop, pv, result); err != nil {
		return err
	}
	raw := []byte("null") // a null result leaves result empty
	if result.GetKind() != nil {
		if raw, err = protojson.Marshal(result); err != nil {
			return err
		}
	}
	m, err := read(raw)
	if err != nil {
		return badAnswer(vop.JSONRPCMethod, err)
	}
	proto.Reset(resp)
	proto.Merge(resp, m)
	return nil
}

func (t *jsonrpcClient) Stream(ctx context.Context, op *runtime.Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		vop, err := v03Op(op)
		if err != nil {
			yield(nil, err)
			return
		}
		p, _, err := params(req)
		if err != nil {
			yield(nil, err)
			return
		}
		pv, err := toValue(p)
		if err != nil {
			yield(nil, err)
			return
		}
		for m, err := range t.inner.Stream(ctx, vop, pv, func() proto.Message { return new(structpb.Value) }) {
			if err != nil {
				yield(nil, err)
				return
			}
			raw, err := protojson.Marshal(m)
			if err == nil {
				var e *a2av1.StreamResponse
				if e, err = EventToV1(raw, "result"); err == nil {
					out := newResp()
					proto.Merge(out, e)
					if !yield(out, nil) {
						return
					}
					continue
				}
			}
			yield(nil, badAnswer(vop.JSONRPCMethod, err))
			return
		}
	}
}
