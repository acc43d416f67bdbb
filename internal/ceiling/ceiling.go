// Package ceiling is the ceiling of the load benchmarks: the least work an
// A2A server must do to answer SendMessage "hello" and SendStreamingMessage
// "stream N", written by hand with nothing else in it (see
// interop/ceilingpeer, which serves it, and docs/performance.md).
//
// Per request: encoding/json reads the JSON-RPC envelope (jsonrpc, id,
// method, raw params) and protojson the params (HTTP+JSON: the body; gRPC:
// grpc-go's proto codec through a hand-written ServiceDesc); a task is built
// from the message — a random task id, the message's context id or a random
// one, the status with a timestamp, the message in history with both ids
// set — and encoded with protojson (JSON-RPC: inside the envelope, id
// echoed). "hello" (any text not starting with "stream", and every
// non-streaming request) is answered with the COMPLETED task carrying one
// artifact "Echo: <text>"; a streaming "stream N" with examples/echo's
// events: the SUBMITTED task, WORKING, N chunks of one artifact, COMPLETED,
// each flushed. No task store, no validation beyond decoding, no version or
// extension negotiation, no authentication: a bound, not a server.
package ceiling

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// maxChunks caps "stream N", as examples/echo does.
const maxChunks = 50

// answer turns a request into the events of its answer: one completed
// task, or, for a streaming request, the events of "stream N".
func answer(req *a2av1.SendMessageRequest, streaming bool, emit func(*a2av1.StreamResponse) error) error {
	msg := req.GetMessage()
	if msg == nil {
		return errors.New("params.message is required")
	}
	taskID, contextID := newID(), msg.GetContextId()
	if contextID == "" {
		contextID = newID()
	}
	msg.TaskId, msg.ContextId = taskID, contextID
	text := ""
	for _, p := range msg.GetParts() {
		text += p.GetText()
	}
	text = strings.TrimSpace(text)
	task := &a2av1.Task{Id: taskID, ContextId: contextID, History: []*a2av1.Message{msg}}
	word, arg, _ := strings.Cut(text, " ")
	if !streaming || !strings.EqualFold(word, "stream") {
		task.Artifacts = []*a2av1.Artifact{textArtifact(newID(), "Echo: "+text)}
		task.Status = status(a2av1.TaskState_TASK_STATE_COMPLETED)
		return emit(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: task}})
	}
	n, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil {
		n = 3
	}
	n = min(max(n, 1), maxChunks)
	task.Status = status(a2av1.TaskState_TASK_STATE_SUBMITTED)
	if err := emit(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: task}}); err != nil {
		return err
	}
	update := func(s a2av1.TaskState) *a2av1.StreamResponse {
		return &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
			TaskId: taskID, ContextId: contextID, Status: status(s),
		}}}
	}
	if err := emit(update(a2av1.TaskState_TASK_STATE_WORKING)); err != nil {
		return err
	}
	artifactID := newID()
	for i := 1; i <= n; i++ {
		chunk := &a2av1.TaskArtifactUpdateEvent{
			TaskId: taskID, ContextId: contextID,
			Artifact: textArtifact(artifactID, fmt.Sprintf("chunk %d/%d;", i, n)),
			Append:   i > 1, LastChunk: i == n,
		}
		if err := emit(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: chunk}}); err != nil {
			return err
		}
	}
	return emit(update(a2av1.TaskState_TASK_STATE_COMPLETED))
}

func textArtifact(id, text string) *a2av1.Artifact {
	return &a2av1.Artifact{ArtifactId: id, Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}}}
}

func status(s a2av1.TaskState) *a2av1.TaskStatus {
	return &a2av1.TaskStatus{State: s, Timestamp: timestamppb.Now()}
}

