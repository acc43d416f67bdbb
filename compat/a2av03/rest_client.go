package a2av03

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// NewRESTClientTransport returns a transport for the v1.0 client
// (a2av1.NewA2AServiceClient) that calls a v0.3-only agent over HTTP+JSON at
// baseURL (the v0.3 card's url or additionalInterfaces entry for
// HTTP+JSON). Each v1.0 request is sent on its v0.3 route below baseURL, the
// google.api.http rules of specification/grpc/a2a.proto at v0.3.0:
//
//	SendMessage                       POST   /v1/message:send
//	SendStreamingMessage              POST   /v1/message:stream   (SSE)
//	GetTask                           GET    /v1/tasks/{id}?historyLength=n
//	CancelTask                        POST   /v1/tasks/{id}:cancel
//	SubscribeToTask                   POST   /v1/tasks/{id}:subscribe (SSE; GET when POST is refused)
//	CreateTaskPushNotificationConfig  POST   /v1/tasks/{id}/pushNotificationConfigs
//	GetTaskPushNotificationConfig     GET    /v1/tasks/{id}/pushNotificationConfigs/{configId}
//	ListTaskPushNotificationConfigs   GET    /v1/tasks/{id}/pushNotificationConfigs
//	DeleteTaskPushNotificationConfig  DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}
//	GetExtendedAgentCard              GET    /v1/card
//
// with the bodies in the ProtoJSON of the v0.3 proto (what the JS SDK 1.3
// and the Go SDK from v2.4 send: a SendMessageRequest, the
// TaskPushNotificationConfig of a create, {"name"} for a cancel), and each
// answer read back into v1.0 in either v0.3 form (ProtoJSON, or the
// JSON-RPC object form with kinds that the Go SDK's server up to v2.3
// writes), in camelCase or snake_case. Deployed v0.3
// servers of the official Go SDK serve these routes without the /v1 prefix
// (and the extended card at /extendedAgentCard): when a /v1 route answers
// 404 without an A2A error, the same request is sent once at the plain path,
// and after a plain path answered, the transport uses plain paths from then
// on.
//
// It is a runtime HTTP+JSON transport underneath, so opts (HTTP client and
// middleware, headers, interceptors, limits) apply as to a v1.0 one; it sends
// A2A-Version 0.3 unless opts say otherwise. Errors are the agent's
// google.rpc.Status (the Go SDK's), top-level JSON-RPC {"code","message"}
// (the JS SDK's v0.3 REST server), problem or text answers as
// *runtime.Error, also when one ends a stream; an answer that is not a valid v0.3 shape is
// InvalidAgentResponse naming the field. ListTasks has no v0.3 rpc: it is
// UnsupportedOperation without a call.
func NewRESTClientTransport(baseURL string, opts ...runtime.ClientOption) runtime.ClientTransport {
	fb := newPathFallback(baseURL)
	opts = append([]runtime.ClientOption{runtime.WithProtocolVersion(Version), runtime.WithHTTPMiddleware(fb.wrap)}, opts...)
	return &restClient{innerTransport{runtime.NewRESTTransport(baseURL, opts...)}}
}

type restClient struct{ innerTransport }

// restRequest is the message the runtime transport fills a v0.3 route
// from: the path variables, the query parameter and the body, a JSON value
// in the v0.3 shapes. It is built at run time (dynamicpb) so that the
// package needs no generated code of its own.
var restRequest = func() protoreflect.MessageDescriptor {
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name:       proto.String("a2agen/compat/a2av03/rest_request.proto"),
		Package:    proto.String("a2agen.compat.a2av03"),
		Dependency: []string{"google/protobuf/struct.proto"},
		Syntax:     proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("RESTRequest"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("id"), JsonName: proto.String("id"), Number: proto.Int32(1), Type: str, Label: opt},
				{Name: proto.String("config_id"), JsonName: proto.String("configId"), Number: proto.Int32(2), Type: str, Label: opt},
				{Name: proto.String("history_length"), JsonName: proto.String("historyLength"), Number: proto.Int32(3),
					Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(), Label: opt, OneofIndex: proto.Int32(0), Proto3Optional: proto.Bool(true)},
				{Name: proto.String("body"), JsonName: proto.String("body"), Number: proto.Int32(4),
					Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".google.protobuf.Value"), Label: opt},
			},
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("_history_length")}},
		}},
	}, protoregistry.GlobalFiles)
	if err != nil {
		panic("a2av03: the REST request descriptor: " + err.Error())
	}
	return fd.Messages().Get(0)
}()

