package inspect

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"strings"
	"sync/atomic"

	"google.golang.org/grpc"
	grpccreds "google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// operation is one A2A operation the page may call: how to decode its
// request (A2A v1.0 ProtoJSON, whatever the interface's version: the
// client converts) and how to call it.
type operation struct {
	newRequest func() proto.Message
	unary      func(context.Context, a2av1.A2AServiceClient, proto.Message) (proto.Message, error)
	stream     func(context.Context, a2av1.A2AServiceClient, proto.Message) iter.Seq2[*a2av1.StreamResponse, error]
}

func unaryOp[Req, Resp proto.Message](newReq func() Req, call func(a2av1.A2AServiceClient, context.Context, Req) (Resp, error)) operation {
	return operation{
		newRequest: func() proto.Message { return newReq() },
		unary: func(ctx context.Context, c a2av1.A2AServiceClient, req proto.Message) (proto.Message, error) {
			return call(c, ctx, req.(Req))
		},
	}
}

func streamOp[Req proto.Message](newReq func() Req, call func(a2av1.A2AServiceClient, context.Context, Req) iter.Seq2[*a2av1.StreamResponse, error]) operation {
	return operation{
		newRequest: func() proto.Message { return newReq() },
		stream: func(ctx context.Context, c a2av1.A2AServiceClient, req proto.Message) iter.Seq2[*a2av1.StreamResponse, error] {
			return call(c, ctx, req.(Req))
		},
	}
}

// operations are the A2A v1.0 operations by rpc name.
var operations = map[string]operation{
	"SendMessage":                      unaryOp(func() *a2av1.SendMessageRequest { return new(a2av1.SendMessageRequest) }, a2av1.A2AServiceClient.SendMessage),
	"SendStreamingMessage":             streamOp(func() *a2av1.SendMessageRequest { return new(a2av1.SendMessageRequest) }, a2av1.A2AServiceClient.SendStreamingMessage),
	"GetTask":                          unaryOp(func() *a2av1.GetTaskRequest { return new(a2av1.GetTaskRequest) }, a2av1.A2AServiceClient.GetTask),
	"ListTasks":                        unaryOp(func() *a2av1.ListTasksRequest { return new(a2av1.ListTasksRequest) }, a2av1.A2AServiceClient.ListTasks),
	"CancelTask":                       unaryOp(func() *a2av1.CancelTaskRequest { return new(a2av1.CancelTaskRequest) }, a2av1.A2AServiceClient.CancelTask),
	"SubscribeToTask":                  streamOp(func() *a2av1.SubscribeToTaskRequest { return new(a2av1.SubscribeToTaskRequest) }, a2av1.A2AServiceClient.SubscribeToTask),
	"CreateTaskPushNotificationConfig": unaryOp(func() *a2av1.TaskPushNotificationConfig { return new(a2av1.TaskPushNotificationConfig) }, a2av1.A2AServiceClient.CreateTaskPushNotificationConfig),
	"GetTaskPushNotificationConfig": unaryOp(func() *a2av1.GetTaskPushNotificationConfigRequest {
		return new(a2av1.GetTaskPushNotificationConfigRequest)
	}, a2av1.A2AServiceClient.GetTaskPushNotificationConfig),
	"ListTaskPushNotificationConfigs": unaryOp(func() *a2av1.ListTaskPushNotificationConfigsRequest {
		return new(a2av1.ListTaskPushNotificationConfigsRequest)
	}, a2av1.A2AServiceClient.ListTaskPushNotificationConfigs),
	"DeleteTaskPushNotificationConfig": unaryOp(func() *a2av1.DeleteTaskPushNotificationConfigRequest {
		return new(a2av1.DeleteTaskPushNotificationConfigRequest)
	}, a2av1.A2AServiceClient.DeleteTaskPushNotificationConfig),
	"GetExtendedAgentCard": unaryOp(func() *a2av1.GetExtendedAgentCardRequest { return new(a2av1.GetExtendedAgentCardRequest) }, a2av1.A2AServiceClient.GetExtendedAgentCard),
}

// callRequest is what the page posts to /api/call.
type callRequest struct {
	Interface  int             `json:"interface"` // index into the card's supportedInterfaces
	Version    string          `json:"version"`   // "" (the interface's), "1.0" or "0.3"
	Operation  string          `json:"operation"`
	Request    json.RawMessage `json:"request"`
	Extensions []string        `json:"extensions"`
}

// callError is an error as the page shows it.
type callError struct {
	Code       string            `json:"code,omitempty"` // the A2A error's name; empty for transport failures
	Message    string            `json:"message"`
	Violations []violation       `json:"violations,omitempty"`
	Metadata   map[string]string `json:"metadata,omitempty"`
}

type violation struct {
	Field       string `json:"field"`
	Description string `json:"description"`
}

func toCallError(err error) *callError {
	var e *runtime.Error
	if !errors.As(err, &e) {
		return &callError{Message: err.Error()}
	}
	ce := &callError{Code: e.Code().String(), Message: e.Message(), Metadata: e.Metadata()}
	for _, v := range e.FieldViolations() {
		ce.Violations = append(ce.Violations, violation{Field: v.Field, Description: v.Description})
	}
	return ce
}

