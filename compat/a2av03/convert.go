package a2av03

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// invalid is the InvalidParams error of a v0.3 value that has no v1.0 reading.
func invalid(path, description string) error {
	return runtime.InvalidParams(path+": "+description, runtime.FieldViolation{Field: path, Description: description})
}

// index is path[i].
func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// roles and states are the v0.3 enum spellings, both ways.
var (
	rolesToV1  = map[string]a2av1.Role{"user": a2av1.Role_ROLE_USER, "agent": a2av1.Role_ROLE_AGENT}
	statesToV1 = map[string]a2av1.TaskState{
		"submitted":      a2av1.TaskState_TASK_STATE_SUBMITTED,
		"working":        a2av1.TaskState_TASK_STATE_WORKING,
		"input-required": a2av1.TaskState_TASK_STATE_INPUT_REQUIRED,
		"completed":      a2av1.TaskState_TASK_STATE_COMPLETED,
		"canceled":       a2av1.TaskState_TASK_STATE_CANCELED,
		"failed":         a2av1.TaskState_TASK_STATE_FAILED,
		"rejected":       a2av1.TaskState_TASK_STATE_REJECTED,
		"auth-required":  a2av1.TaskState_TASK_STATE_AUTH_REQUIRED,
		"unknown":        a2av1.TaskState_TASK_STATE_UNSPECIFIED,
	}
	rolesFromV1  = invert(rolesToV1)
	statesFromV1 = invert(statesToV1)
)

