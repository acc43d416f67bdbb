package a2av03

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// RESTPrefix is the first path segment of the v0.3 HTTP+JSON routes.
const RESTPrefix = "v1"

// restRoutes are the v0.3 HTTP+JSON routes (below RESTPrefix):
// specification/grpc/a2a.proto at v0.3.0 for the paths, with the official
// Go SDK's extra ones. Each exchange is in one of two wire forms (restForm):
// the ProtoJSON of the v0.3 proto or the JSON-RPC object form.
func restRoutes() []runtime.AdaptedRoute {
	return []runtime.AdaptedRoute{
		{HTTPMethod: "POST", Path: "/message:send", Operation: "SendMessage", Body: true, Decode: decodeSend(false), Encode: encodeSendResult},
		{HTTPMethod: "POST", Path: "/message:stream", Operation: "SendStreamingMessage", Body: true, Decode: decodeSend(true), Encode: encodeEvent},
		{HTTPMethod: "GET", Path: "/tasks/{id}", Operation: "GetTask", Decode: decodeGetTask, Encode: encodeTask},
		{HTTPMethod: "POST", Path: "/tasks/{id}:cancel", Operation: "CancelTask", Body: true, Decode: decodeCancel, Encode: encodeTask},
		{HTTPMethod: "GET", Path: "/tasks/{id}:subscribe", Operation: "SubscribeToTask", Decode: decodeSubscribe, Encode: encodeEvent},
		{HTTPMethod: "POST", Path: "/tasks/{id}:subscribe", Operation: "SubscribeToTask", Decode: decodeSubscribe, Encode: encodeEvent},
		{HTTPMethod: "POST", Path: "/tasks/{id}/pushNotificationConfigs", Operation: "CreateTaskPushNotificationConfig", Body: true,
			Decode: decodeSetPushConfig, Encode: encodePushConfig},
		{HTTPMethod: "GET", Path: "/tasks/{id}/pushNotificationConfigs/{configId}", Operation: "GetTaskPushNotificationConfig",
			Decode: pushConfigIDs(GetPushConfigToV1, encodePushConfigPJ), Encode: encodePushConfig},
		{HTTPMethod: "GET", Path: "/tasks/{id}/pushNotificationConfigs", Operation: "ListTaskPushNotificationConfigs",
			Decode: decodeListPushConfigs, Encode: encodePushConfigList},
		{HTTPMethod: "DELETE", Path: "/tasks/{id}/pushNotificationConfigs/{configId}", Operation: "DeleteTaskPushNotificationConfig",
			Decode: pushConfigIDs(DeletePushConfigToV1, nil), Encode: encodeEmptyObject},
		{HTTPMethod: "GET", Path: "/tasks", Operation: "ListTasks", Decode: decodeListTasks, Encode: encodeListTasks},
		{HTTPMethod: "GET", Path: "/card", Operation: "GetExtendedAgentCard",
			Decode: func(*runtime.AdaptedRequest, proto.Message) error { return nil }, Encode: encodeCard},
		// The official Go SDK's v0.3 client asks for the extended card here.
		{HTTPMethod: "GET", Path: "/extendedAgentCard", Operation: "GetExtendedAgentCard",
			Decode: func(*runtime.AdaptedRequest, proto.Message) error { return nil }, Encode: encodeCard},
	}
}

// restForm is the wire form of one v0.3 HTTP+JSON exchange.
type restForm int

const (
	// formKind is the JSON-RPC object form (kind discriminators,
	// lower-case enums): the Go SDK's v0.3 REST client up to v2.3 (in
	// snake_case) and our own before ProtoJSON.
	formKind restForm = iota
	// formProto is the ProtoJSON of the v0.3 proto: the JS SDK 1.3, the Go
	// SDK from v2.4, the Python SDK's v0.3 line.
	formProto
)

// pathForm is the form of a request whose body does not tell (or that has
// none): the JSON-RPC object form at the plain paths (A2A-Version: 0.3
// without /v1, which only the Go SDK up to v2.3 calls), ProtoJSON under
// /v1 (the paths of the v0.3 proto, which the other clients call).
func pathForm(r *runtime.AdaptedRequest) restForm {
	if r.Plain {
		return formKind
	}
	return formProto
}

// answerIn makes r's response (or events) be written in form f: by
// protoEncode for ProtoJSON, else by the route's Encode (the JSON-RPC form).
func answerIn(r *runtime.AdaptedRequest, f restForm, protoEncode func(proto.Message) ([]byte, error)) {
	if f == formProto {
		r.Encode = protoEncode
	}
}

