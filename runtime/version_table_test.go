package runtime_test

import (
	goruntime "runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// TestVersionTableView: a caller of 1.0 gets a copy without the 1.1 fields
// (the shared original keeps them); a 1.1 caller, and a message without 1.1
// fields, get the message itself.
func TestVersionTableView(t *testing.T) {
	table := &a2av1.A2AVersions
	task := &a2av1.Task{Id: "t", Generation: 4, Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING},
		History: []*a2av1.Message{{MessageId: "m"}}}
	list := &a2av1.ListTasksResponse{Tasks: []*a2av1.Task{{Id: "a"}, task}}

	out, drop := table.View(list, "1.0")
	if drop {
		t.Fatal("a unary response was dropped")
	}
	if out == proto.Message(list) {
		t.Fatal("View returned the original although it holds a 1.1 field")
	}
	if got := out.(*a2av1.ListTasksResponse).GetTasks()[1].GetGeneration(); got != 0 {
		t.Errorf("1.0 view keeps generation %d", got)
	}
	if task.GetGeneration() != 4 {
		t.Errorf("View modified the original: generation %d", task.GetGeneration())
	}
	if !proto.Equal(out.(*a2av1.ListTasksResponse).GetTasks()[1].GetHistory()[0], task.GetHistory()[0]) {
		t.Error("1.0 view lost a 1.0 field")
	}
	if out, _ := table.View(list, "1.1"); out != proto.Message(list) {
		t.Error("a 1.1 caller got a copy")
	}
	plain := &a2av1.ListTasksResponse{Tasks: []*a2av1.Task{{Id: "a"}}}
	if out, _ := table.View(plain, "1.0"); out != proto.Message(plain) {
		t.Error("a message without 1.1 fields was copied")
	}
	if out, _ := table.View(list, ""); out != proto.Message(list) {
		t.Error("a call without a version (a service that names none) was stripped")
	}
	// The comparison a lookup remembers (1.1: nothing to look at) is the
	// version's own: later lookups of 1.1, and of versions the table does
	// not name, older (0.3) or newer (2.0), compare as the first did.
	for _, c := range []struct {
		v      string
		copied bool
	}{{"1.1", false}, {"0.3", true}, {"2.0", false}, {"1.1", false}, {"0.3", true}, {"1.0", true}} {
		if out, _ := table.View(list, c.v); (out != proto.Message(list)) != c.copied {
			t.Errorf("View for %q: copied %v, want %v", c.v, out != proto.Message(list), c.copied)
		}
	}
}

// TestVersionTableStrip: a request of a 1.0 caller is read with 1.0's
// meaning: the 1.1 fields it carries are removed in place.
func TestVersionTableStrip(t *testing.T) {
	req := &a2av1.SendMessageRequest{Message: &a2av1.Message{MessageId: "m"},
		Configuration: &a2av1.SendMessageConfiguration{IfGenerationMatch: proto.Int64(2), ReturnImmediately: true}}
	a2av1.A2AVersions.Strip(req, "1.0")
	if req.GetConfiguration().IfGenerationMatch != nil || !req.GetConfiguration().GetReturnImmediately() {
		t.Errorf("after Strip for 1.0: %v", req.GetConfiguration())
	}
	get := &a2av1.GetTaskRequest{Id: "t", CurrentGeneration: proto.Int64(3)}
	a2av1.A2AVersions.Strip(get, "1.1")
	if get.CurrentGeneration == nil {
		t.Error("Strip for 1.1 removed a 1.1 field")
	}
}

