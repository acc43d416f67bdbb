package a2av03grpc

//lint:file-ignore SA1019 v0.3 cards carry the OAuth implicit and password flows that v1.0 keeps as deprecated fields; converting them means reading and writing those fields.

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

func md(k, v string) *structpb.Struct {
	s, _ := structpb.NewStruct(map[string]any{k: v})
	return s
}

// v1 values using every field that has a v0.3 counterpart.
func v1Message() *a2av1.Message {
	data, _ := structpb.NewStruct(map[string]any{"n": 1.0, "list": []any{"a"}})
	return &a2av1.Message{MessageId: "m1", ContextId: "c1", TaskId: "t1", Role: a2av1.Role_ROLE_AGENT,
		Parts: []*a2av1.Part{
			{Content: &a2av1.Part_Text{Text: "hi"}},
			{Content: &a2av1.Part_Raw{Raw: []byte{0, 1, 2}}, MediaType: "application/octet-stream"},
			{Content: &a2av1.Part_Url{Url: "https://example.com/f"}, MediaType: "image/png"},
			{Content: &a2av1.Part_Data{Data: structpb.NewStructValue(data)}},
		},
		Metadata: md("m", "v"), Extensions: []string{"urn:x"}}
}

func v1Task() *a2av1.Task {
	return &a2av1.Task{Id: "t1", ContextId: "c1",
		Status:    &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_CANCELED, Message: v1Message(), Timestamp: timestamppb.New(time.Unix(1700000000, 5))},
		Artifacts: []*a2av1.Artifact{v1Artifact()}, History: []*a2av1.Message{v1Message()}, Metadata: md("t", "v")}
}

func v1Artifact() *a2av1.Artifact {
	return &a2av1.Artifact{ArtifactId: "a1", Name: "n", Description: "d", Parts: v1Message().Parts, Metadata: md("a", "v"), Extensions: []string{"urn:y"}}
}

func v1PushConfig() *a2av1.TaskPushNotificationConfig {
	return &a2av1.TaskPushNotificationConfig{TaskId: "t1", Id: "p1", Url: "https://127.0.0.1/hook", Token: "tok",
		Authentication: &a2av1.AuthenticationInfo{Scheme: "Bearer", Credentials: "secret"}}
}

func v1Card() *a2av1.AgentCard {
	return &a2av1.AgentCard{Name: "n", Description: "d", Version: "1", DocumentationUrl: proto.String("https://d"),
		SupportedInterfaces: []*a2av1.AgentInterface{
			{Url: "127.0.0.1:1", ProtocolBinding: "GRPC", ProtocolVersion: ProtocolVersion},
			{Url: "http://127.0.0.1/rpc", ProtocolBinding: "JSONRPC", ProtocolVersion: ProtocolVersion},
		},
		Provider: &a2av1.AgentProvider{Url: "https://p", Organization: "o"},
		Capabilities: &a2av1.AgentCapabilities{Streaming: proto.Bool(true), PushNotifications: proto.Bool(false), ExtendedAgentCard: proto.Bool(true),
			Extensions: []*a2av1.AgentExtension{{Uri: "urn:e", Description: "e", Required: true, Params: md("p", "v")}}},
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"k":  {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Description: "d", Location: "header", Name: "X-Key"}}},
			"h":  {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT"}}},
			"o1": {Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{Oauth2MetadataUrl: "https://m", Flows: &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_AuthorizationCode{AuthorizationCode: &a2av1.AuthorizationCodeOAuthFlow{AuthorizationUrl: "https://a", TokenUrl: "https://t", RefreshUrl: "https://r", Scopes: map[string]string{"s": "d"}}}}}}},
			"o2": {Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{Flows: &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_ClientCredentials{ClientCredentials: &a2av1.ClientCredentialsOAuthFlow{TokenUrl: "https://t", Scopes: map[string]string{"s": "d"}}}}}}},
			"o3": {Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{Flows: &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_Implicit{Implicit: &a2av1.ImplicitOAuthFlow{AuthorizationUrl: "https://a", Scopes: map[string]string{"s": "d"}}}}}}},
			"o4": {Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{Flows: &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_Password{Password: &a2av1.PasswordOAuthFlow{TokenUrl: "https://t", Scopes: map[string]string{"s": "d"}}}}}}},
			"oi": {Scheme: &a2av1.SecurityScheme_OpenIdConnectSecurityScheme{OpenIdConnectSecurityScheme: &a2av1.OpenIdConnectSecurityScheme{OpenIdConnectUrl: "https://oidc"}}},
			"m":  {Scheme: &a2av1.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &a2av1.MutualTlsSecurityScheme{Description: "mtls"}}},
		},
		SecurityRequirements: []*a2av1.SecurityRequirement{{Schemes: map[string]*a2av1.StringList{"o1": {List: []string{"s"}}}}},
		DefaultInputModes:    []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []*a2av1.AgentSkill{{Id: "s", Name: "S", Description: "d", Tags: []string{"t"}, Examples: []string{"e"},
			InputModes: []string{"i"}, OutputModes: []string{"o"},
			SecurityRequirements: []*a2av1.SecurityRequirement{{Schemes: map[string]*a2av1.StringList{"k": {}}}}}},
		Signatures: []*a2av1.AgentCardSignature{{Protected: "p", Signature: "s", Header: md("kid", "1")}},
	}
}