// bodyMembers are the top-level members of a JSON object body (camelCased),
// or nil.
func bodyMembers(body []byte) map[string]json.RawMessage {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	body, err := camelKeys(body)
	if err != nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return m
}

// sendForm tells the form of a message:send body by its message: kind or
// parts say the JSON-RPC form; content, a proto role (a ROLE_ name or a
// number) or the proto field name "request" say ProtoJSON.
func sendForm(r *runtime.AdaptedRequest) restForm {
	top := bodyMembers(r.Body)
	if top["request"] != nil {
		return formProto
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(top["message"], &m) == nil && m != nil {
		switch {
		case m["kind"] != nil || m["parts"] != nil:
			return formKind
		case m["content"] != nil:
			return formProto
		}
		if role := bytes.TrimSpace(m["role"]); len(role) > 0 {
			if role[0] != '"' || bytes.HasPrefix(role, []byte(`"ROLE_`)) {
				return formProto
			}
			return formKind
		}
	}
	return pathForm(r)
}

// decodeSend reads a message:send or message:stream body in either form
// and answers in the same one.
func decodeSend(stream bool) func(r *runtime.AdaptedRequest, req proto.Message) error {
	return func(r *runtime.AdaptedRequest, req proto.Message) error {
		var p *MessageSendParams
		switch sendForm(r) {
		case formProto:
			var pj pjSendRequest
			if err := decodeBody(r.Body, &pj); err != nil {
				return err
			}
			var err error
			if p, err = pj.toKind(); err != nil {
				return err
			}
			if stream {
				r.Encode = encodeEventPJ
			} else {
				r.Encode = encodeSendResultPJ
			}
		default:
			p = new(MessageSendParams)
			if err := decodeBody(r.Body, p); err != nil {
				return err
			}
		}
		q, err := SendParamsToV1(p)
		if err != nil {
			return err
		}
		proto.Merge(req, q)
		return nil
	}
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
		return nil, invalid(name, fmt.Sprintf("must be a whole number from %d to %d, got %s", math.MinInt32, math.MaxInt32, strconv.Quote(raw)))
	}
	v := int32(n)
	return &v, nil
}

func decodeGetTask(r *runtime.AdaptedRequest, req proto.Message) error {
	hl, err := queryInt32(r, "historyLength", "history_length")
	if err != nil {
		return err
	}
	answerIn(r, pathForm(r), encodeTaskPJ)
	proto.Merge(req, &a2av1.GetTaskRequest{Id: r.Vars["id"], HistoryLength: hl})
	return nil
}

func decodeCancel(r *runtime.AdaptedRequest, req proto.Message) error {
	var p TaskIDParams
	if err := decodeBody(r.Body, &p); err != nil {
		return err
	}
	p.ID = r.Vars["id"]
	// The JSON-RPC form's body is TaskIdParams ({"id", "metadata"}), the
	// ProtoJSON one a CancelTaskRequest ({"name"}); an empty one tells
	// neither.
	form := pathForm(r)
	switch top := bodyMembers(r.Body); {
	case top["name"] != nil:
		form = formProto
	case top["id"] != nil || top["metadata"] != nil:
		form = formKind
	}
	answerIn(r, form, encodeTaskPJ)
	q, err := CancelTaskToV1(&p)
	if err != nil {
		return err
	}
	proto.Merge(req, q)
	return nil
}

func decodeSubscribe(r *runtime.AdaptedRequest, req proto.Message) error {
	answerIn(r, pathForm(r), encodeEventPJ)
	proto.Merge(req, &a2av1.SubscribeToTaskRequest{Id: r.Vars["id"]})
	return nil
}

func decodeListPushConfigs(r *runtime.AdaptedRequest, req proto.Message) error {
	answerIn(r, pathForm(r), encodePushConfigListPJ)
	proto.Merge(req, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: r.Vars["id"]})
	return nil
}