// TestVersionTableDropsNewCases: a stream event whose oneof case is newer
// than the caller's version is dropped; a nested new case is cleared; enum
// values newer than the version become the zero value. The table here is
// made up (A2A 1.1 adds no case or enum value) to cover what later versions
// may.
func TestVersionTableDropsNewCases(t *testing.T) {
	table := &runtime.VersionTable{Versions: []string{"1.0", "1.1"}, Since: map[string]string{
		"lf.a2a.v1.StreamResponse.status_update": "1.1",
		"lf.a2a.v1.TASK_STATE_REJECTED":          "1.1",
	}}
	ev := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t"}}}
	if _, drop := table.View(ev, "1.0"); !drop {
		t.Error("an event of a case 1.0 lacks was not dropped")
	}
	if _, drop := table.View(ev, "1.1"); drop {
		t.Error("a 1.1 caller's event was dropped")
	}
	task := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: "t",
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_REJECTED}}}}
	out, drop := table.View(task, "1.0")
	if drop {
		t.Fatal("a task event was dropped")
	}
	if got := out.(*a2av1.StreamResponse).GetTask().GetStatus().GetState(); got != a2av1.TaskState_TASK_STATE_UNSPECIFIED {
		t.Errorf("state %v for a 1.0 caller, want the zero value", got)
	}
	if task.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_REJECTED {
		t.Error("View modified the original")
	}
	if !table.Lacks("lf.a2a.v1.TASK_STATE_REJECTED", "1.0") || table.Lacks("lf.a2a.v1.TASK_STATE_REJECTED", "1.1") ||
		table.Lacks("lf.a2a.v1.TASK_STATE_REJECTED", "2.0") {
		t.Error("Lacks disagrees with the table")
	}
}

// TestGeneratedVersionTable: make generate's table of the bundled protos
// names exactly what the A2A 1.1 draft (dev-1.1 with PR #2153) adds to
// 1.0.1: generation (PR #1810), the live rpc and its messages, the
// timeline, artifact roles and generations, the push config's version.
func TestGeneratedVersionTable(t *testing.T) {
	want := map[string]string{
		"lf.a2a.v1.A2AService.SendLiveMessage":                   "1.1",
		"lf.a2a.v1.Artifact.end_generation":                      "1.1",
		"lf.a2a.v1.Artifact.role":                                "1.1",
		"lf.a2a.v1.Artifact.start_generation":                    "1.1",
		"lf.a2a.v1.GetTaskRequest.current_generation":            "1.1",
		"lf.a2a.v1.GetTaskRequest.timeline_length":               "1.1",
		"lf.a2a.v1.ListTasksRequest.timeline_length":             "1.1",
		"lf.a2a.v1.SendMessageConfiguration.if_generation_match": "1.1",
		"lf.a2a.v1.SendMessageConfiguration.timeline_length":     "1.1",
		"lf.a2a.v1.StreamRequest.artifact_update":                "1.1",
		"lf.a2a.v1.StreamRequest.message":                        "1.1",
		"lf.a2a.v1.StreamRequest.metadata":                       "1.1",
		"lf.a2a.v1.StreamRequest.tenant":                         "1.1",
		"lf.a2a.v1.StreamResponse.message_update":                "1.1",
		"lf.a2a.v1.Task.generation":                              "1.1",
		"lf.a2a.v1.Task.timeline":                                "1.1",
		"lf.a2a.v1.TaskArtifactUpdateEvent.generation":           "1.1",
		"lf.a2a.v1.TaskMessageUpdateEvent.context_id":            "1.1",
		"lf.a2a.v1.TaskMessageUpdateEvent.generation":            "1.1",
		"lf.a2a.v1.TaskMessageUpdateEvent.message":               "1.1",
		"lf.a2a.v1.TaskMessageUpdateEvent.metadata":              "1.1",
		"lf.a2a.v1.TaskMessageUpdateEvent.task_id":               "1.1",
		"lf.a2a.v1.TaskPushNotificationConfig.protocol_version":  "1.1",
		"lf.a2a.v1.TaskStatusUpdateEvent.generation":             "1.1",
		"lf.a2a.v1.TimelineEntry.generation":                     "1.1",
		"lf.a2a.v1.TimelineEntry.message":                        "1.1",
		"lf.a2a.v1.TimelineEntry.status":                         "1.1",
	}
	if len(a2av1.A2AVersions.Since) != len(want) {
		t.Errorf("table %v, want %v", a2av1.A2AVersions.Since, want)
	}
	for k, v := range want {
		if a2av1.A2AVersions.Since[k] != v {
			t.Errorf("%s: since %q, want %q", k, a2av1.A2AVersions.Since[k], v)
		}
	}
	if a2av1.A2AServiceDesc.Versions != &a2av1.A2AVersions {
		t.Error("the service description does not carry the table")
	}
}