var (
	restFieldID      = restRequest.Fields().ByName("id")
	restFieldConfig  = restRequest.Fields().ByName("config_id")
	restFieldHistory = restRequest.Fields().ByName("history_length")
	restFieldBody    = restRequest.Fields().ByName("body")
)

// restOps are the operations of the v0.3 routes by v1.0 rpc name.
var restOps = func() map[string]*runtime.Operation {
	rule := func(method, path, body string) []runtime.HTTPRule {
		return []runtime.HTTPRule{{Method: method, Path: "/" + RESTPrefix + path, Body: body}}
	}
	ops := []runtime.Operation{
		{Name: "SendMessage", HTTPRules: rule("POST", "/message:send", "body")},
		{Name: "SendStreamingMessage", ServerStreaming: true, HTTPRules: rule("POST", "/message:stream", "body")},
		{Name: "GetTask", HTTPRules: rule("GET", "/tasks/{id}", "")},
		{Name: "CancelTask", HTTPRules: rule("POST", "/tasks/{id}:cancel", "body")},
		// The proto says GET; the official Go SDK serves POST only, and
		// there a GET is read as GetTask of the task "{id}:subscribe".
		{Name: "SubscribeToTask", ServerStreaming: true, HTTPRules: rule("GET", "/tasks/{id}:subscribe", ""),
			HTTPVerbs: &runtime.HTTPVerbs{Client: []string{"POST", "GET"}, RetryStatuses: []int{http.StatusNotFound, http.StatusMethodNotAllowed}}},
		{Name: "CreateTaskPushNotificationConfig", HTTPRules: rule("POST", "/tasks/{id}/pushNotificationConfigs", "body")},
		{Name: "GetTaskPushNotificationConfig", HTTPRules: rule("GET", "/tasks/{id}/pushNotificationConfigs/{config_id}", "")},
		{Name: "ListTaskPushNotificationConfigs", HTTPRules: rule("GET", "/tasks/{id}/pushNotificationConfigs", "")},
		{Name: "DeleteTaskPushNotificationConfig", HTTPRules: rule("DELETE", "/tasks/{id}/pushNotificationConfigs/{config_id}", "")},
		{Name: "GetExtendedAgentCard", HTTPRules: rule("GET", "/card", "")},
	}
	m := make(map[string]*runtime.Operation, len(ops))
	for i := range ops {
		ops[i].Request = restRequest.FullName()
		ops[i].Response = "google.protobuf.Value"
		m[ops[i].Name] = &ops[i]
	}
	return m
}()

// restCall is one v1.0 request as a v0.3 route: the request message of the
// runtime transport and the reader of the answer.
type restCall struct {
	op   *runtime.Operation
	req  *dynamicpb.Message
	read func(json.RawMessage) (proto.Message, error)
}

// restCallOf converts a v1.0 request to its v0.3 route.
func restCallOf(op *runtime.Operation, req proto.Message) (*restCall, error) {
	rop, ok := restOps[op.Name]
	if !ok {
		return nil, runtime.UnsupportedOperation(op.Name + " has no A2A v0.3 counterpart, and the agent speaks only v0.3")
	}
	c := &restCall{op: rop, req: dynamicpb.NewMessage(restRequest)}
	body, err := c.route(req)
	if err != nil {
		return nil, err
	}
	if body == nil {
		return c, nil
	}
	v, err := toValue(body)
	if err != nil {
		return nil, err
	}
	c.req.Set(restFieldBody, protoreflect.ValueOfMessage(v.ProtoReflect()))
	return c, nil
}