type callCounter struct{ n atomic.Int64 }

// prepared is a call ready to run: its client and tagged context.
type prepared struct {
	client *agentcard.Client
	ctx    context.Context
	tag    *callTag
}

// prepare builds the client of the chosen interface with the session's
// credentials and the call's extensions.
func (s *Server) prepare(ctx context.Context, in *callRequest, req proto.Message) (*prepared, *callError, int) {
	s.mu.Lock()
	agent, creds := s.agent, s.creds
	s.mu.Unlock()
	if agent == nil {
		return nil, &callError{Message: "open an agent's card first"}, http.StatusConflict
	}
	card, iface, ok := cardFor(agent.card, in.Interface, in.Version)
	if !ok {
		return nil, &callError{Message: "no such interface in the card"}, http.StatusBadRequest
	}
	c, err := agentcard.NewClient(card,
		agentcard.WithHTTPClient(s.httpClient(creds)),
		agentcard.WithGRPCDialOptions(s.dialOptions(creds, iface)...),
		agentcard.WithClientOptions(creds.clientOptions(in.Extensions)...))
	if err != nil {
		return nil, &callError{Message: err.Error()}, http.StatusBadRequest
	}
	binding := iface.GetProtocolBinding()
	if b, err := runtime.ParseBinding(binding); err == nil {
		binding = string(b)
	}
	tag := &callTag{id: s.calls.n.Add(1), binding: binding, operation: in.Operation}
	tag.cli = cliCommand(agent.url, iface, in, req)
	return &prepared{client: c, ctx: withCallTag(ctx, tag), tag: tag}, nil, 0
}

// clientOptions send the session's credentials (headers, query
// parameters) and the call's extensions.
func (c *credentials) clientOptions(extensions []string) []runtime.ClientOption {
	var out []runtime.ClientOption
	for _, h := range c.headers {
		out = append(out, runtime.WithHeader(h[0], h[1]))
	}
	if len(c.query) > 0 {
		out = append(out, runtime.WithHTTPMiddleware(c.queryMiddleware))
	}
	if len(extensions) > 0 {
		out = append(out, runtime.WithExtensions(extensions...))
	}
	return out
}

// dialOptions are the gRPC dial options of a call: the recorder's, and
// TLS with the session's client certificate when the interface is https.
func (s *Server) dialOptions(creds *credentials, iface *a2av1.AgentInterface) []grpc.DialOption {
	dial := s.rec.grpcDialOptions()
	if creds.cert == nil || !strings.HasPrefix(iface.GetUrl(), "https://") {
		return dial
	}
	cfg := s.opts.HTTPTransport.TLSClientConfig.Clone()
	if cfg == nil {
		cfg = new(tls.Config)
	}
	cfg.Certificates = append(cfg.Certificates, *creds.cert)
	return append(dial, grpc.WithTransportCredentials(grpccreds.NewTLS(cfg)))
}

// handleCall makes one A2A call. Unary answers are one JSON object
// {call, response} or {call, error}; streams are NDJSON: {call, event} per
// event, then {call, error} or {call, done: true}.
func (s *Server) handleCall(w http.ResponseWriter, r *http.Request) {
	var in callRequest
	if !readJSON(w, r, &in) {
		return
	}
	op, ok := operations[in.Operation]
	if !ok {
		writeError(w, http.StatusBadRequest, "unknown operation "+in.Operation)
		return
	}
	req := op.newRequest()
	if len(in.Request) > 0 {
		if err := runtime.UnmarshalJSON(in.Request, req); err != nil {
			writeError(w, http.StatusBadRequest, in.Operation+" request: "+err.Error())
			return
		}
	}
	p, cerr, status := s.prepare(r.Context(), &in, req)
	if cerr != nil {
		writeJSON(w, status, map[string]any{"error": cerr})
		return
	}
	defer p.client.Close()
	if op.unary != nil {
		writeUnary(w, p, op, req)
		return
	}
	writeStream(w, p, op, req)
}

// writeUnary answers a unary call: {call, response} or {call, error}.
func writeUnary(w http.ResponseWriter, p *prepared, op operation, req proto.Message) {
	resp, err := op.unary(p.ctx, p.client, req)
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"call": p.tag.id, "error": toCallError(err)})
		return
	}
	b, err := runtime.MarshalJSON(resp)
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"call": p.tag.id, "error": toCallError(err)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"call": p.tag.id, "response": json.RawMessage(b)})
}

// writeStream answers a streaming call as NDJSON: {call, opened}, then
// {call, event} per event, then {call, error} or {call, done: true}.
func writeStream(w http.ResponseWriter, p *prepared, op operation, req proto.Message) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	line := func(v map[string]any) {
		v["call"] = p.tag.id
		_ = enc.Encode(v)
		if flusher != nil {
			flusher.Flush()
		}
	}
	line(map[string]any{"opened": true})
	for ev, err := range op.stream(p.ctx, p.client, req) {
		if err != nil {
			line(map[string]any{"error": toCallError(err)})
			return
		}
		b, err := runtime.MarshalJSON(ev)
		if err != nil {
			line(map[string]any{"error": toCallError(err)})
			return
		}
		line(map[string]any{"event": json.RawMessage(b)})
	}
	line(map[string]any{"done": true})
}