// TestVersionTableViewCopiesThePath: the view of an answer with something
// the caller's version lacks copies only the messages on the way to it and
// shares the rest with the original (a task's history, a listing's other
// tasks), which stays as it was; what the copy holds is what a deep copy
// with the lacked elements removed (Strip) holds.
func TestVersionTableViewCopiesThePath(t *testing.T) {
	table := &a2av1.A2AVersions
	history := &a2av1.Message{MessageId: "m", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hi"}}}}
	task := &a2av1.Task{Id: "t", Generation: 4, History: []*a2av1.Message{history},
		Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}
	resp := &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: task}}
	out, _ := table.View(resp, "1.0")
	got := out.(*a2av1.SendMessageResponse).GetTask()
	if got == task || got.GetGeneration() != 0 || task.GetGeneration() != 4 || resp.GetTask() != task {
		t.Fatalf("1.0 view of a task at generation 4: %v (the original %v); want a copy without generation, the original whole", got, resp)
	}
	if len(got.GetHistory()) != 1 || got.GetHistory()[0] != history || got.GetStatus() != task.GetStatus() {
		t.Error("the copy does not share the task's history and status, which hold nothing 1.0 lacks")
	}

	plain := &a2av1.Task{Id: "a"}
	list := &a2av1.ListTasksResponse{Tasks: []*a2av1.Task{plain, task}}
	out, _ = table.View(list, "1.0")
	tasks := out.(*a2av1.ListTasksResponse).GetTasks()
	if len(tasks) != 2 || tasks[0] != plain || tasks[1] == task || tasks[1].GetGeneration() != 0 {
		t.Errorf("1.0 view of a listing: %v; want the plain task shared, the other copied without generation", tasks)
	}
	if list.GetTasks()[1] != task || task.GetGeneration() != 4 {
		t.Error("View modified the listing")
	}

	// A made-up table whose version 1.1 adds a case of google.protobuf.Value
	// reaches a map (Struct's fields) and a list (ListValue's values).
	made := &runtime.VersionTable{Versions: []string{"1.0", "1.1"}, Since: map[string]string{
		"google.protobuf.Value.string_value": "1.1",
		"lf.a2a.v1.TASK_STATE_REJECTED":      "1.1",
		"lf.a2a.v1.Task.generation":          "1.1",
	}}
	meta, err := structpb.NewStruct(map[string]any{"s": "x", "n": 1, "l": []any{"y", 2}, "o": map[string]any{"s": "z"}})
	if err != nil {
		t.Fatal(err)
	}
	rich := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: "r", Generation: 2, Metadata: meta,
		Status:  &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_REJECTED},
		History: []*a2av1.Message{history}}}}
	before := proto.Clone(rich)
	want := proto.Clone(rich)
	made.Strip(want, "1.0")
	out, drop := made.View(rich, "1.0")
	if drop || !proto.Equal(out, want) {
		t.Errorf("made-up 1.0 view: %v, drop %v; want %v", out, drop, want)
	}
	if !proto.Equal(rich, before) {
		t.Errorf("View modified the original: %v, was %v", rich, before)
	}
	view := out.(*a2av1.StreamResponse).GetTask()
	if view.GetMetadata().GetFields()["n"] != meta.GetFields()["n"] || view.GetHistory()[0] != history {
		t.Error("the copy does not share the metadata values and messages that hold nothing 1.0 lacks")
	}
}