func same(t *testing.T, what string, want, got proto.Message) {
	t.Helper()
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("%s: round trip differs (-want +got):\n%s", what, diff)
	}
}

// TestRoundTripFromV1 converts every v1.0 message with a v0.3 counterpart
// to v0.3 and back: nothing that has a v0.3 field is lost.
func TestRoundTripFromV1(t *testing.T) {
	must := func(m proto.Message, err error) proto.Message {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	same(t, "Message", v1Message(), MessageToV1(MessageFromV1(v1Message())))
	same(t, "Task", v1Task(), TaskToV1(TaskFromV1(v1Task())))
	same(t, "Artifact", v1Artifact(), ArtifactToV1(ArtifactFromV1(v1Artifact())))
	su := &a2av1.TaskStatusUpdateEvent{TaskId: "t1", ContextId: "c1", Status: v1Task().Status, Metadata: md("e", "v")}
	same(t, "TaskStatusUpdateEvent", su, StatusUpdateToV1(StatusUpdateFromV1(su)))
	au := &a2av1.TaskArtifactUpdateEvent{TaskId: "t1", ContextId: "c1", Artifact: v1Artifact(), Append: true, LastChunk: true, Metadata: md("e", "v")}
	same(t, "TaskArtifactUpdateEvent", au, ArtifactUpdateToV1(ArtifactUpdateFromV1(au)))
	for _, r := range []*a2av1.StreamResponse{
		{Payload: &a2av1.StreamResponse_Task{Task: v1Task()}},
		{Payload: &a2av1.StreamResponse_Message{Message: v1Message()}},
		{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: su}},
		{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: au}},
	} {
		same(t, "StreamResponse", r, StreamResponseToV1(StreamResponseFromV1(r)))
	}
	for _, r := range []*a2av1.SendMessageResponse{
		{Payload: &a2av1.SendMessageResponse_Task{Task: v1Task()}},
		{Payload: &a2av1.SendMessageResponse_Message{Message: v1Message()}},
	} {
		same(t, "SendMessageResponse", r, SendResponseToV1(SendResponseFromV1(r)))
	}
	send := &a2av1.SendMessageRequest{Message: v1Message(), Metadata: md("r", "v"), Configuration: &a2av1.SendMessageConfiguration{
		AcceptedOutputModes: []string{"text/plain"}, HistoryLength: proto.Int32(3), ReturnImmediately: true, TaskPushNotificationConfig: v1PushConfig()}}
	same(t, "SendMessageRequest", send, SendRequestToV1(SendRequestFromV1(send)))
	get := &a2av1.GetTaskRequest{Id: "t1", HistoryLength: proto.Int32(2)}
	same(t, "GetTaskRequest", get, must(GetTaskRequestToV1(GetTaskRequestFromV1(get))))
	cancel := &a2av1.CancelTaskRequest{Id: "t1"}
	same(t, "CancelTaskRequest", cancel, must(CancelTaskRequestToV1(CancelTaskRequestFromV1(cancel))))
	sub := &a2av1.SubscribeToTaskRequest{Id: "t1"}
	same(t, "SubscribeToTaskRequest", sub, must(SubscribeRequestToV1(SubscribeRequestFromV1(sub))))
	same(t, "TaskPushNotificationConfig (create)", v1PushConfig(), must(CreatePushConfigRequestToV1(CreatePushConfigRequestFromV1(v1PushConfig()))))
	same(t, "TaskPushNotificationConfig", v1PushConfig(), TaskPushConfigToV1(TaskPushConfigFromV1(v1PushConfig())))
	gp := &a2av1.GetTaskPushNotificationConfigRequest{TaskId: "t1", Id: "p1"}
	same(t, "GetTaskPushNotificationConfigRequest", gp, must(GetPushConfigRequestToV1(GetPushConfigRequestFromV1(gp))))
	dp := &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: "t1", Id: "p1"}
	same(t, "DeleteTaskPushNotificationConfigRequest", dp, must(DeletePushConfigRequestToV1(DeletePushConfigRequestFromV1(dp))))
	lp := &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: "t1", PageSize: 5, PageToken: "x"}
	same(t, "ListTaskPushNotificationConfigsRequest", lp, must(ListPushConfigsRequestToV1(ListPushConfigsRequestFromV1(lp))))
	lr := &a2av1.ListTaskPushNotificationConfigsResponse{Configs: []*a2av1.TaskPushNotificationConfig{v1PushConfig()}, NextPageToken: "n"}
	same(t, "ListTaskPushNotificationConfigsResponse", lr, ListPushConfigsResponseToV1(ListPushConfigsResponseFromV1(lr)))
	same(t, "AgentCard", v1Card(), CardToV1(CardFromV1(v1Card())))
}

