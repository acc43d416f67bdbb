package runtime

import (
	"slices"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	_ "google.golang.org/protobuf/types/known/structpb"    // registers google/protobuf/struct.proto
	_ "google.golang.org/protobuf/types/known/timestamppb" // registers google/protobuf/timestamp.proto
)

// The tests of validation, the codec and tenants run on dynamic messages of a
// small proto file built here, shaped like the A2A request and response types
// (a SendMessageRequest-like Request, a ListTasksResponse-like ListResponse)
// plus messages that exercise every field kind, maps, oneofs and recursion.
//
//	syntax = "proto3";
//	package rttest;
//	enum Kind { KIND_UNSPECIFIED = 0; KIND_A = 1; }
//	message Request {
//	  string tenant = 1; Msg message = 2; Config configuration = 3;
//	  google.protobuf.Struct metadata = 4; repeated Item items = 5;
//	  map<string, Item> by_key = 6; Node tree = 7; map<string, string> labels = 8;
//	  map<int32, Item> by_num = 9;
//	}
//	message Msg { string message_id = 1; Kind role = 2; repeated Part parts = 3;
//	  google.protobuf.Struct metadata = 4; }
//	message Part { oneof content { string text = 1; bytes raw = 2; }
//	  google.protobuf.Struct metadata = 3; }
//	message Config { PushConfig task_push_notification_config = 1;
//	  optional int32 history_length = 2; }
//	message PushConfig { string url = 1; Auth authentication = 2; }
//	message Auth { string scheme = 1; string credentials = 2; }
//	message Item { string id = 1; }
//	message Node { string name = 1; repeated Node children = 2; Node next = 3; }
//	message Kinds { string s = 1; bytes b = 2; bool flag = 3; int32 i32 = 4;
//	  int64 i64 = 5; uint32 u32 = 6; double d = 7; Kind kind = 8;
//	  optional int32 opt = 9; repeated string list = 10; map<string, int32> m = 11;
//	  Item msg = 12; google.protobuf.Timestamp ts = 13;
//	  oneof choice { string one_a = 14; string one_b = 15; }
//	  google.protobuf.Value value = 16; google.protobuf.Struct st = 17; }
//	message ListResponse { repeated Task tasks = 1; string next_page_token = 2;
//	  int32 page_size = 3; int32 total_size = 4; }
//	message Task { string id = 1; repeated Artifact artifacts = 2; Status status = 3; }
//	message Status { Kind state = 1; }
//	message Artifact { string artifact_id = 1; }
//	message NoTenant { string id = 1; }
//	message IntTenant { int32 tenant = 1; }
//
// testRequired lists the fields whose descriptors the test file annotates
// (google.api.field_behavior) = REQUIRED, as A2A's proto does.
var testRequired = requiredTable{
	"rttest.Request":      {"message"},
	"rttest.Msg":          {"message_id", "role", "parts"},
	"rttest.PushConfig":   {"url"},
	"rttest.Auth":         {"scheme"},
	"rttest.Item":         {"id"},
	"rttest.Node":         {"name"},
	"rttest.Kinds":        {"s", "b", "flag", "i32", "i64", "u32", "d", "kind", "opt", "list", "m", "msg", "ts", "one_a", "value", "st"},
	"rttest.ListResponse": {"tasks", "next_page_token", "page_size", "total_size"},
	"rttest.Task":         {"id", "status"},
	"rttest.Status":       {"state"},
	"rttest.Artifact":     {"artifact_id"},
}

var testFile = mustBuildTestFile()

