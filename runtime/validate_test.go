package runtime

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// validMsg is a Msg with every required field set.
const validMsg = `{"messageId":"m1","role":"KIND_A","parts":[{"text":"hi"}]}`

func TestValidateRequiredFields(t *testing.T) {
	tests := []struct {
		name string
		typ  string
		doc  string
		want []string // missing paths in report order; nil = valid
	}{
		{"empty request", "Request", `{}`, []string{"message"}},
		{"only optional fields", "Request", `{"tenant":"t","metadata":{"k":"v"}}`, []string{"message"}},
		{"valid request", "Request", `{"message":` + validMsg + `}`, nil},
		{"empty nested message", "Request", `{"message":{}}`,
			[]string{"message.messageId", "message.role", "message.parts"}},
		{"string at zero value", "Request", `{"message":{"messageId":"","role":"KIND_A","parts":[{"text":"x"}]}}`,
			[]string{"message.messageId"}},
		{"enum at zero value", "Request", `{"message":{"messageId":"m","role":"KIND_UNSPECIFIED","parts":[{"text":"x"}]}}`,
			[]string{"message.role"}},
		{"empty list", "Request", `{"message":{"messageId":"m","role":"KIND_A","parts":[]}}`,
			[]string{"message.parts"}},
		{"part contents are not required", "Request", `{"message":{"messageId":"m","role":"KIND_A","parts":[{}]}}`, nil},
		{"configuration without push config", "Request", `{"message":` + validMsg + `,"configuration":{"historyLength":0}}`, nil},
		{"push config without url", "Request",
			`{"message":` + validMsg + `,"configuration":{"taskPushNotificationConfig":{}}}`,
			[]string{"configuration.taskPushNotificationConfig.url"}},
		{"authentication without scheme", "Request",
			`{"message":` + validMsg + `,"configuration":{"taskPushNotificationConfig":{"url":"https://x","authentication":{"credentials":"c"}}}}`,
			[]string{"configuration.taskPushNotificationConfig.authentication.scheme"}},
		{"valid push config", "Request",
			`{"message":` + validMsg + `,"configuration":{"taskPushNotificationConfig":{"url":"https://x","authentication":{"scheme":"Bearer"}}}}`, nil},
		{"list elements by index", "Request",
			`{"message":` + validMsg + `,"items":[{"id":"a"},{},{"id":"c"},{}]}`,
			[]string{"items[1].id", "items[3].id"}},
		{"string map values by key, sorted", "Request",
			`{"message":` + validMsg + `,"byKey":{"b":{},"a":{"id":"x"},"c":{},"q\"uote":{}}}`,
			[]string{`byKey["b"].id`, `byKey["c"].id`, `byKey["q\"uote"].id`}},
		{"integer map values by key, numeric order", "Request",
			`{"message":` + validMsg + `,"byNum":{"10":{},"2":{},"7":{"id":"x"}}}`,
			[]string{`byNum["2"].id`, `byNum["10"].id`}},
		{"scalar map is not walked", "Request", `{"message":` + validMsg + `,"labels":{"a":""}}`, nil},
		{"recursive type", "Request",
			`{"message":` + validMsg + `,"tree":{"name":"root","children":[{"name":"c"},{"children":[{}]}],"next":{"name":"n","next":{}}}}`,
			[]string{"tree.children[1].name", "tree.children[1].children[0].name", "tree.next.next.name"}},
		{"every missing field at once", "Request",
			`{"items":[{}],"tree":{}}`,
			[]string{"message", "items[0].id", "tree.name"}},
		{"every kind missing", "Kinds", `{}`,
			[]string{"s", "b", "flag", "i32", "i64", "u32", "d", "kind", "opt", "list", "m", "msg", "ts", "oneA", "value", "st"}},
		{"explicit presence: optional set to zero is present", "Kinds",
			`{"s":"x","b":"AA==","flag":true,"i32":1,"i64":"1","u32":1,"d":0.5,"kind":"KIND_A","opt":0,"list":["x"],"m":{"k":0},"msg":{},"ts":"1970-01-01T00:00:00Z","oneA":"","value":null,"st":{}}`,
			[]string{"msg.id"}},
		{"other member of a oneof set", "Kinds",
			`{"s":"x","b":"AA==","flag":true,"i32":1,"i64":"1","u32":1,"d":0.5,"kind":"KIND_A","opt":3,"list":["x"],"m":{"k":0},"msg":{"id":"i"},"ts":"2025-01-01T00:00:00Z","oneB":"b","value":1,"st":{}}`,
			[]string{"oneA"}},
		{"type without requirements", "NoTenant", `{}`, nil},
	}
	v := newValidator()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.validate(testMessageFromJSON(t, tt.typ, tt.doc))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("validate() = %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("validate() = %v, want *Error", err)
			}
			if e.Code() != CodeInvalidParams {
				t.Errorf("code = %v, want InvalidParams", e.Code())
			}
			var got []string
			for _, fv := range e.FieldViolations() {
				got = append(got, fv.Field)
				if fv.Description != "required" {
					t.Errorf("violation %q description = %q, want \"required\"", fv.Field, fv.Description)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if want := "missing required field(s): " + strings.Join(tt.want, ", "); e.Message() != want {
				t.Errorf("message = %q, want %q", e.Message(), want)
			}
		})
	}
}