func invert[K, V comparable](m map[K]V) map[V]K {
	out := make(map[V]K, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

// RoleToV1 reads a v0.3 role ("user", "agent").
func RoleToV1(role, path string) (a2av1.Role, error) {
	if r, ok := rolesToV1[role]; ok {
		return r, nil
	}
	return 0, invalid(path, fmt.Sprintf("%q is not an A2A v0.3 role (user or agent)", role))
}

// RoleFromV1 is the v0.3 spelling of a role; ROLE_UNSPECIFIED has none and
// is written as "" (see Lossy).
func RoleFromV1(r a2av1.Role) string { return rolesFromV1[r] }

// StateToV1 reads a v0.3 task state ("input-required"); "unknown" is
// TASK_STATE_UNSPECIFIED.
func StateToV1(state, path string) (a2av1.TaskState, error) {
	if s, ok := statesToV1[state]; ok {
		return s, nil
	}
	return 0, invalid(path, fmt.Sprintf("%q is not an A2A v0.3 task state (submitted, working, input-required, completed, canceled, failed, rejected, auth-required, unknown)", state))
}

// StateFromV1 is the v0.3 spelling of a task state.
func StateFromV1(s a2av1.TaskState) string {
	if v, ok := statesFromV1[s]; ok {
		return v
	}
	return "unknown"
}

// Final is the v0.3 "final" of a status update in state s: true when a
// v1.0 stream ends with it (a terminal state or INPUT_REQUIRED).
func Final(s a2av1.TaskState) bool {
	switch s {
	case a2av1.TaskState_TASK_STATE_COMPLETED, a2av1.TaskState_TASK_STATE_FAILED,
		a2av1.TaskState_TASK_STATE_CANCELED, a2av1.TaskState_TASK_STATE_REJECTED,
		a2av1.TaskState_TASK_STATE_INPUT_REQUIRED:
		return true
	}
	return false
}

// structToV1 reads a JSON object (metadata) into a Struct; empty is nil.
func structToV1(raw json.RawMessage, path string) (*structpb.Struct, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	s := new(structpb.Struct)
	if err := protojson.Unmarshal(raw, s); err != nil {
		return nil, invalid(path, "must be a JSON object")
	}
	return s, nil
}

// structFromV1 writes a Struct as a JSON object; nil is omitted.
func structFromV1(s *structpb.Struct) json.RawMessage {
	if s == nil {
		return nil
	}
	b, _ := protojson.Marshal(s) // a Struct always marshals
	return b
}

// PartToV1 reads a v0.3 part.
func PartToV1(p Part, path string) (*a2av1.Part, error) {
	md, err := structToV1(p.Metadata, path+".metadata")
	if err != nil {
		return nil, err
	}
	out := &a2av1.Part{Metadata: md}
	switch p.Kind {
	case KindText:
		if p.Text == nil {
			return nil, invalid(path+".text", "a text part needs text")
		}
		out.Content = &a2av1.Part_Text{Text: *p.Text}
	case KindFile:
		if err := fileToV1(p.File, out, path+".file"); err != nil {
			return nil, err
		}
	case KindData:
		if len(p.Data) == 0 {
			return nil, invalid(path+".data", "a data part needs data")
		}
		v := new(structpb.Value)
		if err := protojson.Unmarshal(p.Data, v); err != nil || v.GetStructValue() == nil {
			return nil, invalid(path+".data", "must be a JSON object")
		}
		out.Content = &a2av1.Part_Data{Data: v}
	case "":
		return nil, invalid(path+".kind", "missing: an A2A v0.3 part says its kind (text, file or data)")
	default:
		return nil, invalid(path+".kind", fmt.Sprintf("%q is not an A2A v0.3 part kind (text, file or data)", p.Kind))
	}
	return out, nil
}

// fileToV1 reads a v0.3 file part's file into out: its bytes or its uri,
// name and media type.
func fileToV1(f *FileContent, out *a2av1.Part, path string) error {
	switch {
	case f == nil:
		return invalid(path, "a file part needs file")
	case f.Bytes != nil && f.URI != nil:
		return invalid(path, "a file has bytes or uri, not both")
	case f.Bytes != nil:
		raw, err := base64.StdEncoding.DecodeString(*f.Bytes)
		if err != nil {
			return invalid(path+".bytes", "must be base64")
		}
		out.Content = &a2av1.Part_Raw{Raw: raw}
	case f.URI != nil:
		out.Content = &a2av1.Part_Url{Url: *f.URI}
	default:
		return invalid(path, "a file needs bytes or uri")
	}
	out.Filename, out.MediaType = f.Name, f.MimeType
	return nil
}

// PartFromV1 writes a v1.0 part in the v0.3 shape. Data that is not a JSON
// object is wrapped as {"value": …}; see Lossy for the rest.
func PartFromV1(p *a2av1.Part) (Part, error) {
	out := Part{Metadata: structFromV1(p.GetMetadata())}
	switch c := p.GetContent().(type) {
	case *a2av1.Part_Text:
		out.Kind, out.Text = KindText, &c.Text
	case *a2av1.Part_Raw:
		b := base64.StdEncoding.EncodeToString(c.Raw)
		out.Kind, out.File = KindFile, &FileContent{Bytes: &b, Name: p.GetFilename(), MimeType: p.GetMediaType()}
	case *a2av1.Part_Url:
		u := c.Url
		out.Kind, out.File = KindFile, &FileContent{URI: &u, Name: p.GetFilename(), MimeType: p.GetMediaType()}
	case *a2av1.Part_Data:
		v := c.Data
		if v.GetStructValue() == nil {
			v = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"value": v}})
		}
		b, err := protojson.Marshal(v)
		if err != nil {
			return Part{}, fmt.Errorf("a2av03: data part: %w", err)
		}
		out.Kind, out.Data = KindData, b
	default:
		return Part{}, fmt.Errorf("a2av03: a part without content has no A2A v0.3 form")
	}
	return out, nil
}