func mustBuildTestFile() protoreflect.FileDescriptor {
	type (
		T = descriptorpb.FieldDescriptorProto_Type
		L = descriptorpb.FieldDescriptorProto_Label
	)
	const (
		str   = descriptorpb.FieldDescriptorProto_TYPE_STRING
		byt   = descriptorpb.FieldDescriptorProto_TYPE_BYTES
		boo   = descriptorpb.FieldDescriptorProto_TYPE_BOOL
		i32   = descriptorpb.FieldDescriptorProto_TYPE_INT32
		i64   = descriptorpb.FieldDescriptorProto_TYPE_INT64
		u32   = descriptorpb.FieldDescriptorProto_TYPE_UINT32
		dbl   = descriptorpb.FieldDescriptorProto_TYPE_DOUBLE
		enm   = descriptorpb.FieldDescriptorProto_TYPE_ENUM
		msg   = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
		opt   = descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
		rep   = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
		noOne = int32(-1)
	)
	field := func(name string, num int32, typ T, label L, typeName string, oneof int32) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Type: typ.Enum(), Label: label.Enum()}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		if oneof >= 0 {
			f.OneofIndex = proto.Int32(oneof)
		}
		return f
	}
	f := func(name string, num int32, typ T, typeName string) *descriptorpb.FieldDescriptorProto {
		return field(name, num, typ, opt, typeName, noOne)
	}
	r := func(name string, num int32, typ T, typeName string) *descriptorpb.FieldDescriptorProto {
		return field(name, num, typ, rep, typeName, noOne)
	}
	optional := func(name string, num int32, typ T, oneof int32) *descriptorpb.FieldDescriptorProto {
		fd := field(name, num, typ, opt, "", oneof)
		fd.Proto3Optional = proto.Bool(true)
		return fd
	}
	entry := func(name string, key T, val T, valType string) *descriptorpb.DescriptorProto {
		return &descriptorpb.DescriptorProto{
			Name:    proto.String(name),
			Field:   []*descriptorpb.FieldDescriptorProto{f("key", 1, key, ""), f("value", 2, val, valType)},
			Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
		}
	}
	oneofs := func(names ...string) []*descriptorpb.OneofDescriptorProto {
		var out []*descriptorpb.OneofDescriptorProto
		for _, n := range names {
			out = append(out, &descriptorpb.OneofDescriptorProto{Name: proto.String(n)})
		}
		return out
	}
	message := func(name string, fields ...*descriptorpb.FieldDescriptorProto) *descriptorpb.DescriptorProto {
		return &descriptorpb.DescriptorProto{Name: proto.String(name), Field: fields}
	}

	request := message("Request",
		f("tenant", 1, str, ""),
		f("message", 2, msg, ".rttest.Msg"),
		f("configuration", 3, msg, ".rttest.Config"),
		f("metadata", 4, msg, ".google.protobuf.Struct"),
		r("items", 5, msg, ".rttest.Item"),
		r("by_key", 6, msg, ".rttest.Request.ByKeyEntry"),
		f("tree", 7, msg, ".rttest.Node"),
		r("labels", 8, msg, ".rttest.Request.LabelsEntry"),
		r("by_num", 9, msg, ".rttest.Request.ByNumEntry"),
	)
	request.NestedType = []*descriptorpb.DescriptorProto{
		entry("ByKeyEntry", str, msg, ".rttest.Item"),
		entry("LabelsEntry", str, str, ""),
		entry("ByNumEntry", i32, msg, ".rttest.Item"),
	}
	part := message("Part",
		field("text", 1, str, opt, "", 0),
		field("raw", 2, byt, opt, "", 0),
		f("metadata", 3, msg, ".google.protobuf.Struct"),
	)
	part.OneofDecl = oneofs("content")
	config := message("Config",
		f("task_push_notification_config", 1, msg, ".rttest.PushConfig"),
		optional("history_length", 2, i32, 0),
	)
	config.OneofDecl = oneofs("_history_length")
	kinds := message("Kinds",
		f("s", 1, str, ""),
		f("b", 2, byt, ""),
		f("flag", 3, boo, ""),
		f("i32", 4, i32, ""),
		f("i64", 5, i64, ""),
		f("u32", 6, u32, ""),
		f("d", 7, dbl, ""),
		f("kind", 8, enm, ".rttest.Kind"),
		optional("opt", 9, i32, 1),
		r("list", 10, str, ""),
		r("m", 11, msg, ".rttest.Kinds.MEntry"),
		f("msg", 12, msg, ".rttest.Item"),
		f("ts", 13, msg, ".google.protobuf.Timestamp"),
		field("one_a", 14, str, opt, "", 0),
		field("one_b", 15, str, opt, "", 0),
		f("value", 16, msg, ".google.protobuf.Value"),
		f("st", 17, msg, ".google.protobuf.Struct"),
	)
	kinds.OneofDecl = oneofs("choice", "_opt")
	kinds.NestedType = []*descriptorpb.DescriptorProto{entry("MEntry", str, i32, "")}

	fdp := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("rttest/rttest.proto"),
		Package:    proto.String("rttest"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/struct.proto", "google/protobuf/timestamp.proto"},
		EnumType: []*descriptorpb.EnumDescriptorProto{{
			Name: proto.String("Kind"),
			Value: []*descriptorpb.EnumValueDescriptorProto{
				{Name: proto.String("KIND_UNSPECIFIED"), Number: proto.Int32(0)},
				{Name: proto.String("KIND_A"), Number: proto.Int32(1)},
			},
		}},
		MessageType: []*descriptorpb.DescriptorProto{
			request,
			message("Msg",
				f("message_id", 1, str, ""),
				f("role", 2, enm, ".rttest.Kind"),
				r("parts", 3, msg, ".rttest.Part"),
				f("metadata", 4, msg, ".google.protobuf.Struct"),
			),
			part,
			config,
			message("PushConfig", f("url", 1, str, ""), f("authentication", 2, msg, ".rttest.Auth")),
			message("Auth", f("scheme", 1, str, ""), f("credentials", 2, str, "")),
			message("Item", f("id", 1, str, "")),
			message("Node", f("name", 1, str, ""), r("children", 2, msg, ".rttest.Node"), f("next", 3, msg, ".rttest.Node")),
			kinds,
			message("ListResponse",
				r("tasks", 1, msg, ".rttest.Task"),
				f("next_page_token", 2, str, ""),
				f("page_size", 3, i32, ""),
				f("total_size", 4, i32, ""),
			),
			message("Task", f("id", 1, str, ""), r("artifacts", 2, msg, ".rttest.Artifact"), f("status", 3, msg, ".rttest.Status")),
			message("Status", f("state", 1, enm, ".rttest.Kind")),
			message("Artifact", f("artifact_id", 1, str, "")),
			message("NoTenant", f("id", 1, str, "")),
			message("IntTenant", f("tenant", 1, i32, "")),
		},
	}
	testRequired.annotate(fdp)
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		panic("building the test descriptor: " + err.Error())
	}
	return fd
}