// route sets the path variables and the query of req's route and the
// reader of its answer, and returns the body (nil: none).
func (c *restCall) route(req proto.Message) (body any, err error) {
	switch r := req.(type) {
	case *a2av1.SendMessageRequest:
		c.read = readRESTSendResult
		p, err := SendParamsFromV1(r)
		if err != nil {
			return nil, err
		}
		return sendParamsToPJ(p), nil
	case *a2av1.GetTaskRequest:
		c.setPath(r.GetId(), "")
		if r.HistoryLength != nil {
			c.req.Set(restFieldHistory, protoreflect.ValueOfInt32(r.GetHistoryLength()))
		}
		c.read = readRESTTask
	case *a2av1.CancelTaskRequest:
		c.setPath(r.GetId(), "")
		c.read = readRESTTask
		return map[string]string{"name": "tasks/" + r.GetId()}, nil // the v0.3 proto's CancelTaskRequest
	case *a2av1.SubscribeToTaskRequest:
		c.setPath(r.GetId(), "")
	case *a2av1.TaskPushNotificationConfig:
		c.setPath(r.GetTaskId(), "")
		c.read = readRESTPushConfig(r.GetTaskId())
		return pushConfigCreateBody(r), nil
	case *a2av1.GetTaskPushNotificationConfigRequest:
		c.setPath(r.GetTaskId(), r.GetId())
		c.read = readRESTPushConfig(r.GetTaskId())
	case *a2av1.ListTaskPushNotificationConfigsRequest:
		c.setPath(r.GetTaskId(), "")
		c.read = func(raw json.RawMessage) (proto.Message, error) { return readRESTPushConfigList(raw, r.GetTaskId()) }
	case *a2av1.DeleteTaskPushNotificationConfigRequest:
		c.setPath(r.GetTaskId(), r.GetId())
		c.read = func(json.RawMessage) (proto.Message, error) { return &emptypb.Empty{}, nil }
	case *a2av1.GetExtendedAgentCardRequest:
		c.read = func(raw json.RawMessage) (proto.Message, error) { return ReadCard(raw) }
	default:
		return nil, runtime.NewError(runtime.CodeInternal, "a2av03: no A2A v0.3 route for a request of type "+string(req.ProtoReflect().Descriptor().FullName()))
	}
	return nil, nil
}

// setPath sets the route's {id} and {config_id}, those that are not "".
func (c *restCall) setPath(id, configID string) {
	if id != "" {
		c.req.Set(restFieldID, protoreflect.ValueOfString(id))
	}
	if configID != "" {
		c.req.Set(restFieldConfig, protoreflect.ValueOfString(configID))
	}
}

// pushConfigCreateBody is the body of the create: the v0.3 proto's
// TaskPushNotificationConfig, its name ending in / when the config has no
// id yet.
func pushConfigCreateBody(r *a2av1.TaskPushNotificationConfig) any {
	tc := PushConfigFromV1(r)
	pj := pushConfigToPJ(tc)
	if tc.PushNotificationConfig.ID == "" {
		pj.Name = "tasks/" + tc.TaskID + "/pushNotificationConfigs/"
	}
	return pj
}

func readRESTSendResult(raw json.RawMessage) (proto.Message, error) {
	kind, err := eventAsKind(raw, "body")
	if err != nil {
		return nil, err
	}
	return SendResultToV1(kind, "body")
}

// restAnswer is the JSON of a v0.3 answer read into a structpb.Value, with
// snake_case member names (the official Go SDK's v0.3 server writes them)
// made camelCase. A Value without a kind (an empty body) is null.
func restAnswer(v *structpb.Value) (json.RawMessage, error) {
	if v.GetKind() == nil {
		return json.RawMessage("null"), nil
	}
	raw, err := protojson.Marshal(v)
	if err != nil {
		return nil, err
	}
	return camelKeys(raw)
}

func readRESTTask(raw json.RawMessage) (proto.Message, error) {
	t, err := taskAsKind(raw, "body")
	if err != nil {
		return nil, err
	}
	return TaskToV1(t, "body")
}

// readRESTPushConfig reads a TaskPushNotificationConfig; one without its
// taskId is the request's task's.
func readRESTPushConfig(taskID string) func(json.RawMessage) (proto.Message, error) {
	return func(raw json.RawMessage) (proto.Message, error) {
		var c anyTaskPushConfig
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, invalid("body", "does not decode as an A2A v0.3 push config: "+err.Error())
		}
		tc := c.taskPushConfig(taskID)
		return PushConfigToV1(tc.TaskID, &tc.PushNotificationConfig, "body.pushNotificationConfig")
	}
}

// readRESTPushConfigList reads a list of push configs: the JSON-RPC form's
// array or the ProtoJSON ListTaskPushNotificationConfigResponse
// ({"configs": […]}).
func readRESTPushConfigList(raw json.RawMessage, taskID string) (proto.Message, error) {
	var list []anyTaskPushConfig
	path := "body"
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		var wrapped struct {
			Configs []anyTaskPushConfig `json:"configs"`
		}
		if err := json.Unmarshal(raw, &wrapped); err != nil {
			return nil, invalid("body", "must be a list of A2A v0.3 push configs: "+err.Error())
		}
		list, path = wrapped.Configs, "body.configs"
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, invalid("body", "must be a list of A2A v0.3 push configs: "+err.Error())
	}
	out := &a2av1.ListTaskPushNotificationConfigsResponse{}
	for i := range list {
		tc := list[i].taskPushConfig(taskID)
		c, err := PushConfigToV1(tc.TaskID, &tc.PushNotificationConfig, index(path, i)+".pushNotificationConfig")
		if err != nil {
			return nil, err
		}
		out.Configs = append(out.Configs, c)
	}
	return out, nil
}

