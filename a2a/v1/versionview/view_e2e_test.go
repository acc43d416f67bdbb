package versionview_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/protobuild"
	"github.com/a2agen/a2agen/runtime"
)

// The A2A 1.1 draft on the wire: one handler serving 1.0 and 1.1 at once.
// A caller that negotiated 1.0 (or named no version) is checked with the
// strictest decoders there are, built from the bundled v1.0.1 proto itself:
// protojson without DiscardUnknown on the HTTP bindings (it refuses any
// member 1.0 does not define), and on gRPC a 1.0 message with no unknown
// fields anywhere. A caller that negotiated 1.1 must get every 1.1 field.
//
// These tests live in a package of their own, not in a2a/v1's: the strict
// 1.0 types are compiled from the proto with internal/protobuild, whose
// protocompile dependency keeps about 320 KB of descriptors live from its
// package initialisation on. In a2a/v1's test binary that heap made every
// benchmark there mark it on each collection (their heaps stay near the
// collector's 4 MB minimum): RESTGetTask 74,222 -> 82,591 instructions per
// call with the collector on (docs/performance.md).

// generationAgent sets the 1.1 draft's generation fields on everything it
// answers, streams a message update and an artifact with PR #2153's fields,
// and records the 1.1 request fields it was given.
type generationAgent struct {
	a2av1.UnimplementedA2AServiceHandler

	mu   sync.Mutex
	seen []string // "ifGenerationMatch" when a SendMessage carried it
}

func (a *generationAgent) saw(what string) {
	a.mu.Lock()
	a.seen = append(a.seen, what)
	a.mu.Unlock()
}

func (a *generationAgent) takeSeen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.seen
	a.seen = nil
	return s
}

func (a *generationAgent) SendMessage(_ context.Context, req *a2av1.SendMessageRequest) (*a2av1.SendMessageResponse, error) {
	if req.GetConfiguration().IfGenerationMatch != nil {
		a.saw("ifGenerationMatch")
	}
	if req.GetMessage().GetParts()[0].GetText() == "mismatch" {
		return nil, runtime.NewError(runtime.CodeTaskGenerationMismatch, "Task generation mismatch: expected 2 but current generation is 3")
	}
	return &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: generationTask(3)}}, nil
}

func (a *generationAgent) SendStreamingMessage(_ context.Context, req *a2av1.SendMessageRequest, s runtime.Stream[*a2av1.StreamResponse]) error {
	if req.GetConfiguration().IfGenerationMatch != nil {
		a.saw("ifGenerationMatch")
	}
	events := []*a2av1.StreamResponse{
		{Payload: &a2av1.StreamResponse_Task{Task: generationTask(1)}},
		{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t-1", ContextId: "c-1",
			Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}, Generation: 2}}},
		// A2A PR #2153's event for a message joining the task: a oneof
		// case 1.0 lacks, so a 1.0 caller is not sent it at all.
		{Payload: &a2av1.StreamResponse_MessageUpdate{MessageUpdate: &a2av1.TaskMessageUpdateEvent{TaskId: "t-1", ContextId: "c-1",
			Message: textMessage("more", "t-1"), Generation: 3}}},
		// Artifact.start_generation and role are #2153's too.
		{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: "t-1", ContextId: "c-1",
			Artifact: &a2av1.Artifact{ArtifactId: "a-1", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "x"}}},
				StartGeneration: 4, Role: a2av1.Role_ROLE_AGENT}, Generation: 4}}},
	}
	for _, ev := range events {
		if err := s.Send(ev); err != nil {
			return err
		}
	}
	if req.GetMessage().GetParts()[0].GetText() == "mismatch" {
		return runtime.NewError(runtime.CodeTaskGenerationMismatch, "")
	}
	return nil
}

