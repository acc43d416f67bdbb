package a2av03

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// RESTPrefix is the first path segment of the v0.3 HTTP+JSON routes.
const RESTPrefix = "v1"

// restRoutes are the v0.3 HTTP+JSON routes (below RESTPrefix), with the
// bodies of the JSON-RPC params and results: specification/grpc/a2a.proto
// at v0.3.0 for the paths, the official Go SDK's v0.3 layer for the shapes
// (its client calls them at the plain paths with A2A-Version: 0.3).
func restRoutes() []runtime.AdaptedRoute {
	return []runtime.AdaptedRoute{
		bodyRoute("/message:send", "SendMessage", SendParamsToV1, encodeSendResult),
		bodyRoute("/message:stream", "SendStreamingMessage", SendParamsToV1, encodeEvent),
		{HTTPMethod: "GET", Path: "/tasks/{id}", Operation: "GetTask", Decode: decodeGetTask, Encode: encodeTask},
		{HTTPMethod: "POST", Path: "/tasks/{id}:cancel", Operation: "CancelTask", Body: true, Decode: decodeCancel, Encode: encodeTask},
		{HTTPMethod: "GET", Path: "/tasks/{id}:subscribe", Operation: "SubscribeToTask", Decode: decodeSubscribe, Encode: encodeEvent},
		{HTTPMethod: "POST", Path: "/tasks/{id}:subscribe", Operation: "SubscribeToTask", Decode: decodeSubscribe, Encode: encodeEvent},
		{HTTPMethod: "POST", Path: "/tasks/{id}/pushNotificationConfigs", Operation: "CreateTaskPushNotificationConfig", Body: true,
			Decode: decodeSetPushConfig, Encode: encodePushConfig},
		{HTTPMethod: "GET", Path: "/tasks/{id}/pushNotificationConfigs/{configId}", Operation: "GetTaskPushNotificationConfig",
			Decode: pushConfigIDs(GetPushConfigToV1), Encode: encodePushConfig},
		{HTTPMethod: "GET", Path: "/tasks/{id}/pushNotificationConfigs", Operation: "ListTaskPushNotificationConfigs",
			Decode: decodeListPushConfigs, Encode: encodePushConfigList},
		{HTTPMethod: "DELETE", Path: "/tasks/{id}/pushNotificationConfigs/{configId}", Operation: "DeleteTaskPushNotificationConfig",
			Decode: pushConfigIDs(DeletePushConfigToV1), Encode: encodeEmptyObject},
		{HTTPMethod: "GET", Path: "/tasks", Operation: "ListTasks", Decode: decodeListTasks, Encode: encodeListTasks},
		{HTTPMethod: "GET", Path: "/card", Operation: "GetExtendedAgentCard",
			Decode: func(*runtime.AdaptedRequest, proto.Message) error { return nil }, Encode: encodeCard},
		// The official Go SDK's v0.3 client asks for the extended card here.
		{HTTPMethod: "GET", Path: "/extendedAgentCard", Operation: "GetExtendedAgentCard",
			Decode: func(*runtime.AdaptedRequest, proto.Message) error { return nil }, Encode: encodeCard},
	}
}

// bodyRoute is a POST route whose body is the v0.3 params P.
func bodyRoute[P any, Q proto.Message](path, op string, toV1 func(*P) (Q, error), encode func(proto.Message) ([]byte, error)) runtime.AdaptedRoute {
	return runtime.AdaptedRoute{HTTPMethod: "POST", Path: path, Operation: op, Body: true, Encode: encode,
		Decode: func(r *runtime.AdaptedRequest, req proto.Message) error {
			var p P
			if err := decodeBody(r.Body, &p); err != nil {
				return err
			}
			q, err := toV1(&p)
			if err != nil {
				return err
			}
			proto.Merge(req, q)
			return nil
		}}
}

// decodeBody decodes a v0.3 HTTP+JSON body, camelCase or snake_case
// (the official Go SDK's v0.3 client sends snake_case member names).
func decodeBody(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	body, err := camelKeys(body)
	if err != nil {
		return invalid("body", "is not a JSON object")
	}
	return decodeJSON(body, v, "")
}