func partsToV1(parts []Part, path string) ([]*a2av1.Part, error) {
	out := make([]*a2av1.Part, len(parts))
	for i, p := range parts {
		v, err := PartToV1(p, index(path, i))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func partsFromV1(parts []*a2av1.Part) ([]Part, error) {
	out := make([]Part, len(parts))
	for i, p := range parts {
		v, err := PartFromV1(p)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// MessageToV1 reads a v0.3 message; path names it in errors ("message").
func MessageToV1(m *Message, path string) (*a2av1.Message, error) {
	if m == nil {
		return nil, nil
	}
	if m.Kind != KindMessage {
		return nil, kindError(path, m.Kind, KindMessage)
	}
	role, err := RoleToV1(m.Role, path+".role")
	if err != nil {
		return nil, err
	}
	parts, err := partsToV1(m.Parts, path+".parts")
	if err != nil {
		return nil, err
	}
	md, err := structToV1(m.Metadata, path+".metadata")
	if err != nil {
		return nil, err
	}
	return &a2av1.Message{MessageId: m.MessageID, ContextId: m.ContextID, TaskId: m.TaskID, Role: role,
		Parts: parts, Metadata: md, Extensions: m.Extensions, ReferenceTaskIds: m.ReferenceTaskIDs}, nil
}

// kindError reports a missing or unexpected kind discriminator.
func kindError(path, got, want string) error {
	if got == "" {
		return invalid(path+".kind", fmt.Sprintf("missing: an A2A v0.3 %s says kind %q", want, want))
	}
	return invalid(path+".kind", fmt.Sprintf("%q, want %q", got, want))
}

// MessageFromV1 writes a v1.0 message in the v0.3 shape.
func MessageFromV1(m *a2av1.Message) (*Message, error) {
	if m == nil {
		return nil, nil
	}
	parts, err := partsFromV1(m.GetParts())
	if err != nil {
		return nil, err
	}
	return &Message{Kind: KindMessage, MessageID: m.GetMessageId(), ContextID: m.GetContextId(), TaskID: m.GetTaskId(),
		Role: RoleFromV1(m.GetRole()), Parts: parts, Metadata: structFromV1(m.GetMetadata()),
		Extensions: m.GetExtensions(), ReferenceTaskIDs: m.GetReferenceTaskIds()}, nil
}

// StatusToV1 reads a v0.3 task status.
func StatusToV1(s TaskStatus, path string) (*a2av1.TaskStatus, error) {
	state, err := StateToV1(s.State, path+".state")
	if err != nil {
		return nil, err
	}
	msg, err := MessageToV1(s.Message, path+".message")
	if err != nil {
		return nil, err
	}
	out := &a2av1.TaskStatus{State: state, Message: msg}
	if s.Timestamp != "" {
		t, err := time.Parse(time.RFC3339Nano, s.Timestamp)
		if err != nil {
			return nil, invalid(path+".timestamp", "must be an ISO 8601 (RFC 3339) date-time")
		}
		out.Timestamp = timestamppb.New(t)
	}
	return out, nil
}

// StatusFromV1 writes a v1.0 task status in the v0.3 shape.
func StatusFromV1(s *a2av1.TaskStatus) (TaskStatus, error) {
	msg, err := MessageFromV1(s.GetMessage())
	if err != nil {
		return TaskStatus{}, err
	}
	out := TaskStatus{State: StateFromV1(s.GetState()), Message: msg}
	if ts := s.GetTimestamp(); ts != nil {
		out.Timestamp = ts.AsTime().UTC().Format(time.RFC3339Nano)
	}
	return out, nil
}

// ArtifactToV1 reads a v0.3 artifact.
func ArtifactToV1(a Artifact, path string) (*a2av1.Artifact, error) {
	parts, err := partsToV1(a.Parts, path+".parts")
	if err != nil {
		return nil, err
	}
	md, err := structToV1(a.Metadata, path+".metadata")
	if err != nil {
		return nil, err
	}
	return &a2av1.Artifact{ArtifactId: a.ArtifactID, Name: a.Name, Description: a.Description,
		Parts: parts, Metadata: md, Extensions: a.Extensions}, nil
}

// ArtifactFromV1 writes a v1.0 artifact in the v0.3 shape.
func ArtifactFromV1(a *a2av1.Artifact) (Artifact, error) {
	parts, err := partsFromV1(a.GetParts())
	if err != nil {
		return Artifact{}, err
	}
	return Artifact{ArtifactID: a.GetArtifactId(), Name: a.GetName(), Description: a.GetDescription(),
		Parts: parts, Metadata: structFromV1(a.GetMetadata()), Extensions: a.GetExtensions()}, nil
}

// TaskToV1 reads a v0.3 task.
func TaskToV1(t *Task, path string) (*a2av1.Task, error) {
	if t.Kind != KindTask {
		return nil, kindError(path, t.Kind, KindTask)
	}
	status, err := StatusToV1(t.Status, path+".status")
	if err != nil {
		return nil, err
	}
	out := &a2av1.Task{Id: t.ID, ContextId: t.ContextID, Status: status}
	for i, a := range t.Artifacts {
		v, err := ArtifactToV1(a, index(path+".artifacts", i))
		if err != nil {
			return nil, err
		}
		out.Artifacts = append(out.Artifacts, v)
	}
	for i := range t.History {
		v, err := MessageToV1(&t.History[i], index(path+".history", i))
		if err != nil {
			return nil, err
		}
		out.History = append(out.History, v)
	}
	if out.Metadata, err = structToV1(t.Metadata, path+".metadata"); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskFromV1 writes a v1.0 task in the v0.3 shape.
func TaskFromV1(t *a2av1.Task) (*Task, error) {
	status, err := StatusFromV1(t.GetStatus())
	if err != nil {
		return nil, err
	}
	out := &Task{Kind: KindTask, ID: t.GetId(), ContextID: t.GetContextId(), Status: status, Metadata: structFromV1(t.GetMetadata())}
	for _, a := range t.GetArtifacts() {
		v, err := ArtifactFromV1(a)
		if err != nil {
			return nil, err
		}
		out.Artifacts = append(out.Artifacts, v)
	}
	for _, m := range t.GetHistory() {
		v, err := MessageFromV1(m)
		if err != nil {
			return nil, err
		}
		out.History = append(out.History, *v)
	}
	return out, nil
}

// StatusUpdateToV1 reads a v0.3 status update; "final" has no v1.0
// counterpart (the stream's end says it) and is dropped.
func StatusUpdateToV1(e *TaskStatusUpdateEvent, path string) (*a2av1.TaskStatusUpdateEvent, error) {
	if e.Kind != KindStatusUpdate {
		return nil, kindError(path, e.Kind, KindStatusUpdate)
	}
	status, err := StatusToV1(e.Status, path+".status")
	if err != nil {
		return nil, err
	}
	md, err := structToV1(e.Metadata, path+".metadata")
	if err != nil {
		return nil, err
	}
	return &a2av1.TaskStatusUpdateEvent{TaskId: e.TaskID, ContextId: e.ContextID, Status: status, Metadata: md}, nil
}

// StatusUpdateFromV1 writes a v1.0 status update in the v0.3 shape, with
// final set by Final.
func StatusUpdateFromV1(e *a2av1.TaskStatusUpdateEvent) (*TaskStatusUpdateEvent, error) {
	status, err := StatusFromV1(e.GetStatus())
	if err != nil {
		return nil, err
	}
	return &TaskStatusUpdateEvent{Kind: KindStatusUpdate, TaskID: e.GetTaskId(), ContextID: e.GetContextId(),
		Status: status, Final: Final(e.GetStatus().GetState()), Metadata: structFromV1(e.GetMetadata())}, nil
}

// ArtifactUpdateToV1 reads a v0.3 artifact update.
func ArtifactUpdateToV1(e *TaskArtifactUpdateEvent, path string) (*a2av1.TaskArtifactUpdateEvent, error) {
	if e.Kind != KindArtifactUpdate {
		return nil, kindError(path, e.Kind, KindArtifactUpdate)
	}
	a, err := ArtifactToV1(e.Artifact, path+".artifact")
	if err != nil {
		return nil, err
	}
	md, err := structToV1(e.Metadata, path+".metadata")
	if err != nil {
		return nil, err
	}
	return &a2av1.TaskArtifactUpdateEvent{TaskId: e.TaskID, ContextId: e.ContextID, Artifact: a,
		Append: e.Append, LastChunk: e.LastChunk, Metadata: md}, nil
}

// ArtifactUpdateFromV1 writes a v1.0 artifact update in the v0.3 shape.
func ArtifactUpdateFromV1(e *a2av1.TaskArtifactUpdateEvent) (*TaskArtifactUpdateEvent, error) {
	a, err := ArtifactFromV1(e.GetArtifact())
	if err != nil {
		return nil, err
	}
	return &TaskArtifactUpdateEvent{Kind: KindArtifactUpdate, TaskID: e.GetTaskId(), ContextID: e.GetContextId(),
		Artifact: a, Append: e.GetAppend(), LastChunk: e.GetLastChunk(), Metadata: structFromV1(e.GetMetadata())}, nil
}

// PushConfigToV1 reads a v0.3 push config of task taskID. Only the first
// authentication scheme is kept (v1.0 has one).
func PushConfigToV1(taskID string, c *PushNotificationConfig, path string) (*a2av1.TaskPushNotificationConfig, error) {
	if c == nil {
		return nil, nil
	}
	out := &a2av1.TaskPushNotificationConfig{Id: c.ID, TaskId: taskID, Url: c.URL, Token: c.Token}
	if a := c.Authentication; a != nil {
		if len(a.Schemes) == 0 {
			return nil, invalid(path+".authentication.schemes", "must list at least one scheme")
		}
		out.Authentication = &a2av1.AuthenticationInfo{Scheme: a.Schemes[0], Credentials: a.Credentials}
	}
	return out, nil
}

// PushConfigFromV1 writes a v1.0 push config in the v0.3 shape.
func PushConfigFromV1(c *a2av1.TaskPushNotificationConfig) *TaskPushNotificationConfig {
	out := &TaskPushNotificationConfig{TaskID: c.GetTaskId(),
		PushNotificationConfig: PushNotificationConfig{ID: c.GetId(), URL: c.GetUrl(), Token: c.GetToken()}}
	if a := c.GetAuthentication(); a != nil {
		out.PushNotificationConfig.Authentication = &PushNotificationAuthenticationInfo{Schemes: []string{a.GetScheme()}, Credentials: a.GetCredentials()}
	}
	return out
}

// SendParamsToV1 reads the params of message/send and message/stream.
// blocking false is returnImmediately; absent blocking is the v1.0 default
// (blocking).
func SendParamsToV1(p *MessageSendParams) (*a2av1.SendMessageRequest, error) {
	if p.Message == nil {
		return nil, invalid("message", "missing")
	}
	msg, err := MessageToV1(p.Message, "message")
	if err != nil {
		return nil, err
	}
	md, err := structToV1(p.Metadata, "metadata")
	if err != nil {
		return nil, err
	}
	out := &a2av1.SendMessageRequest{Message: msg, Metadata: md}
	if c := p.Configuration; c != nil {
		cfg := &a2av1.SendMessageConfiguration{AcceptedOutputModes: c.AcceptedOutputModes, HistoryLength: c.HistoryLength}
		if c.Blocking != nil {
			cfg.ReturnImmediately = !*c.Blocking
		}
		if cfg.TaskPushNotificationConfig, err = PushConfigToV1(msg.GetTaskId(), c.PushNotificationConfig, "configuration.pushNotificationConfig"); err != nil {
			return nil, err
		}
		out.Configuration = cfg
	}
	return out, nil
}

// SendParamsFromV1 writes a v1.0 SendMessageRequest as v0.3 params. The
// tenant has no v0.3 counterpart (it is the interface's).
func SendParamsFromV1(r *a2av1.SendMessageRequest) (*MessageSendParams, error) {
	msg, err := MessageFromV1(r.GetMessage())
	if err != nil {
		return nil, err
	}
	out := &MessageSendParams{Message: msg, Metadata: structFromV1(r.GetMetadata())}
	if c := r.GetConfiguration(); c != nil {
		blocking := !c.GetReturnImmediately()
		out.Configuration = &MessageSendConfiguration{AcceptedOutputModes: c.GetAcceptedOutputModes(),
			Blocking: &blocking, HistoryLength: c.HistoryLength}
		if pc := c.GetTaskPushNotificationConfig(); pc != nil {
			v := PushConfigFromV1(pc).PushNotificationConfig
			out.Configuration.PushNotificationConfig = &v
		}
	}
	return out, nil
}