// restEventToV1 reads one v0.3 SSE event: a result or event of either
// form, or an error document ending the stream with that error: an
// {"error":{…}} Status (the Go SDK's), or a top-level JSON-RPC
// {"code","message"} (the JS SDK's, sent as "event: error").
func restEventToV1(raw json.RawMessage) (*a2av1.StreamResponse, error) {
	var head struct {
		Kind    string          `json:"kind"`
		Error   json.RawMessage `json:"error"`
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(raw, &head) == nil && head.Kind == "" {
		_, textMessage := jsonStringValue(head.Message)
		if (len(head.Error) > 0 && string(head.Error) != "null") || (len(head.Code) > 0 && textMessage) {
			return nil, runtime.DecodeRESTError(http.StatusInternalServerError, raw)
		}
	}
	kind, err := eventAsKind(raw, "event")
	if err != nil {
		return nil, badAnswer("HTTP+JSON stream event", err)
	}
	e, err := EventToV1(kind, "event")
	return e, badAnswer("HTTP+JSON stream event", err)
}

func (t *restClient) Unary(ctx context.Context, op *runtime.Operation, req, resp proto.Message) error {
	c, err := restCallOf(op, req)
	if err != nil {
		return err
	}
	if c.read == nil {
		return runtime.NewError(runtime.CodeInternal, "a2av03: "+op.Name+" is a stream")
	}
	answer := new(structpb.Value)
	if err := t.inner.Unary(ctx, c.op, c.req, answer); err != nil {
		return err
	}
	raw, err := restAnswer(answer)
	if err == nil {
		var m proto.Message
		if m, err = c.read(raw); err == nil {
			proto.Reset(resp)
			proto.Merge(resp, m)
			return nil
		}
	}
	return badAnswer(c.op.HTTPRules[0].Method+" "+c.op.HTTPRules[0].Path, err)
}

func (t *restClient) Stream(ctx context.Context, op *runtime.Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		c, err := restCallOf(op, req)
		if err != nil {
			yield(nil, err)
			return
		}
		for m, err := range t.inner.Stream(ctx, c.op, c.req, func() proto.Message { return new(structpb.Value) }) {
			if err != nil {
				yield(nil, err)
				return
			}
			raw, err := restAnswer(m.(*structpb.Value))
			var e *a2av1.StreamResponse
			if err == nil {
				e, err = restEventToV1(raw)
			} else {
				err = badAnswer("HTTP+JSON stream event", err)
			}
			if err != nil {
				yield(nil, err)
				return
			}
			out := newResp()
			proto.Merge(out, e)
			if !yield(out, nil) {
				return
			}
		}
	}
}

// pathFallback is the HTTP middleware that sends a v0.3 request at its
// plain path ("/message:send" instead of "/v1/message:send") when the /v1
// route is missing, and keeps doing so once a plain path answered.
type pathFallback struct {
	base  string // the escaped path of the interface URL, without a trailing /
	plain atomic.Bool
}

// maxFallbackProbe bounds what is read of a 404 body to tell a missing
// route from an A2A error.
const maxFallbackProbe = 64 << 10

func newPathFallback(baseURL string) *pathFallback {
	f := &pathFallback{}
	if u, err := url.Parse(baseURL); err == nil {
		f.base = strings.TrimRight(u.EscapedPath(), "/")
	}
	return f
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (f *pathFallback) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		plain, ok := f.plainRequest(r)
		if !ok {
			return next.RoundTrip(r)
		}
		if f.plain.Load() {
			if err := plainBody(plain, r.Body); err != nil {
				return nil, err
			}
			return next.RoundTrip(plain)
		}
		resp, err := next.RoundTrip(r)
		if err != nil || resp.StatusCode != http.StatusNotFound {
			return resp, err
		}
		return f.retryPlain(next, r, plain, resp)
	})
}

