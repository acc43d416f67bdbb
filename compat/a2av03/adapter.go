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

// encodeWith is the encoding of an answer that must be a T: converted to
// the v0.3 shape (from), then marshalled.
func encodeWith[T proto.Message, V any](from func(T) (V, error), marshal func(V) ([]byte, error)) func(proto.Message) ([]byte, error) {
	return func(resp proto.Message) ([]byte, error) {
		r, err := as[T](resp)
		if err != nil {
			return nil, err
		}
		v, err := from(r)
		if err != nil {
			return nil, err
		}
		return marshal(v)
	}
}

// infallible is a conversion that cannot fail, as encodeWith takes it.
func infallible[T, V any](f func(T) V) func(T) (V, error) {
	return func(t T) (V, error) { return f(t), nil }
}

func marshalJSON[V any](v V) ([]byte, error) { return json.Marshal(v) }

// The encodings of the answers in the JSON-RPC shapes of v0.3.
var (
	encodeSendResult     = encodeWith(SendResultFromV1, marshalJSON[any])
	encodeEvent          = encodeWith(EventFromV1, marshalJSON[any])
	encodeTask           = encodeWith(TaskFromV1, marshalJSON[*Task])
	encodePushConfig     = encodeWith(infallible(PushConfigFromV1), marshalJSON[*TaskPushNotificationConfig])
	encodePushConfigList = encodeWith(infallible(PushConfigListFromV1), marshalJSON[[]*TaskPushNotificationConfig])
)

func encodeNull(proto.Message) ([]byte, error) { return []byte("null"), nil }

func encodeCard(resp proto.Message) ([]byte, error) {
	c, err := as[*a2av1.AgentCard](resp)
	if err != nil {
		return nil, err
	}
	return CardJSON(c)
}
