package a2av03

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The ProtoJSON form of the v0.3 proto (proto/a2a/v1/a2a.proto, package
// a2a.v1; a2a/v03) is the other wire form of v0.3 HTTP+JSON: the one the
// JS SDK 1.3's v0.3 REST client and server, the Go SDK from v2.4
// (a2acompat/a2av0) and the Python SDK's v0.3 line speak. It differs from
// the JSON-RPC object form (types.go) in these ways: no kind
// discriminators (a oneof member says what a part or event is); a message's
// parts are "content"; enums are proto names ("ROLE_USER",
// "TASK_STATE_CANCELLED"); a file part is {"fileWithUri"|"fileWithBytes",
// "mimeType"}; a data part nests its object as {"data": {…}}; a push config
// is {"name": "tasks/{id}/pushNotificationConfigs/{configId}",
// "pushNotificationConfig": {…}}; results and events are wrapped in
// {"task"|"message"|"statusUpdate"|"artifactUpdate": …}.
//
// The types below read it liberally (proto field names in snake_case are
// camelCased first, by decodeBody; enums as names or numbers; integers as
// numbers or strings; base64 standard or URL-safe) and convert to and from
// the JSON-RPC object form, whose conversions to v1.0 are the one reading of
// v0.3. What they write has only the members of the v0.3 proto.

// pjRole is a v0.3 proto Role, read as its name or number.
type pjRole string

// pjState is a v0.3 proto TaskState, read as its name or number.
type pjState string

var (
	pjRoleNames  = []string{"ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"}
	pjStateNames = []string{"TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING",
		"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELLED", "TASK_STATE_INPUT_REQUIRED",
		"TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"}
	// pjRolesToKind and pjStatesToKind map proto names to the JSON-RPC
	// spellings; the inverse maps write them.
	pjRolesToKind  = map[string]string{"ROLE_USER": "user", "ROLE_AGENT": "agent", "ROLE_UNSPECIFIED": ""}
	pjStatesToKind = map[string]string{
		"TASK_STATE_UNSPECIFIED": "unknown", "TASK_STATE_SUBMITTED": "submitted", "TASK_STATE_WORKING": "working",
		"TASK_STATE_COMPLETED": "completed", "TASK_STATE_FAILED": "failed", "TASK_STATE_CANCELLED": "canceled",
		"TASK_STATE_INPUT_REQUIRED": "input-required", "TASK_STATE_REJECTED": "rejected",
		"TASK_STATE_AUTH_REQUIRED": "auth-required",
	}
	kindRolesToPJ  = invert(pjRolesToKind)
	kindStatesToPJ = invert(pjStatesToKind)
)

// enumName reads a ProtoJSON enum: its name, or its number when names has it.
func enumName(raw []byte, names []string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		return "", fmt.Errorf("an enum is a name or a number, got %s", raw)
	}
	if n >= 0 && n < len(names) {
		return names[n], nil
	}
	return strconv.Itoa(n), nil
}

// UnmarshalJSON reads a role name or number.
func (r *pjRole) UnmarshalJSON(b []byte) error {
	s, err := enumName(b, pjRoleNames)
	*r = pjRole(s)
	return err
}

// UnmarshalJSON reads a state name or number.
func (s *pjState) UnmarshalJSON(b []byte) error {
	v, err := enumName(b, pjStateNames)
	*s = pjState(v)
	return err
}

// pjInt32 is a ProtoJSON int32: a number or a string holding one.
type pjInt32 int32

// UnmarshalJSON reads a number or a quoted number.
func (n *pjInt32) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(bytes.TrimSpace(b), `"`)
	v, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil {
		return fmt.Errorf("an int32 is a number, got %s", b)
	}
	*n = pjInt32(v)
	return nil
}

type pjFilePart struct {
	FileWithURI   *string `json:"fileWithUri,omitempty"`
	FileWithBytes *string `json:"fileWithBytes,omitempty"`
	MimeType      string  `json:"mimeType,omitempty"`
	// Name is read, never written: the Go SDK ≥ 2.4 sends it, the v0.3
	// proto has no such field.
	Name string `json:"name,omitempty"`
}