// TestVersionTableViewOfDynamicMessages: a message that is not a
// protoc-gen-go struct (dynamicpb) is viewed as a generated one is: a copy
// without what the version lacks, the original untouched, an event of a
// kind the version lacks dropped.
func TestVersionTableViewOfDynamicMessages(t *testing.T) {
	dynamic := func(m proto.Message) proto.Message {
		d := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := proto.Unmarshal(b, d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	task := &a2av1.Task{Id: "t", Generation: 4, History: []*a2av1.Message{{MessageId: "m"}},
		Artifacts: []*a2av1.Artifact{{ArtifactId: "a"}, {ArtifactId: "b", StartGeneration: 2, Role: a2av1.Role_ROLE_USER}}}
	resp := dynamic(&a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: task}})
	before := proto.Clone(resp)
	want := proto.Clone(resp)
	a2av1.A2AVersions.Strip(want, "1.0")
	out, drop := a2av1.A2AVersions.View(resp, "1.0")
	if drop || !proto.Equal(out, want) || out == resp {
		t.Errorf("1.0 view of a dynamic answer: %v, drop %v; want a copy %v", out, drop, want)
	}
	if !proto.Equal(resp, before) {
		t.Errorf("View modified the original: %v, was %v", resp, before)
	}
	viewed := out.ProtoReflect()
	tf := viewed.Descriptor().Fields().ByName("task")
	if g := viewed.Get(tf).Message().Get(tf.Message().Fields().ByName("generation")).Int(); g != 0 {
		t.Errorf("1.0 view keeps generation %d", g)
	}

	ev := dynamic(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_MessageUpdate{MessageUpdate: &a2av1.TaskMessageUpdateEvent{TaskId: "t"}}})
	if _, drop := a2av1.A2AVersions.View(ev, "1.0"); !drop {
		t.Error("a dynamic event of a case 1.0 lacks was not dropped")
	}
	plain := dynamic(&a2av1.Task{Id: "p"})
	if out, _ := a2av1.A2AVersions.View(plain, "1.0"); out != plain {
		t.Error("a dynamic message without 1.1 fields was copied")
	}
}

// TestVersionTableViewWorksOnTheStructs: the view of a generated answer
// works on its Go structs, not through protoreflect or a deep copy: the 1.0
// view of a task answer allocates once, for the copies of the two messages
// on the way to the task's generation and the oneof wrapper that holds the
// task's copy (one joint allocation), and nothing for the task's
// artifacts, history and status, which it shares.
func TestVersionTableViewWorksOnTheStructs(t *testing.T) {
	task := &a2av1.Task{Id: "t", ContextId: "c", Generation: 3,
		Status:    &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED},
		History:   []*a2av1.Message{{MessageId: "m", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}},
		Artifacts: []*a2av1.Artifact{{ArtifactId: "a", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}}}
	resp := &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: task}}
	allocs := testing.AllocsPerRun(100, func() {
		if out, _ := a2av1.A2AVersions.View(resp, "1.0"); out == proto.Message(resp) {
			t.Fatal("no copy")
		}
	})
	if allocs != 1 {
		t.Errorf("the 1.0 view of a task answer allocates %v times, want 1", allocs)
	}
}

// TestVersionTableViewCopiesSurviveCollection: a copy made a word at a
// time (its pointers stored as pointers) keeps what it shares alive
// through collections after the original is gone.
func TestVersionTableViewCopiesSurviveCollection(t *testing.T) {
	var views []proto.Message
	for i := range 100 {
		ev := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
			TaskId: strings.Repeat("t", i+1), ContextId: "c", Generation: int64(i + 1),
			Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Message: &a2av1.Message{MessageId: "m"}}}}}
		out, _ := a2av1.A2AVersions.View(ev, "1.0")
		views = append(views, out)
		goruntime.GC()
	}
	goruntime.GC()
	for i, out := range views {
		u := out.(*a2av1.StreamResponse).GetStatusUpdate()
		if len(u.GetTaskId()) != i+1 || u.GetContextId() != "c" || u.GetGeneration() != 0 || u.GetStatus().GetMessage().GetMessageId() != "m" {
			t.Fatalf("view %d after collections: %v", i, u)
		}
	}
}