// TestRoundTripFromV03 converts v0.3 messages to v1.0 and back.
func TestRoundTripFromV03(t *testing.T) {
	msg := MessageFromV1(v1Message())
	same(t, "Message", msg, MessageFromV1(MessageToV1(msg)))
	task := TaskFromV1(v1Task())
	same(t, "Task", task, TaskFromV1(TaskToV1(task)))
	su := &a2av03pb.TaskStatusUpdateEvent{TaskId: "t", ContextId: "c", Status: &a2av03pb.TaskStatus{State: a2av03pb.TaskState_TASK_STATE_INPUT_REQUIRED}, Final: true}
	same(t, "TaskStatusUpdateEvent", su, StatusUpdateFromV1(StatusUpdateToV1(su)))
	send := &a2av03pb.SendMessageRequest{Request: msg, Metadata: md("r", "v"), Configuration: &a2av03pb.SendMessageConfiguration{
		AcceptedOutputModes: []string{"a"}, HistoryLength: 4, Blocking: true,
		PushNotification: &a2av03pb.PushNotificationConfig{Id: "p", Url: "https://h", Token: "t", Authentication: &a2av03pb.AuthenticationInfo{Schemes: []string{"Bearer"}, Credentials: "c"}}}}
	same(t, "SendMessageRequest", send, SendRequestFromV1(SendRequestToV1(send)))
	create := &a2av03pb.CreateTaskPushNotificationConfigRequest{Parent: "tasks/t1", ConfigId: "p1", Config: TaskPushConfigFromV1(v1PushConfig())}
	v1, err := CreatePushConfigRequestToV1(create)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "CreateTaskPushNotificationConfigRequest", create, CreatePushConfigRequestFromV1(v1))
	card := CardFromV1(v1Card())
	same(t, "AgentCard", card, CardFromV1(CardToV1(card)))
}