// retryPlain sends plain, r at its plain path, after r's /v1 route answered
// resp, a 404: unless resp is an A2A error (the route exists) or r's body
// cannot be sent twice. While the plain path is missing too, resp is the
// answer; once it answers, every later request goes there at once.
func (f *pathFallback) retryPlain(next http.RoundTripper, r, plain *http.Request, resp *http.Response) (*http.Response, error) {
	probe, err := io.ReadAll(io.LimitReader(resp.Body, maxFallbackProbe))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(probe))
	if err != nil || isA2AError(probe) || !resendBody(r, plain) {
		return resp, nil
	}
	presp, err := next.RoundTrip(plain)
	if err != nil {
		return nil, err
	}
	if presp.StatusCode == http.StatusNotFound {
		presp.Body.Close()
		return resp, nil // the /v1 route's answer says more
	}
	f.plain.Store(true)
	return presp, nil
}

// resendBody gives plain the body of r again, and says whether it could: a
// body without GetBody cannot be read twice.
func resendBody(r, plain *http.Request) bool {
	if r.GetBody == nil {
		return r.Body == nil || r.Body == http.NoBody
	}
	body, err := r.GetBody()
	return err == nil && plainBody(plain, body) == nil
}

// plainRequest is r at the plain path of its /v1 route, or false when r's
// path is not below the interface's /v1.
func (f *pathFallback) plainRequest(r *http.Request) (*http.Request, bool) {
	p := r.URL.EscapedPath()
	rest, ok := strings.CutPrefix(p, f.base+"/"+RESTPrefix+"/")
	if !ok {
		return nil, false
	}
	if rest == "card" {
		rest = "extendedAgentCard" // the official Go SDK's path of the extended card
	}
	esc := f.base + "/" + rest
	path, err := url.PathUnescape(esc)
	if err != nil {
		return nil, false
	}
	out := r.Clone(r.Context())
	u := *r.URL
	u.Path, u.RawPath = path, esc
	out.URL = &u
	return out, true
}

// plainBody sets the body of plain, a request at a plain path, to body
// (ProtoJSON, as sent under /v1) in the JSON-RPC object form: the servers
// of the plain paths (the Go SDK's a2av0 up to v2.3) read only that form. A
// message:send or :stream body becomes MessageSendParams, a create's
// TaskPushNotificationConfig the bare PushNotificationConfig, a cancel's
// {"name"} {"id"}; other bodies are sent as they are.
func plainBody(plain *http.Request, body io.ReadCloser) error {
	if body == nil || body == http.NoBody {
		plain.Body = body
		return nil
	}
	raw, err := io.ReadAll(body)
	body.Close()
	if err != nil {
		return err
	}
	raw = kindBody(plain.URL.Path, raw)
	plain.Body = io.NopCloser(bytes.NewReader(raw))
	plain.ContentLength = int64(len(raw))
	plain.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
	return nil
}

// kindBody is a ProtoJSON request body for path in the JSON-RPC object
// form (see plainBody); a body that does not convert is kept.
func kindBody(path string, raw []byte) []byte {
	var out any
	switch {
	case strings.HasSuffix(path, "/message:send") || strings.HasSuffix(path, "/message:stream"):
		var pj pjSendRequest
		if json.Unmarshal(raw, &pj) != nil {
			return raw
		}
		p, err := pj.toKind()
		if err != nil {
			return raw
		}
		out = p
	case strings.HasSuffix(path, "/pushNotificationConfigs"):
		var pj pjTaskPushConfig
		if json.Unmarshal(raw, &pj) != nil || pj.PushNotificationConfig == nil {
			return raw
		}
		out = pj.PushNotificationConfig.toKind()
	case strings.HasSuffix(path, ":cancel"):
		var pj struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &pj) != nil {
			return raw
		}
		out = map[string]string{"id": strings.TrimPrefix(pj.Name, "tasks/")}
	default:
		return raw
	}
	b, err := json.Marshal(out)
	if err != nil {
		return raw
	}
	return b
}

// isA2AError reports whether a 404 body is an A2A error of a route that
// exists (TASK_NOT_FOUND, say): a google.rpc.Status with an ErrorInfo
// reason other than METHOD_NOT_FOUND.
func isA2AError(body []byte) bool {
	var doc struct {
		Error struct {
			Details []struct {
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return false
	}
	for _, d := range doc.Error.Details {
		if d.Reason != "" && d.Reason != runtime.CodeMethodNotFound.Reason() {
			return true
		}
	}
	return false
}

// jsonStringValue is raw as a JSON string, and whether it is one.
func jsonStringValue(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
