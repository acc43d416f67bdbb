package runtime_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// a2aMessageTypes are every message type of a2a/v1 (nested ones too) and
// the well-known types they use, in a fixed order.
func a2aMessageTypes(t testing.TB) []protoreflect.MessageType {
	t.Helper()
	var types []protoreflect.MessageType
	seen := map[protoreflect.FullName]bool{}
	var add func(md protoreflect.MessageDescriptor)
	add = func(md protoreflect.MessageDescriptor) {
		if seen[md.FullName()] || md.IsMapEntry() {
			return
		}
		seen[md.FullName()] = true
		mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
		if err != nil {
			t.Fatalf("no Go type for %s: %v", md.FullName(), err)
		}
		types = append(types, mt)
		for i := range md.Messages().Len() {
			add(md.Messages().Get(i))
		}
		for i := range md.Fields().Len() {
			fd := md.Fields().Get(i)
			if fd.IsMap() {
				fd = fd.MapValue()
			}
			if fd.Message() != nil {
				add(fd.Message())
			}
		}
	}
	msgs := a2av1.File_lf_a2a_v1_a2a_proto.Messages()
	for i := range msgs.Len() {
		add(msgs.Get(i))
	}
	return types
}

// checkSameAsProtojson fails when the encoder's output differs from
// protojson's (whitespace aside: protojson adds random spaces) or when the
// encoder produced output for a message protojson refuses.
func checkSameAsProtojson(t *testing.T, m proto.Message) (encoded bool) {
	t.Helper()
	got, ok := runtime.EncodeProtoJSON(m.ProtoReflect())
	want, err := protojson.Marshal(m)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s: the encoder wrote %s where protojson refuses: %v", m.ProtoReflect().Descriptor().FullName(), got, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatalf("protojson wrote invalid JSON %s: %v", want, err)
	}
	if !bytes.Equal(got, compact.Bytes()) {
		t.Fatalf("%s:\nencoder:   %s\nprotojson: %s", m.ProtoReflect().Descriptor().FullName(), got, compact.Bytes())
	}
	return true
}

// jsonEncoderCases are messages with what A2A traffic carries and the
// corners of ProtoJSON.
func jsonEncoderCases() []proto.Message {
	meta, _ := structpb.NewStruct(map[string]any{
		"z": "last", "a": 1.5, "nested": map[string]any{"list": []any{nil, true, "x", 1e21, 1e-7, math.Copysign(0, -1)}},
		"esc": "quote \" backslash \\ nl \n tab \t bell \a del \x7f line-sep \u2028 é 😀", "": "empty key",
	})
	task := &a2av1.Task{
		Id: "t-1", ContextId: "c-1",
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED, Timestamp: &timestamppb.Timestamp{Seconds: 1764612000, Nanos: 120000000},
			Message: &a2av1.Message{MessageId: "s", Role: a2av1.Role_ROLE_AGENT, Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "done"}}}}},
		Artifacts: []*a2av1.Artifact{{ArtifactId: "a", Name: "n", Parts: []*a2av1.Part{
			{Content: &a2av1.Part_Text{Text: "Echo: hello"}},
			{Content: &a2av1.Part_Raw{Raw: []byte{0, 1, 2, 250, 251, 252}}, MediaType: "application/octet-stream", Filename: "f.bin"},
			{Content: &a2av1.Part_Url{Url: "https://example.com/x"}},
			{Content: &a2av1.Part_Data{Data: structpb.NewNumberValue(3)}},
		}, Metadata: meta}},
		History: []*a2av1.Message{{MessageId: "m", ContextId: "c-1", TaskId: "t-1", Role: a2av1.Role_ROLE_USER,
			Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}, Extensions: []string{"https://x/e"}, ReferenceTaskIds: []string{"r1", "r2"}}},
		Metadata:   meta,
		Generation: 9,
		Timeline: []*a2av1.TimelineEntry{
			{Generation: 1, Entry: &a2av1.TimelineEntry_Message{Message: &a2av1.Message{MessageId: "m", Role: a2av1.Role_ROLE_USER}}},
			{Generation: 9, Entry: &a2av1.TimelineEntry_Status{Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED}}},
		},
	}
	task.Artifacts[0].StartGeneration, task.Artifacts[0].EndGeneration = 2, 9
	var out []proto.Message
	out = append(out, task,
		&a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: task}},
		&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t", ContextId: "c",
			Status: &a2av1.TaskStatus{State: a2av1.TaskState(99), Timestamp: &timestamppb.Timestamp{Seconds: -62135596800}}}}},
		&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: "t", Append: true, LastChunk: true}}},
		&a2av1.ListTasksResponse{Tasks: []*a2av1.Task{task, {}}, NextPageToken: "p", PageSize: 50, TotalSize: 2},
		&a2av1.Task{},
		&a2av1.Task{Generation: math.MaxInt64, Artifacts: []*a2av1.Artifact{{StartGeneration: math.MinInt64, EndGeneration: -1}}},
		&a2av1.GetTaskRequest{Id: "t", CurrentGeneration: proto.Int64(0)},
		&a2av1.SendMessageConfiguration{IfGenerationMatch: proto.Int64(4)},
	)
	for _, nanos := range []int32{1, 1000, 1000000, 999999999, 120000, 123456789} {
		out = append(out, &a2av1.TaskStatus{Timestamp: &timestamppb.Timestamp{Seconds: 253402300799, Nanos: nanos}})
	}
	for _, f := range []float64{0, 1, -1, 0.1, 1e20, 1e21, 123456789012345678, 1e-6, 9.99e-7, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		out = append(out, structpb.NewNumberValue(f), structpb.NewNumberValue(-f))
	}
	return out
}