// TestLossyConversions pins what Lossy says for the parts a round trip
// changes.
func TestLossyConversions(t *testing.T) {
	p := &a2av1.Part{Content: &a2av1.Part_Data{Data: structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("x")}})},
		Metadata: md("k", "v"), Filename: "f.json"}
	got := PartToV1(PartFromV1(p))
	if got.GetMetadata() != nil || got.GetFilename() != "" {
		t.Errorf("part metadata and filename survived: %v", got)
	}
	if v := got.GetData().GetStructValue().GetFields()["value"].GetListValue(); len(v.GetValues()) != 1 {
		t.Errorf("non-object data = %v, want it wrapped as {\"value\": [...]}", got.GetData())
	}
	su := StatusUpdateFromV1(&a2av1.TaskStatusUpdateEvent{Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}})
	if su.GetFinal() {
		t.Error("WORKING is final")
	}
	if !StatusUpdateFromV1(&a2av1.TaskStatusUpdateEvent{Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED}}).GetFinal() {
		t.Error("COMPLETED is not final")
	}
	auth := PushNotificationConfigToV1("t", &a2av03pb.PushNotificationConfig{Authentication: &a2av03pb.AuthenticationInfo{Schemes: []string{"Bearer", "Basic"}}})
	if auth.GetAuthentication().GetScheme() != "Bearer" {
		t.Errorf("first scheme = %q", auth.GetAuthentication().GetScheme())
	}
	if c := SendRequestToV1(&a2av03pb.SendMessageRequest{Configuration: &a2av03pb.SendMessageConfiguration{}}); !c.GetConfiguration().GetReturnImmediately() {
		t.Error("blocking false is not returnImmediately")
	}
	if c := SendRequestToV1(&a2av03pb.SendMessageRequest{}); c.GetConfiguration().GetReturnImmediately() {
		t.Error("no configuration is not blocking")
	}
}

// TestV03CardInterfaces: the proto card's url and preferredTransport first,
// JSONRPC by default, duplicates of additionalInterfaces skipped, an entry
// without a transport kept without a binding (a2av03.V03Interfaces).
func TestV03CardInterfaces(t *testing.T) {
	got := CardToV1(&a2av03pb.AgentCard{Url: "http://a/rpc", ProtocolVersion: "0.3.0", AdditionalInterfaces: []*a2av03pb.AgentInterface{
		{Url: "http://a/rpc", Transport: "JSONRPC"}, {Url: "a:1", Transport: "GRPC"}, {Url: "", Transport: "HTTP+JSON"}, {Url: "http://a/x"},
	}}).GetSupportedInterfaces()
	want := []*a2av1.AgentInterface{
		{Url: "http://a/rpc", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3.0"},
		{Url: "a:1", ProtocolBinding: "GRPC", ProtocolVersion: "0.3.0"},
		{Url: "http://a/x", ProtocolVersion: "0.3.0"},
	}
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Error(diff)
	}
}

// TestBadResourceNames: a v0.3 request naming a task or config in another
// form is InvalidParams naming the field.
func TestBadResourceNames(t *testing.T) {
	for _, c := range []struct {
		name, field string
		err         error
	}{
		{"t1", "name", func() error { _, err := GetTaskRequestToV1(&a2av03pb.GetTaskRequest{Name: "t1"}); return err }()},
		{"tasks/", "name", func() error { _, err := CancelTaskRequestToV1(&a2av03pb.CancelTaskRequest{Name: "tasks/"}); return err }()},
		{"tasks/a/b", "name", func() error {
			_, err := SubscribeRequestToV1(&a2av03pb.TaskSubscriptionRequest{Name: "tasks/a/b"})
			return err
		}()},
		{"x/t1", "parent", func() error {
			_, err := CreatePushConfigRequestToV1(&a2av03pb.CreateTaskPushNotificationConfigRequest{Parent: "x/t1"})
			return err
		}()},
		{"other task", "config.name", func() error {
			_, err := CreatePushConfigRequestToV1(&a2av03pb.CreateTaskPushNotificationConfigRequest{Parent: "tasks/t1",
				Config: &a2av03pb.TaskPushNotificationConfig{Name: "tasks/t2/pushNotificationConfigs/p"}})
			return err
		}()},
		{"tasks/t1", "name", func() error {
			_, err := GetPushConfigRequestToV1(&a2av03pb.GetTaskPushNotificationConfigRequest{Name: "tasks/t1"})
			return err
		}()},
		{"tasks/t1/pushNotificationConfigs/", "name", func() error {
			_, err := DeletePushConfigRequestToV1(&a2av03pb.DeleteTaskPushNotificationConfigRequest{Name: "tasks/t1/pushNotificationConfigs/"})
			return err
		}()},
		{"", "parent", func() error {
			_, err := ListPushConfigsRequestToV1(&a2av03pb.ListTaskPushNotificationConfigRequest{})
			return err
		}()},
	} {
		e := runtime.ErrorOrInternal(c.err)
		if v := e.FieldViolations(); e.Code() != runtime.CodeInvalidParams || len(v) != 1 || v[0].Field != c.field {
			t.Errorf("%q: error %v, want InvalidParams naming %s", c.name, c.err, c.field)
		}
	}
}