// TestVersionTableViewCopiesEveryStep: the copies on the way to what a
// version lacks are right whichever message of the path is copied first —
// the holder for a field of its own (then the nested message's copy is
// made alone) or for the nested message (then both are made in one
// allocation, inside an event whose own copy is joint too) — equal to a
// deep copy stripped, the original untouched.
func TestVersionTableViewCopiesEveryStep(t *testing.T) {
	made := &runtime.VersionTable{Versions: []string{"1.0", "1.1"}, Since: map[string]string{
		"lf.a2a.v1.TASK_STATE_REJECTED":                "1.1",
		"lf.a2a.v1.TaskStatusUpdateEvent.generation":   "1.1",
		"lf.a2a.v1.TaskArtifactUpdateEvent.generation": "1.1",
	}}
	status := func() *a2av1.TaskStatus { return &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_REJECTED} }
	for _, ev := range []*a2av1.StreamResponse{
		{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t", Generation: 3, Status: status()}}},
		{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: "t", Status: status()}}},
		{Payload: &a2av1.StreamResponse_Task{Task: &a2av1.Task{Id: "t", Status: status()}}},
		{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: "t", Generation: 2,
			Artifact: &a2av1.Artifact{ArtifactId: "a"}}}},
	} {
		before := proto.Clone(ev)
		want := proto.Clone(ev)
		made.Strip(want, "1.0")
		out, drop := made.View(ev, "1.0")
		if drop || !proto.Equal(out, want) || out == proto.Message(ev) {
			t.Errorf("made-up 1.0 view of %v: %v, drop %v; want a copy %v", ev, out, drop, want)
		}
		if !proto.Equal(ev, before) {
			t.Errorf("View modified the original: %v, was %v", ev, before)
		}
	}
}

// TestVersionTableStripLooksOnTheStructs: a 1.0 request that carries
// nothing 1.1 added (every request of a 1.0 client) is looked at through its
// Go struct, without an allocation, and left as it was; one that does is
// still stripped (TestVersionTableStrip), a oneof case included.
func TestVersionTableStripLooksOnTheStructs(t *testing.T) {
	req := &a2av1.SendMessageRequest{Message: &a2av1.Message{MessageId: "m", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}},
		Configuration: &a2av1.SendMessageConfiguration{HistoryLength: proto.Int32(1), ReturnImmediately: true}}
	want := proto.Clone(req)
	if allocs := testing.AllocsPerRun(100, func() { a2av1.A2AVersions.Strip(req, "1.0") }); allocs != 0 {
		t.Errorf("Strip of a request with nothing to strip allocates %v times, want 0", allocs)
	}
	if !proto.Equal(req, want) {
		t.Errorf("Strip changed a request with nothing to strip: %v", req)
	}
	live := &a2av1.StreamRequest{Payload: &a2av1.StreamRequest_Message{Message: &a2av1.Message{MessageId: "m"}}}
	a2av1.A2AVersions.Strip(live, "1.0")
	if live.GetPayload() != nil {
		t.Errorf("Strip for 1.0 kept the 1.1 oneof case: %v", live)
	}
}

// BenchmarkVersionView: the 1.0 view of the answer to a SendMessage that
// completed at once (the echo agent's), which holds a generation.
func BenchmarkVersionView(b *testing.B) {
	task := &a2av1.Task{Id: "t", ContextId: "c", Generation: 3,
		Status:    &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED},
		History:   []*a2av1.Message{{MessageId: "m", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}},
		Artifacts: []*a2av1.Artifact{{ArtifactId: "a", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}}}
	resp := &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: task}}
	b.ReportAllocs()
	for b.Loop() {
		a2av1.A2AVersions.View(resp, "1.0")
	}
}