func TestValidateNothingToCheck(t *testing.T) {
	m := newTestMessage(t, "Request")
	if err := newTableValidator(requiredTable{}).validate(m); err != nil {
		t.Errorf("nothing required: %v", err)
	}
	if err := newValidator().validate(nil); err != nil {
		t.Errorf("nil message: %v", err)
	}
	if err := (*validator)(nil).validate(m); err != nil {
		t.Errorf("nil validator: %v", err)
	}
}

// The plan of a type lists only the fields validation must look at: required
// fields and message fields with requirements below them. Struct metadata,
// scalar maps and Part contents are never walked.
func TestValidationPlanPrunesSubtrees(t *testing.T) {
	v := newValidator()
	planFields := func(name string) []string {
		var out []string
		for _, c := range v.plan(testFile.Messages().ByName(protoreflect.Name(name))).checks {
			out = append(out, c.jsonName)
		}
		return out
	}
	for _, tt := range []struct {
		typ  string
		want []string
	}{
		{"Request", []string{"message", "configuration", "items", "byKey", "tree", "byNum"}},
		{"Msg", []string{"messageId", "role", "parts"}},
		{"Config", []string{"taskPushNotificationConfig"}},
		{"Node", []string{"name", "children", "next"}},
		{"Part", nil},
		{"NoTenant", nil},
	} {
		if diff := cmp.Diff(tt.want, planFields(tt.typ)); diff != "" {
			t.Errorf("plan of %s (-want +got):\n%s", tt.typ, diff)
		}
	}
	msg := v.plan(testFile.Messages().ByName("Msg"))
	for _, c := range msg.checks {
		if c.sub != nil {
			t.Errorf("Msg.%s: has a sub-plan, but nothing below it is required", c.jsonName)
		}
	}
}

// Requirements reached only through a cycle are found: A → B → A where only B
// has a required field, and the cycle is entered from A.
func TestValidationPlanCycleThroughRequirement(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("rtcycle/cycle.proto"),
		Package: proto.String("rtcycle"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("A"), Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("b"), Number: proto.Int32(1), JsonName: proto.String("b"),
				Type:  descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
				Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), TypeName: proto.String(".rtcycle.B"),
			}}},
			{Name: proto.String("B"), Field: []*descriptorpb.FieldDescriptorProto{
				{
					Name: proto.String("a"), Number: proto.Int32(1),
					Type:  descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
					Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), TypeName: proto.String(".rtcycle.A"),
				},
				{
					Name: proto.String("x"), Number: proto.Int32(2),
					Type:  descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
					Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				},
			}},
		},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := newTableValidator(requiredTable{"rtcycle.B": {"x"}})
	a := fd.Messages().ByName("A")
	m := protoMessageFromJSON(t, a, `{"b":{"x":"1","a":{"b":{"a":{"b":{}}}}}}`)
	err = v.validate(m)
	if err == nil || !strings.Contains(err.Error(), "b.a.b.a.b.x") {
		t.Fatalf("validate() = %v, want b.a.b.a.b.x missing", err)
	}
}

// Generated messages (descriptorpb here) validate like dynamic ones, and
// explicit presence (proto2 optional) counts a field set to "" as present.
func TestValidateGeneratedMessages(t *testing.T) {
	v := newTableValidator(descriptorRequired)
	fdp := protodesc.ToFileDescriptorProto(testFile)
	if err := v.validate(fdp); err != nil {
		t.Fatalf("validate(complete descriptor) = %v", err)
	}
	fdp.MessageType[1].Field[0].Name = proto.String("") // set, but empty
	fdp.MessageType[2].Field[1].Number = nil            // not set
	err := v.validate(fdp)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("validate() = %v, want *Error", err)
	}
	got := e.FieldViolations()
	want := []FieldViolation{{Field: "messageType[2].field[1].number", Description: "required"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// newTableValidator validates with the requirements of r instead of the
// descriptors' annotations, for descriptors a test cannot annotate.
func newTableValidator(r requiredTable) *validator { return &validator{isRequired: r.has} }

// descriptorRequired makes descriptor.proto look like an A2A request tree.
var descriptorRequired = requiredTable{
	"google.protobuf.FileDescriptorProto":  {"name", "message_type"},
	"google.protobuf.DescriptorProto":      {"name"},
	"google.protobuf.FieldDescriptorProto": {"name", "number", "type"},
}

func TestValidateConcurrentFirstUse(t *testing.T) {
	v := newValidator()
	valid := testMessageFromJSON(t, "Request", `{"message":`+validMsg+`,"tree":{"name":"r","children":[{"name":"c"}]}}`)
	invalid := testMessageFromJSON(t, "Request", `{"tree":{"children":[{}]}}`)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if i%2 == 0 {
				if err := v.validate(valid); err != nil {
					t.Errorf("valid message: %v", err)
				}
				return
			}
			if err := v.validate(invalid); err == nil {
				t.Error("invalid message passed")
			}
		})
	}
	wg.Wait()
}