func generationTask(gen int64) *a2av1.Task {
	return &a2av1.Task{Id: "t-1", ContextId: "c-1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}, Generation: gen}
}

// v10Types are the message types of the bundled v1.0.1 proto, compiled
// here: what a strict 1.0 client decodes with.
func v10Types(t *testing.T) func(name string) protoreflect.MessageType {
	t.Helper()
	protos, err := protobuild.Compile(context.Background(), []string{"../../../proto"}, "lf/a2a/v1/a2a.proto")
	if err != nil {
		t.Fatal(err)
	}
	files, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: protos})
	if err != nil {
		t.Fatal(err)
	}
	return func(name string) protoreflect.MessageType {
		d, err := files.FindDescriptorByName(protoreflect.FullName("lf.a2a.v1." + name))
		if err != nil {
			t.Fatal(err)
		}
		md := d.(protoreflect.MessageDescriptor)
		if md.Fields().ByName("generation") != nil {
			t.Fatalf("the v1.0 proto has %s.generation: the test compiled the draft", name)
		}
		return dynamicpb.NewMessageType(md)
	}
}

// sendParams is a SendMessage request carrying the 1.1 if_generation_match,
// which a 1.0 caller may send too (it is accepted and ignored).
func sendParams(text string) *a2av1.SendMessageRequest {
	return &a2av1.SendMessageRequest{Message: textMessage(text, "t-1"),
		Configuration: &a2av1.SendMessageConfiguration{IfGenerationMatch: proto.Int64(2)}}
}

// versionCase is one negotiated version: the A2A-Version sent ("" for
// none) and whether the call gets the 1.1 draft.
type versionCase struct {
	header string
	v11    bool
}

var versionCases = []versionCase{{"1.0", false}, {"", false}, {"1.1", true}}

// checkAnswer decodes one answer (a SendMessageResponse or one stream
// event) as the version's client would, and checks the generation it shows.
func checkAnswer(t *testing.T, vc versionCase, strict10 protoreflect.MessageType, raw []byte, decode func([]byte, proto.Message) error, wantGen int64) {
	t.Helper()
	if !vc.v11 {
		m := strict10.New().Interface()
		if err := decode(raw, m); err != nil {
			t.Errorf("a strict A2A 1.0 client cannot decode the answer: %v\n%s", err, raw)
		}
		if unknown := unknownFields(m.ProtoReflect()); unknown != "" {
			t.Errorf("A2A 1.0 answer holds fields 1.0 lacks (%s)", unknown)
		}
		return
	}
	var m proto.Message = new(a2av1.StreamResponse)
	if strict10.Descriptor().Name() == "SendMessageResponse" {
		m = new(a2av1.SendMessageResponse)
	}
	if err := decode(raw, m); err != nil {
		t.Fatalf("decode as 1.1: %v\n%s", err, raw)
	}
	if got := generationOf(m); got != wantGen {
		t.Errorf("1.1 answer shows generation %d, want %d: %s", got, wantGen, raw)
	}
}

// generationOf is the generation an answer or event carries.
func generationOf(m proto.Message) int64 {
	switch m := m.(type) {
	case *a2av1.SendMessageResponse:
		return m.GetTask().GetGeneration()
	case *a2av1.StreamResponse:
		switch {
		case m.GetTask() != nil:
			return m.GetTask().GetGeneration()
		case m.GetStatusUpdate() != nil:
			return m.GetStatusUpdate().GetGeneration()
		case m.GetArtifactUpdate() != nil:
			return m.GetArtifactUpdate().GetGeneration()
		case m.GetMessageUpdate() != nil:
			return m.GetMessageUpdate().GetGeneration()
		}
	}
	return -1
}

// unknownFields names the first message in m holding unknown fields, or "".
func unknownFields(m protoreflect.Message) string {
	if len(m.GetUnknown()) > 0 {
		return string(m.Descriptor().FullName())
	}
	found := ""
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			for i := range v.List().Len() {
				if found = unknownFields(v.List().Get(i).Message()); found != "" {
					return false
				}
			}
		case fd.IsMap() && fd.MapValue().Kind() == protoreflect.MessageKind:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				found = unknownFields(mv.Message())
				return found == ""
			})
		case !fd.IsList() && !fd.IsMap() && fd.Kind() == protoreflect.MessageKind:
			found = unknownFields(v.Message())
		}
		return found == ""
	})
	return found
}

func strictJSON(b []byte, m proto.Message) error { return protojson.Unmarshal(b, m) }