type pjDataPart struct {
	Data json.RawMessage `json:"data,omitempty"`
}

type pjPart struct {
	Text *string     `json:"text,omitempty"`
	File *pjFilePart `json:"file,omitempty"`
	Data *pjDataPart `json:"data,omitempty"`
	// Metadata is read, never written (as FilePart.Name).
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

type pjMessage struct {
	MessageID  string          `json:"messageId,omitempty"`
	ContextID  string          `json:"contextId,omitempty"`
	TaskID     string          `json:"taskId,omitempty"`
	Role       pjRole          `json:"role,omitempty"`
	Content    []pjPart        `json:"content,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Extensions []string        `json:"extensions,omitempty"`
	// ReferenceTaskIDs is read, never written (as FilePart.Name).
	ReferenceTaskIDs []string `json:"referenceTaskIds,omitempty"`
}

type pjTaskStatus struct {
	State pjState `json:"state,omitempty"`
	// Message is the proto's update, whose JSON name is "message"; "update"
	// is read too (readMessageAlias).
	Message   *pjMessage `json:"message,omitempty"`
	Update    *pjMessage `json:"update,omitempty"`
	Timestamp string     `json:"timestamp,omitempty"`
}

type pjArtifact struct {
	ArtifactID  string          `json:"artifactId,omitempty"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parts       []pjPart        `json:"parts,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	Extensions  []string        `json:"extensions,omitempty"`
}

type pjTask struct {
	ID        string          `json:"id,omitempty"`
	ContextID string          `json:"contextId,omitempty"`
	Status    *pjTaskStatus   `json:"status,omitempty"`
	Artifacts []pjArtifact    `json:"artifacts,omitempty"`
	History   []pjMessage     `json:"history,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

type pjStatusUpdate struct {
	TaskID    string          `json:"taskId,omitempty"`
	ContextID string          `json:"contextId,omitempty"`
	Status    *pjTaskStatus   `json:"status,omitempty"`
	Final     bool            `json:"final,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

type pjArtifactUpdate struct {
	TaskID    string          `json:"taskId,omitempty"`
	ContextID string          `json:"contextId,omitempty"`
	Artifact  *pjArtifact     `json:"artifact,omitempty"`
	Append    bool            `json:"append,omitempty"`
	LastChunk bool            `json:"lastChunk,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// pjStreamResponse is a StreamResponse, and with only Task and Message a
// SendMessageResponse. Msg is the proto field name of "message".
type pjStreamResponse struct {
	Task           *pjTask           `json:"task,omitempty"`
	Message        *pjMessage        `json:"message,omitempty"`
	Msg            *pjMessage        `json:"msg,omitempty"`
	StatusUpdate   *pjStatusUpdate   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *pjArtifactUpdate `json:"artifactUpdate,omitempty"`
}

type pjAuthenticationInfo struct {
	Schemes     []string `json:"schemes,omitempty"`
	Credentials string   `json:"credentials,omitempty"`
}

type pjPushConfig struct {
	ID             string                `json:"id,omitempty"`
	URL            string                `json:"url,omitempty"`
	Token          string                `json:"token,omitempty"`
	Authentication *pjAuthenticationInfo `json:"authentication,omitempty"`
}

type pjTaskPushConfig struct {
	Name                   string        `json:"name,omitempty"`
	PushNotificationConfig *pjPushConfig `json:"pushNotificationConfig,omitempty"`
}

type pjListPushConfigs struct {
	Configs       []pjTaskPushConfig `json:"configs"`
	NextPageToken string             `json:"nextPageToken,omitempty"`
}

type pjSendConfiguration struct {
	AcceptedOutputModes []string      `json:"acceptedOutputModes,omitempty"`
	PushNotification    *pjPushConfig `json:"pushNotification,omitempty"`
	HistoryLength       *pjInt32      `json:"historyLength,omitempty"`
	Blocking            *bool         `json:"blocking,omitempty"`
}

// pjSendRequest is a SendMessageRequest; Request is the proto field name of
// "message".
type pjSendRequest struct {
	Message       *pjMessage           `json:"message,omitempty"`
	Request       *pjMessage           `json:"request,omitempty"`
	Configuration *pjSendConfiguration `json:"configuration,omitempty"`
	Metadata      json.RawMessage      `json:"metadata,omitempty"`
}

// pjCreatePushConfigRequest is a CreateTaskPushNotificationConfigRequest
// (what the Go SDK ≥ 2.4 posts).
type pjCreatePushConfigRequest struct {
	Parent   string            `json:"parent,omitempty"`
	ConfigID string            `json:"configId,omitempty"`
	Config   *pjTaskPushConfig `json:"config,omitempty"`
}

// ---- ProtoJSON → JSON-RPC object form -----------------------------------

// standardBase64 is b64 (standard or URL-safe, padded or not) in standard
// padded base64, the JSON-RPC form's; what does not decode is kept, for
// PartToV1 to refuse with its path.
func standardBase64(b64 string) string {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if raw, err := enc.DecodeString(b64); err == nil {
			return base64.StdEncoding.EncodeToString(raw)
		}
	}
	return b64
}

func (p *pjPart) toKind(path string) (Part, error) {
	out := Part{Metadata: p.Metadata}
	n := 0
	if p.Text != nil {
		out.Kind, out.Text = KindText, p.Text
		n++
	}
	if p.File != nil {
		out.Kind = KindFile
		f := &FileContent{URI: p.File.FileWithURI, MimeType: p.File.MimeType, Name: p.File.Name}
		if p.File.FileWithBytes != nil {
			b := standardBase64(*p.File.FileWithBytes)
			f.Bytes = &b
		}
		out.File = f
		n++
	}
	if p.Data != nil {
		out.Kind, out.Data = KindData, p.Data.Data
		if len(out.Data) == 0 {
			out.Data = json.RawMessage("{}")
		}
		n++
	}
	switch n {
	case 0:
		return out, invalid(path, "an A2A v0.3 part has text, file or data")
	case 1:
		return out, nil
	}
	return out, invalid(path, "an A2A v0.3 part has one of text, file and data, not several")
}

func (m *pjMessage) toKind(path string) (*Message, error) {
	if m == nil {
		return nil, nil
	}
	out := &Message{Kind: KindMessage, MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID,
		Metadata: m.Metadata, Extensions: m.Extensions, ReferenceTaskIDs: m.ReferenceTaskIDs, Parts: []Part{}}
	role, ok := pjRolesToKind[string(m.Role)]
	if !ok {
		return nil, invalid(path+".role", fmt.Sprintf("%q is not an A2A v0.3 proto role (ROLE_USER or ROLE_AGENT)", m.Role))
	}
	out.Role = role
	for i := range m.Content {
		p, err := m.Content[i].toKind(index(path+".content", i))
		if err != nil {
			return nil, err
		}
		out.Parts = append(out.Parts, p)
	}
	return out, nil
}

func (s *pjTaskStatus) toKind(path string) (TaskStatus, error) {
	if s == nil {
		return TaskStatus{State: "unknown"}, nil
	}
	state, ok := pjStatesToKind[string(s.State)]
	if s.State == "" {
		state, ok = "unknown", true
	}
	if !ok {
		return TaskStatus{}, invalid(path+".state", fmt.Sprintf("%q is not an A2A v0.3 proto task state", s.State))
	}
	msg := s.Message
	if msg == nil {
		msg = s.Update
	}
	m, err := msg.toKind(path + ".message")
	return TaskStatus{State: state, Message: m, Timestamp: s.Timestamp}, err
}

func (a *pjArtifact) toKind(path string) (Artifact, error) {
	out := Artifact{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Metadata: a.Metadata,
		Extensions: a.Extensions, Parts: []Part{}}
	for i := range a.Parts {
		p, err := a.Parts[i].toKind(index(path+".parts", i))
		if err != nil {
			return out, err
		}
		out.Parts = append(out.Parts, p)
	}
	return out, nil
}

func (t *pjTask) toKind(path string) (*Task, error) {
	out := &Task{Kind: KindTask, ID: t.ID, ContextID: t.ContextID, Metadata: t.Metadata}
	var err error
	if out.Status, err = t.Status.toKind(path + ".status"); err != nil {
		return nil, err
	}
	for i := range t.Artifacts {
		a, err := t.Artifacts[i].toKind(index(path+".artifacts", i))
		if err != nil {
			return nil, err
		}
		out.Artifacts = append(out.Artifacts, a)
	}
	for i := range t.History {
		m, err := t.History[i].toKind(index(path+".history", i))
		if err != nil {
			return nil, err
		}
		out.History = append(out.History, *m)
	}
	return out, nil
}

// toKind is the event in the JSON-RPC object form: *Task, *Message,
// *TaskStatusUpdateEvent or *TaskArtifactUpdateEvent.
func (r *pjStreamResponse) toKind(path string) (any, error) {
	msg := r.Message
	if msg == nil {
		msg = r.Msg
	}
	n := 0
	for _, set := range []bool{r.Task != nil, msg != nil, r.StatusUpdate != nil, r.ArtifactUpdate != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, invalid(path, fmt.Sprintf("an A2A v0.3 proto StreamResponse holds one of task, message, statusUpdate and artifactUpdate, got %d", n))
	}
	switch {
	case r.Task != nil:
		return r.Task.toKind(path + ".task")
	case msg != nil:
		return msg.toKind(path + ".message")
	case r.StatusUpdate != nil:
		e := r.StatusUpdate
		st, err := e.Status.toKind(path + ".statusUpdate.status")
		return &TaskStatusUpdateEvent{Kind: KindStatusUpdate, TaskID: e.TaskID, ContextID: e.ContextID, Status: st,
			Final: e.Final, Metadata: e.Metadata}, err
	}
	e := r.ArtifactUpdate
	out := &TaskArtifactUpdateEvent{Kind: KindArtifactUpdate, TaskID: e.TaskID, ContextID: e.ContextID,
		Append: e.Append, LastChunk: e.LastChunk, Metadata: e.Metadata}
	if e.Artifact != nil {
		a, err := e.Artifact.toKind(path + ".artifactUpdate.artifact")
		if err != nil {
			return nil, err
		}
		out.Artifact = a
	}
	return out, nil
}

func (c *pjPushConfig) toKind() *PushNotificationConfig {
	if c == nil {
		return nil
	}
	out := &PushNotificationConfig{ID: c.ID, URL: c.URL, Token: c.Token}
	if a := c.Authentication; a != nil {
		out.Authentication = &PushNotificationAuthenticationInfo{Schemes: a.Schemes, Credentials: a.Credentials}
		if out.Authentication.Schemes == nil {
			out.Authentication.Schemes = []string{}
		}
	}
	return out
}

func (r *pjSendRequest) toKind() (*MessageSendParams, error) {
	msg := r.Message
	if msg == nil {
		msg = r.Request
	}
	m, err := msg.toKind("message")
	if err != nil {
		return nil, err
	}
	out := &MessageSendParams{Message: m, Metadata: r.Metadata}
	if c := r.Configuration; c != nil {
		out.Configuration = &MessageSendConfiguration{AcceptedOutputModes: c.AcceptedOutputModes, Blocking: c.Blocking,
			PushNotificationConfig: c.PushNotification.toKind()}
		if c.Blocking == nil {
			// ProtoJSON leaves a false bool out: a configuration without
			// "blocking" says blocking false (the v0.3 proto's field is a
			// plain bool), as the JS SDK's v0.3 REST client sends it.
			out.Configuration.Blocking = new(false)
		}
		if c.HistoryLength != nil {
			v := int32(*c.HistoryLength)
			out.Configuration.HistoryLength = &v
		}
	}
	return out, nil
}

// ---- JSON-RPC object form → ProtoJSON -----------------------------------

func partToPJ(p Part) pjPart {
	switch p.Kind {
	case KindText:
		return pjPart{Text: p.Text}
	case KindFile:
		if p.File == nil {
			return pjPart{File: &pjFilePart{}}
		}
		return pjPart{File: &pjFilePart{FileWithURI: p.File.URI, FileWithBytes: p.File.Bytes, MimeType: p.File.MimeType}}
	case KindData:
		return pjPart{Data: &pjDataPart{Data: p.Data}}
	}
	return pjPart{}
}

func partsToPJ(parts []Part) []pjPart {
	if len(parts) == 0 {
		return nil
	}
	out := make([]pjPart, len(parts))
	for i, p := range parts {
		out[i] = partToPJ(p)
	}
	return out
}

func messageToPJ(m *Message) *pjMessage {
	if m == nil {
		return nil
	}
	return &pjMessage{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: pjRole(kindRolesToPJ[m.Role]),
		Content: partsToPJ(m.Parts), Metadata: m.Metadata, Extensions: m.Extensions}
}

func statusToPJ(s TaskStatus) *pjTaskStatus {
	return &pjTaskStatus{State: pjState(kindStatesToPJ[s.State]), Message: messageToPJ(s.Message), Timestamp: s.Timestamp}
}

func artifactToPJ(a Artifact) pjArtifact {
	return pjArtifact{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: partsToPJ(a.Parts),
		Metadata: a.Metadata, Extensions: a.Extensions}
}

func taskToPJ(t *Task) *pjTask {
	out := &pjTask{ID: t.ID, ContextID: t.ContextID, Status: statusToPJ(t.Status), Metadata: t.Metadata}
	for _, a := range t.Artifacts {
		out.Artifacts = append(out.Artifacts, artifactToPJ(a))
	}
	for i := range t.History {
		out.History = append(out.History, *messageToPJ(&t.History[i]))
	}
	return out
}

// eventToPJ wraps an event of the JSON-RPC object form (EventFromV1) as a
// StreamResponse (a SendMessageResponse for a Task or Message).
func eventToPJ(v any) (*pjStreamResponse, error) {
	switch e := v.(type) {
	case *Task:
		return &pjStreamResponse{Task: taskToPJ(e)}, nil
	case *Message:
		return &pjStreamResponse{Message: messageToPJ(e)}, nil
	case *TaskStatusUpdateEvent:
		return &pjStreamResponse{StatusUpdate: &pjStatusUpdate{TaskID: e.TaskID, ContextID: e.ContextID,
			Status: statusToPJ(e.Status), Final: e.Final, Metadata: e.Metadata}}, nil
	case *TaskArtifactUpdateEvent:
		a := artifactToPJ(e.Artifact)
		return &pjStreamResponse{ArtifactUpdate: &pjArtifactUpdate{TaskID: e.TaskID, ContextID: e.ContextID,
			Artifact: &a, Append: e.Append, LastChunk: e.LastChunk, Metadata: e.Metadata}}, nil
	}
	return nil, fmt.Errorf("a2av03: a %T has no A2A v0.3 proto form", v)
}

// pushConfigName is the v0.3 proto resource name of a push config.
func pushConfigName(taskID, id string) string {
	return "tasks/" + taskID + "/pushNotificationConfigs/" + id
}

// parsePushConfigName splits a v0.3 proto push-config name
// ("tasks/{id}/pushNotificationConfigs/{configId}", configId optional);
// ok is false for another form.
func parsePushConfigName(name string) (taskID, id string, ok bool) {
	rest, ok := strings.CutPrefix(name, "tasks/")
	if !ok {
		return "", "", false
	}
	taskID, id, _ = strings.Cut(rest, "/pushNotificationConfigs")
	id = strings.TrimPrefix(id, "/")
	return taskID, id, taskID != "" && !strings.Contains(taskID, "/") && !strings.Contains(id, "/")
}

func pushConfigToPJ(c *TaskPushNotificationConfig) pjTaskPushConfig {
	p := c.PushNotificationConfig
	out := &pjPushConfig{ID: p.ID, URL: p.URL, Token: p.Token}
	if a := p.Authentication; a != nil {
		out.Authentication = &pjAuthenticationInfo{Schemes: a.Schemes, Credentials: a.Credentials}
	}
	return pjTaskPushConfig{Name: pushConfigName(c.TaskID, p.ID), PushNotificationConfig: out}
}

func pushConfigOnlyToPJ(c *PushNotificationConfig) *pjPushConfig {
	if c == nil {
		return nil
	}
	out := &pjPushConfig{ID: c.ID, URL: c.URL, Token: c.Token}
	if a := c.Authentication; a != nil {
		out.Authentication = &pjAuthenticationInfo{Schemes: a.Schemes, Credentials: a.Credentials}
	}
	return out
}

// sendParamsToPJ is a message:send body in ProtoJSON.
func sendParamsToPJ(p *MessageSendParams) *pjSendRequest {
	out := &pjSendRequest{Message: messageToPJ(p.Message), Metadata: p.Metadata}
	if c := p.Configuration; c != nil {
		out.Configuration = &pjSendConfiguration{AcceptedOutputModes: c.AcceptedOutputModes, Blocking: c.Blocking,
			PushNotification: pushConfigOnlyToPJ(c.PushNotificationConfig)}
		if c.HistoryLength != nil {
			v := pjInt32(*c.HistoryLength)
			out.Configuration.HistoryLength = &v
		}
	}
	return out
}

// hasKind reports whether raw is a JSON object with a top-level "kind"
// member: a result or event in the JSON-RPC object form.
func hasKind(raw json.RawMessage) bool {
	var head struct {
		Kind *string `json:"kind"`
	}
	return json.Unmarshal(raw, &head) == nil && head.Kind != nil
}

// eventAsKind is raw, a result or stream event of either form, in the
// JSON-RPC object form: as it is when it has a kind, else read as a
// ProtoJSON StreamResponse (or SendMessageResponse).
func eventAsKind(raw json.RawMessage, path string) (json.RawMessage, error) {
	if hasKind(raw) {
		return raw, nil
	}
	var pj pjStreamResponse
	if err := json.Unmarshal(raw, &pj); err != nil {
		return nil, invalid(path, "does not decode as an A2A v0.3 result: "+err.Error())
	}
	v, err := pj.toKind(path)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// taskAsKind is raw, a task of either form, in the JSON-RPC object form.
func taskAsKind(raw json.RawMessage, path string) (*Task, error) {
	if hasKind(raw) {
		var t Task
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, invalid(path, "does not decode as an A2A v0.3 task: "+err.Error())
		}
		return &t, nil
	}
	var pj pjTask
	if err := json.Unmarshal(raw, &pj); err != nil {
		return nil, invalid(path, "does not decode as an A2A v0.3 task: "+err.Error())
	}
	return pj.toKind(path)
}

// anyTaskPushConfig reads a push config answer of either form: the
// JSON-RPC {"taskId", "pushNotificationConfig"} or the ProtoJSON
// {"name", "pushNotificationConfig"}; taskID is the request's, for an
// answer that names none.
type anyTaskPushConfig struct {
	TaskID                 string                 `json:"taskId"`
	Name                   string                 `json:"name"`
	PushNotificationConfig PushNotificationConfig `json:"pushNotificationConfig"`
}

func (c *anyTaskPushConfig) taskPushConfig(taskID string) *TaskPushNotificationConfig {
	out := &TaskPushNotificationConfig{TaskID: c.TaskID, PushNotificationConfig: c.PushNotificationConfig}
	if t, id, ok := parsePushConfigName(c.Name); ok {
		if out.TaskID == "" {
			out.TaskID = t
		}
		if out.PushNotificationConfig.ID == "" {
			out.PushNotificationConfig.ID = id
		}
	}
	if out.TaskID == "" {
		out.TaskID = taskID
	}
	return out
}