func TestJSONEncoderMatchesProtojson(t *testing.T) {
	for _, m := range jsonEncoderCases() {
		if !checkSameAsProtojson(t, m) {
			t.Errorf("%s %v: left to protojson, want it encoded", m.ProtoReflect().Descriptor().FullName(), m)
		}
	}
}

// TestJSONEncoderRefusesWhatProtojsonRefuses: inputs protojson refuses are
// left to it (so that its error is reported), never written.
func TestJSONEncoderRefusesWhatProtojsonRefuses(t *testing.T) {
	for _, m := range []proto.Message{
		&a2av1.Message{MessageId: "bad \xff utf-8"},
		&a2av1.TaskStatus{Timestamp: &timestamppb.Timestamp{Seconds: 253402300800}},
		&a2av1.TaskStatus{Timestamp: &timestamppb.Timestamp{Nanos: -1}},
		&a2av1.Part{Content: &a2av1.Part_Data{Data: &structpb.Value{}}},
		&a2av1.Part{Content: &a2av1.Part_Data{Data: structpb.NewNumberValue(math.NaN())}},
		&a2av1.Part{Content: &a2av1.Part_Data{Data: structpb.NewNumberValue(math.Inf(-1))}},
		&structpb.Struct{Fields: map[string]*structpb.Value{"bad \xff": structpb.NewNullValue()}},
	} {
		if _, ok := runtime.EncodeProtoJSON(m.ProtoReflect()); ok {
			t.Errorf("%v: encoded, want it left to protojson (which refuses it)", m)
		}
		if _, err := protojson.Marshal(m); err == nil {
			t.Errorf("%v: protojson accepts it; the case is wrong", m)
		}
	}
}

// TestJSONEncoderCoversA2A: no A2A message type is left to protojson as a
// type (only bad values are).
func TestJSONEncoderCoversA2A(t *testing.T) {
	for _, mt := range a2aMessageTypes(t) {
		m := mt.New().Interface()
		if _, err := protojson.Marshal(m); err != nil {
			continue // an empty google.protobuf.Value has no JSON form
		}
		if !checkSameAsProtojson(t, m) {
			t.Errorf("%s: empty message left to protojson", mt.Descriptor().FullName())
		}
	}
}

// FuzzJSONEncoderMatchesProtojson decodes the input (protobuf binary) into
// one of the A2A message types and compares the encoder with protojson.
func FuzzJSONEncoderMatchesProtojson(f *testing.F) {
	types := a2aMessageTypes(f)
	index := map[protoreflect.FullName]int{}
	for i, mt := range types {
		index[mt.Descriptor().FullName()] = i
	}
	for _, m := range jsonEncoderCases() {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint16(index[m.ProtoReflect().Descriptor().FullName()]), b)
	}
	f.Fuzz(func(t *testing.T, pick uint16, data []byte) {
		m := types[int(pick)%len(types)].New().Interface()
		if err := proto.Unmarshal(data, m); err != nil {
			return
		}
		checkSameAsProtojson(t, m)
	})
}