// decodeSetPushConfig reads the body of a create, the task being the
// path's. In ProtoJSON: a TaskPushNotificationConfig ({"name",
// "pushNotificationConfig"}, what the JS SDK 1.3 posts) or a
// CreateTaskPushNotificationConfigRequest ({"parent", "configId",
// "config"}, the Go SDK from v2.4). In the JSON-RPC form: the v0.3
// PushNotificationConfig ({"url", …}, what the Go SDK up to v2.3 posts) or a
// TaskPushNotificationConfig holding one ({"taskId",
// "pushNotificationConfig"}). A body that is only {"pushNotificationConfig"}
// reads the same in both; its answer follows the path (pathForm).
func decodeSetPushConfig(r *runtime.AdaptedRequest, req proto.Message) error {
	top := bodyMembers(r.Body)
	form := pathForm(r)
	switch {
	case top["name"] != nil || top["parent"] != nil || top["config"] != nil || top["configId"] != nil:
		form = formProto
	case top["url"] != nil || top["taskId"] != nil:
		form = formKind
	}
	p := &TaskPushNotificationConfig{TaskID: r.Vars["id"]}
	decode := decodePushConfigKind
	if form == formProto {
		decode = decodePushConfigPJ
	}
	if err := decode(r.Body, &p.PushNotificationConfig); err != nil {
		return err
	}
	if form == formProto {
		r.Encode = encodePushConfigPJ
	}
	q, err := SetPushConfigToV1(p)
	if err != nil {
		return err
	}
	proto.Merge(req, q)
	return nil
}

// decodePushConfigPJ reads a create's body in ProtoJSON: a
// TaskPushNotificationConfig or a CreateTaskPushNotificationConfigRequest,
// the config's id from the config, else configId, else the name.
func decodePushConfigPJ(body []byte, out *PushNotificationConfig) error {
	var create struct {
		pjCreatePushConfigRequest
		pjTaskPushConfig
	}
	if err := decodeBody(body, &create); err != nil {
		return err
	}
	tc := &create.pjTaskPushConfig
	if create.Config != nil {
		tc = create.Config
	}
	c := tc.PushNotificationConfig.toKind()
	if c == nil {
		return invalid("pushNotificationConfig", "missing: the push notification config")
	}
	if c.ID == "" {
		c.ID = create.ConfigID
	}
	if _, id, ok := parsePushConfigName(tc.Name); ok && c.ID == "" {
		c.ID = id
	}
	*out = *c
	return nil
}

// decodePushConfigKind reads a create's body in the JSON-RPC form: a
// PushNotificationConfig, or one held in pushNotificationConfig.
func decodePushConfigKind(body []byte, out *PushNotificationConfig) error {
	var wrapped struct {
		PushNotificationConfig *PushNotificationConfig `json:"pushNotificationConfig"`
	}
	if err := decodeBody(body, &wrapped); err != nil {
		return err
	}
	if wrapped.PushNotificationConfig != nil {
		*out = *wrapped.PushNotificationConfig
		return nil
	}
	return decodeBody(body, out)
}

// pushConfigIDs decodes a route of one push config by its ids; its answer
// is written by protoEncode under /v1 when that is set (pathForm).
func pushConfigIDs[Q proto.Message](toV1 func(*PushConfigParams) (Q, error), protoEncode func(proto.Message) ([]byte, error)) func(*runtime.AdaptedRequest, proto.Message) error {
	return func(r *runtime.AdaptedRequest, req proto.Message) error {
		if protoEncode != nil {
			answerIn(r, pathForm(r), protoEncode)
		}
		q, err := toV1(&PushConfigParams{ID: r.Vars["id"], PushNotificationConfigID: r.Vars["configId"]})
		if err != nil {
			return err
		}
		proto.Merge(req, q)
		return nil
	}
}

func encodeEmptyObject(proto.Message) ([]byte, error) { return []byte("{}"), nil }

// The encodings of the answers in the ProtoJSON shapes of v0.3's proto.
var (
	encodeSendResultPJ     = encodeWith(SendResultFromV1, marshalPJEvent)
	encodeEventPJ          = encodeWith(EventFromV1, marshalPJEvent)
	encodeTaskPJ           = encodeWith(TaskFromV1, func(t *Task) ([]byte, error) { return json.Marshal(taskToPJ(t)) })
	encodePushConfigPJ     = encodeWith(infallible(PushConfigFromV1), func(c *TaskPushNotificationConfig) ([]byte, error) { return json.Marshal(pushConfigToPJ(c)) })
	encodePushConfigListPJ = encodeWith(infallible(PushConfigListFromV1), marshalPushConfigListPJ)
)

func marshalPushConfigListPJ(configs []*TaskPushNotificationConfig) ([]byte, error) {
	out := pjListPushConfigs{Configs: []pjTaskPushConfig{}}
	for _, c := range configs {
		out.Configs = append(out.Configs, pushConfigToPJ(c))
	}
	return json.Marshal(out)
}

func marshalPJEvent(v any) ([]byte, error) {
	pj, err := eventToPJ(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(pj)
}