// camelKeys rewrites the snake_case member names of a JSON document as
// camelCase, except inside metadata and data values, which are the
// caller's own.
func camelKeys(doc []byte) ([]byte, error) {
	if !bytes.Contains(doc, []byte("_")) {
		return doc, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(camelValue(v))
}

func camelValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			ck := snakeToCamel(k)
			if ck == "metadata" || ck == "data" {
				out[ck] = val
				continue
			}
			out[ck] = camelValue(val)
		}
		return out
	case []any:
		for i := range t {
			t[i] = camelValue(t[i])
		}
		return t
	}
	return v
}

// snakeToCamel is "message_id" → "messageId"; a name without '_' is kept.
func snakeToCamel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	up := false
	for i, r := range s {
		switch {
		case r == '_' && i > 0:
			up = true
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// queryInt32 reads an optional integer query parameter (camelCase or
// snake_case name).
func queryInt32(r *runtime.AdaptedRequest, name, snake string) (*int32, error) {
	raw := r.Query.Get(name)
	if raw == "" {
		raw = r.Query.Get(snake)
	}
	if raw == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(raw, 10, 32)
	if err != nil {
		return nil, invalid(name, "must be an integer, got "+strconv.Quote(raw))
	}
	v := int32(n)
	return &v, nil
}

func decodeGetTask(r *runtime.AdaptedRequest, req proto.Message) error {
	hl, err := queryInt32(r, "historyLength", "history_length")
	if err != nil {
		return err
	}
	proto.Merge(req, &a2av1.GetTaskRequest{Id: r.Vars["id"], HistoryLength: hl})
	return nil
}

func decodeCancel(r *runtime.AdaptedRequest, req proto.Message) error {
	var p TaskIDParams
	if err := decodeBody(r.Body, &p); err != nil {
		return err
	}
	p.ID = r.Vars["id"]
	q, err := CancelTaskToV1(&p)
	if err != nil {
		return err
	}
	proto.Merge(req, q)
	return nil
}

func decodeSubscribe(r *runtime.AdaptedRequest, req proto.Message) error {
	proto.Merge(req, &a2av1.SubscribeToTaskRequest{Id: r.Vars["id"]})
	return nil
}

func decodeListPushConfigs(r *runtime.AdaptedRequest, req proto.Message) error {
	proto.Merge(req, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: r.Vars["id"]})
	return nil
}

// decodeSetPushConfig reads the body of a create: the v0.3
// PushNotificationConfig (what the official Go SDK sends), or a
// TaskPushNotificationConfig holding one; the task is the path's.
func decodeSetPushConfig(r *runtime.AdaptedRequest, req proto.Message) error {
	var wrapped struct {
		PushNotificationConfig *PushNotificationConfig `json:"pushNotificationConfig"`
	}
	if err := decodeBody(r.Body, &wrapped); err != nil {
		return err
	}
	p := &TaskPushNotificationConfig{TaskID: r.Vars["id"]}
	if wrapped.PushNotificationConfig != nil {
		p.PushNotificationConfig = *wrapped.PushNotificationConfig
	} else if err := decodeBody(r.Body, &p.PushNotificationConfig); err != nil {
		return err
	}
	q, err := SetPushConfigToV1(p)
	if err != nil {
		return err
	}
	proto.Merge(req, q)
	return nil
}

// pushConfigIDs decodes a route of one push config by its ids.
func pushConfigIDs[Q proto.Message](toV1 func(*PushConfigParams) (Q, error)) func(*runtime.AdaptedRequest, proto.Message) error {
	return func(r *runtime.AdaptedRequest, req proto.Message) error {
		q, err := toV1(&PushConfigParams{ID: r.Vars["id"], PushNotificationConfigID: r.Vars["configId"]})
		if err != nil {
			return err
		}
		proto.Merge(req, q)
		return nil
	}
}

func encodeEmptyObject(proto.Message) ([]byte, error) { return []byte("{}"), nil }