// The success path allocates nothing, except that protobuf-go's reflection
// allocates a list view for each non-empty repeated message field that has
// requirements below it (none on the A2A request success paths: Message.parts
// has no required fields inside).
func TestValidateSuccessDoesNotAllocate(t *testing.T) {
	t.Run("dynamic", func(t *testing.T) {
		v := newValidator()
		m := testMessageFromJSON(t, "Request", `{"message":`+validMsg+`,"configuration":{"taskPushNotificationConfig":{"url":"u","authentication":{"scheme":"Bearer"}}},"metadata":{"k":[1,2]}}`)
		if err := v.validate(m); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() { _ = v.validate(m) }); n != 0 {
			t.Errorf("validate allocates %v times, want 0", n)
		}
	})
	t.Run("generated", func(t *testing.T) {
		v := newTableValidator(requiredTable{
			"google.protobuf.FileDescriptorProto": {"name", "package"},
			"google.protobuf.FileOptions":         {"go_package"},
		})
		fdp := protodesc.ToFileDescriptorProto(testFile)
		fdp.Options = &descriptorpb.FileOptions{GoPackage: proto.String("example.com/rttest")}
		if err := v.validate(fdp); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() { _ = v.validate(fdp) }); n != 0 {
			t.Errorf("validate allocates %v times, want 0", n)
		}
	})
}

// BenchmarkValidate measures the success path on a SendMessageRequest-shaped
// message (dynamic) and on a larger tree of generated messages.
func BenchmarkValidate(b *testing.B) {
	b.Run("dynamic/SendMessageRequest", func(b *testing.B) {
		v := newValidator()
		m := testMessageFromJSON(b, "Request", `{
			"tenant":"acme",
			"message":{"messageId":"9b2c","role":"KIND_A","parts":[{"text":"hello"},{"raw":"AAEC"},{"text":"again","metadata":{"k":1}}],
				"metadata":{"trace":{"id":"x","spans":[1,2,3]}}},
			"configuration":{"historyLength":10,"taskPushNotificationConfig":{"url":"https://hooks.example/x","authentication":{"scheme":"Bearer","credentials":"t"}}},
			"metadata":{"a":{"b":{"c":[1,2,3,{"d":"e"}]}}}}`)
		if err := v.validate(m); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			_ = v.validate(m)
		}
	})
	b.Run("generated/FileDescriptorProto", func(b *testing.B) {
		v := newTableValidator(descriptorRequired)
		fdp := protodesc.ToFileDescriptorProto(testFile)
		if err := v.validate(fdp); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			_ = v.validate(fdp)
		}
	})
}

func TestCompareMapKeys(t *testing.T) {
	key := func(v any) protoreflect.MapKey { return protoreflect.ValueOf(v).MapKey() }
	tests := []struct {
		a, b any
		want int
	}{
		{"a", "b", -1}, {"b", "a", 1}, {"a", "a", 0},
		{int32(2), int32(10), -1}, {int64(-1), int64(-2), 1},
		{uint32(2), uint32(10), -1}, {uint64(7), uint64(7), 0},
		{false, true, -1}, {true, false, 1}, {true, true, 0},
	}
	for _, tt := range tests {
		if got := compareMapKeys(key(tt.a), key(tt.b)); got != tt.want {
			t.Errorf("compareMapKeys(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// Service.Accepting's copy does not require the named fields; the original
// still does.
func TestServiceAccepting(t *testing.T) {
	s := &Service{validator: newTableValidator(descriptorRequired)}
	relaxed := s.Accepting("google.protobuf.FieldDescriptorProto.number")
	fdp := protodesc.ToFileDescriptorProto(testFile)
	fdp.MessageType[2].Field[1].Number = nil
	if err := relaxed.Validate(fdp); err != nil {
		t.Errorf("Accepting(number).Validate without number = %v, want nil", err)
	}
	if err := s.Validate(fdp); err == nil {
		t.Error("the original service no longer requires number")
	}
	fdp.MessageType[2].Field[1].Name = nil
	if err := relaxed.Validate(fdp); err == nil || !strings.Contains(err.Error(), "messageType[2].field[1].name") {
		t.Errorf("Accepting(number).Validate without name = %v, want name still required", err)
	}
}
