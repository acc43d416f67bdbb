package a2av03

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Version is the protocol version of the shapes of this package.
const Version = "0.3"

// ExtensionsHeader is the header v0.3 clients name their extensions in.
const ExtensionsHeader = "X-A2A-Extensions"

// Adapter is the runtime.VersionAdapter that serves A2A v0.3 on the
// JSON-RPC and HTTP+JSON bindings of an lf.a2a.v1.A2AService handler
// (a2av1.NewA2AServiceJSONRPCHandler(h, runtime.WithVersionAdapter(a2av03.Adapter()))):
// the v0.3 method names and routes, their params and bodies read into the
// v1.0 requests, the v1.0 responses and events written in the v0.3 shapes,
// and errors with the v0.3 codes (ErrorCodeToV03) in the v0.3 forms:
// JSON-RPC error.data is an object, the google.rpc.ErrorInfo, never the
// v1.0 array of details; HTTP+JSON error bodies carry the JSON-RPC code and
// message at the top level beside the google.rpc.Status (docs/bindings.md).
func Adapter() *runtime.VersionAdapter {
	return &runtime.VersionAdapter{
		Version:          Version,
		Methods:          jsonrpcMethods(),
		Routes:           restRoutes(),
		ExtensionHeaders: []string{ExtensionsHeader},
		ErrorCode:        ErrorCodeToV03,
		ErrorDataObject:  true,
		RESTErrorCode:    true,
		RESTPrefix:       RESTPrefix,
	}
}

func jsonrpcMethods() []runtime.AdaptedMethod {
	return []runtime.AdaptedMethod{
		method("SendMessage", SendParamsToV1, encodeSendResult),
		method("SendStreamingMessage", SendParamsToV1, encodeEvent),
		method("GetTask", GetTaskToV1, encodeTask),
		method("CancelTask", CancelTaskToV1, encodeTask),
		method("SubscribeToTask", SubscribeToV1, encodeEvent),
		method("CreateTaskPushNotificationConfig", SetPushConfigToV1, encodePushConfig),
		method("GetTaskPushNotificationConfig", GetPushConfigToV1, encodePushConfig),
		method("ListTaskPushNotificationConfigs", ListPushConfigsToV1, encodePushConfigList),
		method("DeleteTaskPushNotificationConfig", DeletePushConfigToV1, encodeNull),
		{Method: v03Methods["GetExtendedAgentCard"], Operation: "GetExtendedAgentCard",
			DecodeParams: func([]byte, proto.Message) error { return nil }, EncodeResult: encodeCard},
	}
}

// method is the AdaptedMethod of the v0.3 method of the v1.0 rpc (its name
// from the generated v0.3 descriptor: Methods), whose params P convert to
// the v1.0 request Q.
func method[P any, Q proto.Message](rpc string, toV1 func(*P) (Q, error), encode func(proto.Message) ([]byte, error)) runtime.AdaptedMethod {
	return runtime.AdaptedMethod{
		Method:    v03Methods[rpc],
		Operation: rpc,
		DecodeParams: func(params []byte, req proto.Message) error {
			var p P
			if err := decodeJSON(params, &p, ""); err != nil {
				return err
			}
			q, err := toV1(&p)
			if err != nil {
				return err
			}
			proto.Merge(req, q)
			return nil
		},
		EncodeResult: encode,
	}
}

// as is resp as T, or an error naming what it is.
func as[T proto.Message](resp proto.Message) (T, error) {
	v, ok := resp.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("a2av03: a %T response where a %T was expected", resp, zero)
	}
	return v, nil
}

func encodeSendResult(resp proto.Message) ([]byte, error) {
	r, err := as[*a2av1.SendMessageResponse](resp)
	if err != nil {
		return nil, err
	}
	v, err := SendResultFromV1(r)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func encodeEvent(resp proto.Message) ([]byte, error) {
	e, err := as[*a2av1.StreamResponse](resp)
	if err != nil {
		return nil, err
	}
	v, err := EventFromV1(e)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func encodeTask(resp proto.Message) ([]byte, error) {
	t, err := as[*a2av1.Task](resp)
	if err != nil {
		return nil, err
	}
	v, err := TaskFromV1(t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func encodePushConfig(resp proto.Message) ([]byte, error) {
	c, err := as[*a2av1.TaskPushNotificationConfig](resp)
	if err != nil {
		return nil, err
	}
	return json.Marshal(PushConfigFromV1(c))
}

func encodePushConfigList(resp proto.Message) ([]byte, error) {
	l, err := as[*a2av1.ListTaskPushNotificationConfigsResponse](resp)
	if err != nil {
		return nil, err
	}
	return json.Marshal(PushConfigListFromV1(l))
}

func encodeNull(proto.Message) ([]byte, error) { return []byte("null"), nil }

func encodeCard(resp proto.Message) ([]byte, error) {
	c, err := as[*a2av1.AgentCard](resp)
	if err != nil {
		return nil, err
	}
	return CardJSON(c)
}
