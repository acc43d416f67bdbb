package runtime_test

import (
	goruntime "runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// checkDecoderAgainstProtojson decodes doc into a message of type mt with the
// bindings' decoder and with protojson (as the runtime used it before the
// decoder existed). Where the decoder decodes, protojson must accept the
// input and give an equal message; where it gives up, the runtime falls back
// to protojson, so giving up is never wrong.
func checkDecoderAgainstProtojson(t *testing.T, mt protoreflect.MessageType, doc []byte) (decoded bool) {
	t.Helper()
	got := mt.New().Interface()
	if !runtime.DecodeProtoJSON(doc, got) {
		return false
	}
	want := mt.New().Interface()
	if err := runtime.UnmarshalWithProtojson(doc, want); err != nil {
		t.Fatalf("%s: the decoder accepted %q, which the runtime refuses: %v\ndecoded: %v", mt.Descriptor().FullName(), doc, err, got)
	}
	if !proto.Equal(got, want) {
		t.Fatalf("%s: %q\ndecoder:   %v\nprotojson: %v", mt.Descriptor().FullName(), doc, got, want)
	}
	lenient := mt.New().Interface()
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(doc, lenient); err != nil || !proto.Equal(got, lenient) {
		t.Fatalf("%s: %q: protojson with DiscardUnknown: %v, %v", mt.Descriptor().FullName(), doc, lenient, err)
	}
	return true
}

// jsonDecoderCases are ProtoJSON documents the decoder must decode itself:
// what A2A clients and servers send, in the spellings ProtoJSON allows.
func jsonDecoderCases() map[protoreflect.FullName][]string {
	return map[protoreflect.FullName][]string{
		"lf.a2a.v1.SendMessageRequest": {
			`{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}`,
			`{"tenant":"t","message":{"message_id":"m-1","context_id":"c","task_id":"t","role":1,"parts":[{"text":"hello","metadata":{"k":[1,"x",null,true,{"y":-1.5e3}]}}],
			  "extensions":["https://x/e"],"reference_task_ids":["a","b"]},
			  "configuration":{"acceptedOutputModes":["text/plain"],"historyLength":0,"returnImmediately":true},"metadata":{}}`,
			` { "message" : { "messageId" : "esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 é 😀" , "parts" : [ { "raw" : "AAEC+vv8" , "mediaType" : "a/b" } , { "raw" : "AAEC-vv8" } , { "raw" : "AAE" } , { "url" : "https://e/x" , "filename" : "f" } ] } } `,
			`{"message":{"messageId":"m","parts":[{"data":null},{"data":{"a":{"b":[[]]}}},{"data":"s"},{"data":0}]},"unknownMember":{"x":[1,{"y":null}]},"other":"z"}`,
			`{"message":{"messageId":null,"parts":null,"role":null},"configuration":null,"metadata":null}`,
			`{"message":{"parts":[{"text":null,"raw":"AA=="}]}}`,
			`{}`,
		},
		"lf.a2a.v1.Task": {
			`{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-12-01T21:00:00.120Z"},"artifacts":[{"artifactId":"a","parts":[{"text":"Echo: hello"}]}],"history":[{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hello"}]}]}`,
			`{"status":{"timestamp":"2026-12-01T21:00:00+02:00"}}`,
			`{"status":{"timestamp":"0001-01-01T00:00:00Z","state":99}}`,
			// 64-bit integers: ProtoJSON's string, or a number; plain spellings.
			`{"id":"t","generation":"7","artifacts":[{"artifactId":"a","startGeneration":"3","endGeneration":7}],"timeline":[{"generation":"5","status":{"state":"TASK_STATE_WORKING"}},{"generation":"0","message":{"messageId":"m"}}]}`,
			`{"generation":"9223372036854775807","artifacts":[{"start_generation":"-9223372036854775808","end_generation":-1}]}`,
			`{"generation":"\u0037"}`, `{"generation":-0}`, `{"generation":"-0"}`, `{"generation":0}`, `{"generation":null}`,
		},
		"lf.a2a.v1.SendMessageResponse": {
			`{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}}}`,
			`{"message":{"messageId":"m","role":"ROLE_AGENT"}}`,
		},
		"lf.a2a.v1.StreamResponse": {
			`{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}`,
			`{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true,"lastChunk":true}}`,
			`{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING"},"generation":"4"}}`,
			`{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","startGeneration":"5","endGeneration":"5"},"generation":"5"}}`,
		},
		"lf.a2a.v1.GetTaskRequest": {`{"id":"t","historyLength":3}`, `{"tenant":"x","id":"t","history_length":-2147483648}`,
			`{"id":"t","historyLength":"3","currentGeneration":"12"}`, `{"id":"t","current_generation":0,"timelineLength":"-2147483648"}`},
		"lf.a2a.v1.SendMessageConfiguration": {`{"ifGenerationMatch":"4","historyLength":"0"}`, `{"if_generation_match":"0"}`},
		"lf.a2a.v1.CancelTaskRequest":        {`{"id":"t"}`},
		"lf.a2a.v1.ListTasksRequest":         {`{"contextId":"c","status":"TASK_STATE_WORKING","pageSize":50,"pageToken":"p","historyLength":2,"statusTimestampAfter":"2026-01-01T00:00:00.5Z","includeArtifacts":false}`},
	}
}

func TestJSONDecoderMatchesProtojson(t *testing.T) {
	types := map[protoreflect.FullName]protoreflect.MessageType{}
	for _, mt := range a2aMessageTypes(t) {
		types[mt.Descriptor().FullName()] = mt
	}
	for name, docs := range jsonDecoderCases() {
		mt := types[name]
		if mt == nil {
			t.Fatalf("no type %s", name)
		}
		for _, doc := range docs {
			if !checkDecoderAgainstProtojson(t, mt, []byte(doc)) {
				t.Errorf("%s %s: left to protojson, want it decoded", name, doc)
			}
		}
	}
	// protojson's own output of every encoder case decodes here too.
	for _, m := range jsonEncoderCases() {
		doc, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		mt := m.ProtoReflect().Type()
		if mt.Descriptor().FullName().Parent() == "google.protobuf" {
			continue // well-known types at the top level are protojson's
		}
		if !checkDecoderAgainstProtojson(t, mt, doc) {
			t.Errorf("%s %s: left to protojson, want it decoded", mt.Descriptor().FullName(), doc)
		}
	}
}

// TestJSONDecoderLeavesRefusalsToProtojson: input protojson refuses, or that
// the runtime refuses (unknown enum names), is never decoded by the fast
// path, so the error users see is protojson's, naming the field.
func TestJSONDecoderLeavesRefusalsToProtojson(t *testing.T) {
	for _, doc := range []string{
		`{"message":{"role":"ROLE_NOPE"}}`,
		`{"message":{"messageId":"a","message_id":"b"}}`,
		`{"message":{"parts":[{"text":"a","url":"b"}]}}`,
		`{"message":{"parts":[{"raw":"not base64!"}]}}`,
		`{"message":{"messageId":"bad \xff"}}`,
		`{"message":{"messageId":"\ud800"}}`,
		`{"message":{"messageId":"tab	raw"}}`,
		`{"message":{"parts":[{"metadata":{"k":1,"k":2}}]}}`,
		`{"message":{"parts":[{"metadata":{"k":1e400}}]}}`,
		`{"configuration":{"historyLength":2147483648}}`,
		`{"configuration":{"historyLength":1.5}}`,
		`{"message":{"messageId":"m"},}`,
		`{"message":{"messageId":"m"}} x`,
		`{"message":{"messageId":"m"}`,
		`{"message":[]}`,
		`{"unknown":tru}`,
		`{"unknown":01}`,
		`{"message":{"messageId":"m","parts":[{"text":"a"},]}}`,
		`[]`,
		`{"message":{"parts":[{"data":{"a":` + strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `}}]}}`,
	} {
		var m a2av1.SendMessageRequest
		if runtime.DecodeProtoJSON([]byte(doc), &m) {
			t.Errorf("%s: decoded as %v, want it left to protojson", doc, &m)
		}
	}
	var m a2av1.SendMessageRequest
	err := runtime.UnmarshalJSON([]byte(`{"message":{"role":"ROLE_NOPE"}}`), &m)
	if err == nil || !strings.Contains(err.Error(), "role") {
		t.Errorf("unknown enum name: %v, want protojson's error naming the field", err)
	}
}

// TestJSONDecoderSharesNoBuffer: decoded strings do not alias the caller's
// buffer, which the bindings reuse for the next request.
func TestJSONDecoderSharesNoBuffer(t *testing.T) {
	doc := []byte(`{"message":{"messageId":"m-1","parts":[{"text":"hello"}]}}`)
	var m a2av1.SendMessageRequest
	if !runtime.DecodeProtoJSON(doc, &m) {
		t.Fatal("not decoded")
	}
	for i := range doc {
		doc[i] = 'x'
	}
	if m.GetMessage().GetMessageId() != "m-1" || m.GetMessage().GetParts()[0].GetText() != "hello" {
		t.Errorf("decoded strings changed with the input buffer: %v", &m)
	}
}

// FuzzJSONDecoderMatchesProtojson decodes random JSON into one of the A2A
// message types with the bindings' decoder and with protojson and compares.
func FuzzJSONDecoderMatchesProtojson(f *testing.F) {
	types := a2aMessageTypes(f)
	index := map[protoreflect.FullName]int{}
	for i, mt := range types {
		index[mt.Descriptor().FullName()] = i
	}
	for name, docs := range jsonDecoderCases() {
		for _, doc := range docs {
			f.Add(uint16(index[name]), []byte(doc))
		}
	}
	extra := []proto.Message{
		&a2av1.TaskStatus{Timestamp: &timestamppb.Timestamp{Seconds: 253402300799, Nanos: 999999999}},
		&a2av1.Part{Content: &a2av1.Part_Data{Data: structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNullValue()}})}},
	}
	for _, m := range append(jsonEncoderCases(), extra...) {
		doc, err := protojson.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint16(index[m.ProtoReflect().Descriptor().FullName()]), doc)
	}
	f.Fuzz(func(t *testing.T, pick uint16, doc []byte) {
		checkDecoderAgainstProtojson(t, types[int(pick)%len(types)], doc)
	})
}

// TestJSONDecoderKeepsNoLargeRequestAlive: a message decoded from a large
// request holds its own strings, not slices of the request: 1 MiB of
// whitespace around a one-word message must not be what a stored task
// keeps.
func TestJSONDecoderKeepsNoLargeRequestAlive(t *testing.T) {
	pad := strings.Repeat(" ", 1<<20)
	doc := []byte(`{"message":{"messageId":"m-1",` + pad + `"parts":[{"text":"hello"}]}}`)
	const n = 40
	kept := make([]*a2av1.SendMessageRequest, n)
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for i := range kept {
		kept[i] = new(a2av1.SendMessageRequest)
		if !runtime.DecodeProtoJSON(doc, kept[i]) {
			t.Fatal("not decoded")
		}
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > n<<20/4 {
		t.Errorf("%d messages decoded from 1 MiB requests keep %d KiB alive, want far less than the requests' %d KiB", n, grown>>10, n<<10)
	}
	if kept[n-1].GetMessage().GetParts()[0].GetText() != "hello" {
		t.Errorf("decoded %v", kept[n-1])
	}
}