// requiredTable names REQUIRED fields by message full name: what tests
// annotate their descriptors with, or hand to a validator for descriptors
// they cannot annotate (descriptor.proto's).
type requiredTable map[protoreflect.FullName][]protoreflect.Name

func (r requiredTable) has(fd protoreflect.FieldDescriptor) bool {
	return slices.Contains(r[fd.ContainingMessage().FullName()], fd.Name())
}

// annotate sets (google.api.field_behavior) = REQUIRED on the listed fields
// of the top-level messages of fdp.
func (r requiredTable) annotate(fdp *descriptorpb.FileDescriptorProto) {
	for _, m := range fdp.MessageType {
		names := r[protoreflect.FullName(fdp.GetPackage()+"."+m.GetName())]
		for _, f := range m.Field {
			if slices.Contains(names, protoreflect.Name(f.GetName())) {
				if f.Options == nil {
					f.Options = &descriptorpb.FieldOptions{}
				}
				proto.SetExtension(f.Options, annotations.E_FieldBehavior, []annotations.FieldBehavior{annotations.FieldBehavior_REQUIRED})
			}
		}
	}
}

// newTestMessage returns an empty dynamic message of rttest.<name>.
func newTestMessage(t testing.TB, name string) *dynamicpb.Message {
	t.Helper()
	md := testFile.Messages().ByName(protoreflect.Name(name))
	if md == nil {
		t.Fatalf("no message rttest.%s", name)
	}
	return dynamicpb.NewMessage(md)
}

// testMessageFromJSON decodes ProtoJSON into a new rttest.<name> message.
func testMessageFromJSON(t testing.TB, name, doc string) *dynamicpb.Message {
	t.Helper()
	return protoMessageFromJSON(t, newTestMessage(t, name).Descriptor(), doc)
}

// protoMessageFromJSON decodes ProtoJSON into a new dynamic message of md.
func protoMessageFromJSON(t testing.TB, md protoreflect.MessageDescriptor, doc string) *dynamicpb.Message {
	t.Helper()
	m := dynamicpb.NewMessage(md)
	if err := protojsonStrict(doc, m); err != nil {
		t.Fatalf("decoding test %s %s: %v", md.FullName(), doc, err)
	}
	return m
}

var protojsonStrictOptions = protojson.UnmarshalOptions{}

// protojsonStrict decodes test fixtures with unknown fields rejected, so that a
// typo in a fixture fails loudly instead of being discarded.
func protojsonStrict(doc string, m proto.Message) error {
	return protojsonStrictOptions.Unmarshal([]byte(doc), m)
}