// newID is a random UUID (version 4) in its text form.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// envelope is a JSON-RPC request with its params left raw.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// ServeJSONRPC answers SendMessage and SendStreamingMessage over JSON-RPC.
func ServeJSONRPC(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil || env.JSONRPC != "2.0" {
		http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, http.StatusOK)
		return
	}
	id := string(env.ID)
	if id == "" {
		id = "null"
	}
	var req a2av1.SendMessageRequest
	if err := protojson.Unmarshal(env.Params, &req); err != nil {
		writeJSONRPCError(w, id, -32602, err)
		return
	}
	switch env.Method {
	case "SendMessage":
		w.Header().Set("Content-Type", "application/json")
		err = answer(&req, false, func(ev *a2av1.StreamResponse) error {
			b, err := protojson.Marshal(&a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: ev.GetTask()}})
			if err != nil {
				return err
			}
			_, err = w.Write(jsonrpcResult(id, b, nil))
			return err
		})
	case "SendStreamingMessage":
		sse := newSSE(w)
		err = answer(&req, true, func(ev *a2av1.StreamResponse) error {
			b, err := protojson.Marshal(ev)
			if err != nil {
				return err
			}
			sse.buf = jsonrpcResult(id, b, sse.buf[:0])
			return sse.event(sse.buf)
		})
	default:
		writeJSONRPCError(w, id, -32601, fmt.Errorf("method %q is not served by the ceiling", env.Method))
		return
	}
	if err != nil {
		writeJSONRPCError(w, id, -32603, err)
	}
}

// jsonrpcResult appends a JSON-RPC success envelope around result to dst.
func jsonrpcResult(id string, result, dst []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, '}')
}

func writeJSONRPCError(w http.ResponseWriter, id string, code int, err error) {
	msg, _ := json.Marshal(err.Error())
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, msg)
}

// ServeSend answers POST {rest}/message:send.
func ServeSend(w http.ResponseWriter, r *http.Request) { serveREST(w, r, false) }

// ServeStream answers POST {rest}/message:stream.
func ServeStream(w http.ResponseWriter, r *http.Request) { serveREST(w, r, true) }

func serveREST(w http.ResponseWriter, r *http.Request, streaming bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var req a2av1.SendMessageRequest
	if err := protojson.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !streaming {
		w.Header().Set("Content-Type", "application/json")
		err = answer(&req, false, func(ev *a2av1.StreamResponse) error {
			b, err := protojson.Marshal(&a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: ev.GetTask()}})
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		})
	} else {
		sse := newSSE(w)
		err = answer(&req, true, func(ev *a2av1.StreamResponse) error {
			b, err := protojson.Marshal(ev)
			if err != nil {
				return err
			}
			return sse.event(b)
		})
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
	}
}

// sse writes Server-Sent Events, flushing each.
type sse struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte // the JSON-RPC envelope of the current event
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	return &sse{w: w, rc: http.NewResponseController(w), buf: make([]byte, 0, 1024)}
}

// event writes one event; the response's own buffer joins the three
// writes.
func (s *sse) event(data []byte) error {
	if _, err := io.WriteString(s.w, "data: "); err != nil {
		return err
	}
	if _, err := s.w.Write(data); err != nil {
		return err
	}
	if _, err := io.WriteString(s.w, "\n\n"); err != nil {
		return err
	}
	return s.rc.Flush()
}

// ceiling is the hand-written gRPC service.
type ceiling struct{}

type ceilingServer interface {
	sendMessage(context.Context, *a2av1.SendMessageRequest) (*a2av1.SendMessageResponse, error)
}

func (ceiling) sendMessage(_ context.Context, req *a2av1.SendMessageRequest) (*a2av1.SendMessageResponse, error) {
	var resp *a2av1.SendMessageResponse
	err := answer(req, false, func(ev *a2av1.StreamResponse) error {
		resp = &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: ev.GetTask()}}
		return nil
	})
	return resp, err
}

// RegisterGRPC registers the hand-written gRPC service (lf.a2a.v1.A2AService:
// SendMessage and SendStreamingMessage only).
func RegisterGRPC(s *grpc.Server) { s.RegisterService(&serviceDesc, ceiling{}) }

var serviceDesc = grpc.ServiceDesc{
	ServiceName: "lf.a2a.v1.A2AService",
	HandlerType: (*ceilingServer)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "SendMessage",
		Handler: func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			req := new(a2av1.SendMessageRequest)
			if err := dec(req); err != nil {
				return nil, err
			}
			return srv.(ceiling).sendMessage(ctx, req)
		},
	}},
	Streams: []grpc.StreamDesc{{
		StreamName:    "SendStreamingMessage",
		ServerStreams: true,
		Handler: func(_ any, stream grpc.ServerStream) error {
			req := new(a2av1.SendMessageRequest)
			if err := stream.RecvMsg(req); err != nil {
				return err
			}
			return answer(req, true, func(ev *a2av1.StreamResponse) error { return stream.SendMsg(ev) })
		},
	}},
	Metadata: "a2a.proto",
}