// postJSON sends body with the case's A2A-Version and returns the answer.
func postJSON(t *testing.T, url, version string, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// sseData returns the data of every event of an SSE body.
func sseData(t *testing.T, r io.Reader) [][]byte {
	t.Helper()
	var out [][]byte
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, []byte(data))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func protoJSON(t *testing.T, m proto.Message) json.RawMessage {
	t.Helper()
	b, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVersionViewJSONRPC: JSON-RPC SendMessage, SendStreamingMessage and a
// 1.1 error, as each version's client sees them.
func TestVersionViewJSONRPC(t *testing.T) {
	types := v10Types(t)
	agent := &generationAgent{}
	url := onLoopback(t, a2av1.NewA2AServiceJSONRPCHandler(agent, runtime.WithSupportedVersions("1.1", "1.0")))
	call := func(vc versionCase, method string, params *a2av1.SendMessageRequest) *http.Response {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": protoJSON(t, params)})
		return postJSON(t, url, vc.header, body)
	}
	for _, vc := range versionCases {
		t.Run("A2A-Version="+vc.header, func(t *testing.T) {
			var env struct {
				Result json.RawMessage
				Error  *struct {
					Code int
					Data []struct{ Reason string }
				}
			}
			if err := json.NewDecoder(call(vc, "SendMessage", sendParams("hi")).Body).Decode(&env); err != nil || env.Error != nil {
				t.Fatalf("SendMessage: %v %+v", err, env.Error)
			}
			checkAnswer(t, vc, types("SendMessageResponse"), env.Result, strictJSON, 3)
			checkSeen(t, vc, agent)

			events := sseData(t, call(vc, "SendStreamingMessage", sendParams("hi")).Body)
			if want := streamEvents(vc); len(events) != want {
				t.Fatalf("%d events, want %d", len(events), want)
			}
			for i, ev := range events {
				var env struct{ Result json.RawMessage }
				if err := json.Unmarshal(ev, &env); err != nil {
					t.Fatal(err)
				}
				checkAnswer(t, vc, types("StreamResponse"), env.Result, strictJSON, int64(i+1))
			}
			checkSeen(t, vc, agent)

			env.Error = nil
			if err := json.NewDecoder(call(vc, "SendMessage", sendParams("mismatch")).Body).Decode(&env); err != nil || env.Error == nil {
				t.Fatalf("SendMessage mismatch: %v, error %+v", err, env.Error)
			}
			wantCode, wantReason := -32004, "UNSUPPORTED_OPERATION"
			if vc.v11 {
				wantCode, wantReason = -32010, "TASK_GENERATION_MISMATCH"
			}
			if env.Error.Code != wantCode || len(env.Error.Data) == 0 || env.Error.Data[0].Reason != wantReason {
				t.Errorf("mismatch error %+v, want code %d reason %s", env.Error, wantCode, wantReason)
			}
		})
	}
}

// streamEvents is how many of generationAgent's four stream events a
// caller of the version gets: 1.0 lacks the message update.
func streamEvents(vc versionCase) int {
	if vc.v11 {
		return 4
	}
	return 3
}

// checkSeen: the handler saw if_generation_match only from a 1.1 caller (a
// 1.0 caller's request is read with 1.0's meaning).
func checkSeen(t *testing.T, vc versionCase, agent *generationAgent) {
	t.Helper()
	seen := agent.takeSeen()
	if vc.v11 != (len(seen) == 1) {
		t.Errorf("handler saw %v from a caller of A2A-Version %q", seen, vc.header)
	}
}

// TestVersionViewHTTPJSON is TestVersionViewJSONRPC on HTTP+JSON.
func TestVersionViewHTTPJSON(t *testing.T) {
	types := v10Types(t)
	agent := &generationAgent{}
	url := onLoopback(t, a2av1.NewA2AServiceRESTHandler(agent, runtime.WithSupportedVersions("1.1", "1.0")))
	for _, vc := range versionCases {
		t.Run("A2A-Version="+vc.header, func(t *testing.T) {
			resp := postJSON(t, url+"/message:send", vc.header, protoJSON(t, sendParams("hi")))
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			checkAnswer(t, vc, types("SendMessageResponse"), body, strictJSON, 3)
			checkSeen(t, vc, agent)

			events := sseData(t, postJSON(t, url+"/message:stream", vc.header, protoJSON(t, sendParams("hi"))).Body)
			if want := streamEvents(vc); len(events) != want {
				t.Fatalf("%d events, want %d", len(events), want)
			}
			for i, ev := range events {
				checkAnswer(t, vc, types("StreamResponse"), ev, strictJSON, int64(i+1))
			}
			checkSeen(t, vc, agent)

			resp = postJSON(t, url+"/message:send", vc.header, protoJSON(t, sendParams("mismatch")))
			body, _ = io.ReadAll(resp.Body)
			wantStatus, wantReason := http.StatusBadRequest, "UNSUPPORTED_OPERATION"
			if vc.v11 {
				wantStatus, wantReason = http.StatusConflict, "TASK_GENERATION_MISMATCH"
			}
			if resp.StatusCode != wantStatus || !bytes.Contains(body, []byte(`"reason":"`+wantReason+`"`)) {
				t.Errorf("mismatch: status %d %s, want %d with reason %s", resp.StatusCode, body, wantStatus, wantReason)
			}
		})
	}
}

// TestVersionViewGRPC is TestVersionViewJSONRPC on gRPC: the 1.0 client
// decodes into messages of the v1.0.1 proto and finds no unknown field.
func TestVersionViewGRPC(t *testing.T) {
	types := v10Types(t)
	agent := &generationAgent{}
	cc := grpcOnLoopback(t, agent, runtime.WithSupportedVersions("1.1", "1.0"))
	binary := func(b []byte, m proto.Message) error { return proto.Unmarshal(b, m) }
	for _, vc := range versionCases {
		t.Run("A2A-Version="+vc.header, func(t *testing.T) {
			ctx := context.Background()
			if vc.header != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", vc.header)
			}
			var raw rawAnswer
			if err := cc.Invoke(ctx, a2av1.A2AServiceSendMessageProcedure, sendParams("hi"), &raw, grpc.ForceCodecV2(answerCodec{})); err != nil {
				t.Fatal(err)
			}
			checkAnswer(t, vc, types("SendMessageResponse"), raw, binary, 3)
			checkSeen(t, vc, agent)

			stream, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, a2av1.A2AServiceSendStreamingMessageProcedure, grpc.ForceCodecV2(answerCodec{}))
			if err != nil {
				t.Fatal(err)
			}
			if err := stream.SendMsg(sendParams("hi")); err != nil {
				t.Fatal(err)
			}
			_ = stream.CloseSend()
			n := 0
			for {
				var ev rawAnswer
				if err := stream.RecvMsg(&ev); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				n++
				checkAnswer(t, vc, types("StreamResponse"), ev, binary, int64(n))
			}
			if want := streamEvents(vc); n != want {
				t.Errorf("%d events, want %d", n, want)
			}
			checkSeen(t, vc, agent)

			err = cc.Invoke(ctx, a2av1.A2AServiceSendMessageProcedure, sendParams("mismatch"), &raw, grpc.ForceCodecV2(answerCodec{}))
			wantCode, wantReason := codes.FailedPrecondition, "UNSUPPORTED_OPERATION"
			if vc.v11 {
				wantCode, wantReason = codes.Aborted, "TASK_GENERATION_MISMATCH"
			}
			st := status.Convert(err)
			reason := ""
			for _, d := range st.Details() {
				if info, ok := d.(*errdetails.ErrorInfo); ok {
					reason = info.GetReason()
				}
			}
			if st.Code() != wantCode || reason != wantReason {
				t.Errorf("mismatch: %v %q, want %v %q", st.Code(), reason, wantCode, wantReason)
			}
		})
	}
}

// rawAnswer is a gRPC answer kept as its protobuf bytes, for the test to
// decode as a client of either version would.
type rawAnswer []byte

// answerCodec sends proto messages and receives rawAnswer.
type answerCodec struct{}

func (answerCodec) Name() string { return "proto" }

func (answerCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, err := proto.Marshal(v.(proto.Message))
	if err != nil {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

func (answerCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*rawAnswer) = data.Materialize()
	return nil
}

// textMessage is a one-part text message from the user on task taskID.
func textMessage(text, taskID string) *a2av1.Message {
	return &a2av1.Message{MessageId: "m-" + text, TaskId: taskID, Role: a2av1.Role_ROLE_USER,
		Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: text}}}}
}
