package testagent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// Agent implements a2av1.A2AServiceHandler in memory. The zero value is not
// usable; call New.
type Agent struct {
	// SendLiveMessage (A2A 1.1 draft, gRPC only) is left out: it answers
	// UnsupportedOperation.
	a2av1.UnimplementedA2AServiceHandler

	// ExtendedCard is returned by GetExtendedAgentCard; nil means
	// ExtendedAgentCardNotConfigured.
	ExtendedCard *a2av1.AgentCard

	mu      sync.Mutex
	seq     int
	tasks   map[string]*a2av1.Task                                  // tenant/id → task
	order   []string                                                // keys in creation order
	configs map[string]map[string]*a2av1.TaskPushNotificationConfig // tenant/taskID → id → config
}

var _ a2av1.A2AServiceHandler = (*Agent)(nil)

// New returns an empty agent.
func New() *Agent {
	return &Agent{
		tasks:   make(map[string]*a2av1.Task),
		configs: make(map[string]map[string]*a2av1.TaskPushNotificationConfig),
	}
}

func tenantOf(ctx context.Context) string {
	if info, ok := runtime.CallInfoFromContext(ctx); ok {
		return info.Tenant
	}
	return ""
}

func key(ctx context.Context, id string) string { return tenantOf(ctx) + "/" + id }

func textOf(m *a2av1.Message) string {
	var b strings.Builder
	for _, p := range m.GetParts() {
		b.WriteString(p.GetText())
	}
	return strings.TrimSpace(b.String())
}

func textPart(s string) *a2av1.Part {
	return &a2av1.Part{Content: &a2av1.Part_Text{Text: s}}
}

// run creates or continues a task for the message and returns it (a clone)
// or a direct reply.
func (a *Agent) run(ctx context.Context, req *a2av1.SendMessageRequest) (*a2av1.SendMessageResponse, error) {
	msg := req.GetMessage()
	text := textOf(msg)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	if text == "message" && msg.GetTaskId() == "" {
		ctxID := msg.GetContextId()
		if ctxID == "" {
			ctxID = fmt.Sprintf("ctx-%d", a.seq)
		}
		reply := &a2av1.Message{MessageId: fmt.Sprintf("msg-%d", a.seq), ContextId: ctxID,
			Role: a2av1.Role_ROLE_AGENT, Parts: []*a2av1.Part{textPart("Echo: " + text)}}
		return &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Message{Message: reply}}, nil
	}
	var task *a2av1.Task
	if id := msg.GetTaskId(); id != "" {
		task = a.tasks[key(ctx, id)]
		if task == nil {
			return nil, runtime.TaskNotFound(id)
		}
		if store.IsTerminal(task.GetStatus().GetState()) {
			return nil, runtime.UnsupportedOperation(fmt.Sprintf("task %q is in a terminal state", id))
		}
		if c := msg.GetContextId(); c != "" && c != task.GetContextId() {
			return nil, runtime.InvalidParams("message.contextId does not match the task's context",
				runtime.FieldViolation{Field: "message.contextId", Description: "does not match task " + id})
		}
	} else {
		ctxID := msg.GetContextId()
		if ctxID == "" {
			ctxID = fmt.Sprintf("ctx-%d", a.seq)
		}
		task = &a2av1.Task{Id: fmt.Sprintf("task-%d", a.seq), ContextId: ctxID}
		k := key(ctx, task.Id)
		a.tasks[k] = task
		a.order = append(a.order, k)
	}
	task.History = append(task.History, msg)
	if text == "input" {
		task.Status = &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, Timestamp: timestamppb.Now(),
			Message: &a2av1.Message{MessageId: fmt.Sprintf("status-%d", a.seq), TaskId: task.Id, ContextId: task.ContextId,
				Role: a2av1.Role_ROLE_AGENT, Parts: []*a2av1.Part{textPart("more input, please")}}}
	} else {
		task.Artifacts = append(task.Artifacts, &a2av1.Artifact{ArtifactId: fmt.Sprintf("artifact-%d", a.seq),
			Parts: []*a2av1.Part{textPart("Echo: " + text)}})
		task.Status = &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED, Timestamp: timestamppb.Now()}
	}
	out := proto.Clone(task).(*a2av1.Task)
	if cfg := req.GetConfiguration(); cfg != nil {
		applyHistoryLength(out, cfg.HistoryLength)
	}
	return &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: out}}, nil
}

func applyHistoryLength(t *a2av1.Task, n *int32) {
	if n == nil {
		return
	}
	if *n <= 0 {
		t.History = nil
		return
	}
	if len(t.History) > int(*n) {
		t.History = t.History[len(t.History)-int(*n):]
	}
}

// SendMessage creates or continues a task, or replies directly.
func (a *Agent) SendMessage(ctx context.Context, req *a2av1.SendMessageRequest) (*a2av1.SendMessageResponse, error) {
	return a.run(ctx, req)
}

// SendStreamingMessage streams the task, a WORKING update, the artifact and
// the final state.
func (a *Agent) SendStreamingMessage(ctx context.Context, req *a2av1.SendMessageRequest, stream runtime.Stream[*a2av1.StreamResponse]) error {
	resp, err := a.run(ctx, req)
	if err != nil {
		return err
	}
	if m := resp.GetMessage(); m != nil {
		return stream.Send(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Message{Message: m}})
	}
	task := resp.GetTask()
	first := proto.Clone(task).(*a2av1.Task)
	first.Artifacts = nil
	first.Status = &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_SUBMITTED, Timestamp: task.GetStatus().GetTimestamp()}
	events := []*a2av1.StreamResponse{
		{Payload: &a2av1.StreamResponse_Task{Task: first}},
		{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{TaskId: task.Id, ContextId: task.ContextId,
			Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Timestamp: timestamppb.Now()}}}},
	}
	for _, art := range task.GetArtifacts() {
		events = append(events, &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{
			TaskId: task.Id, ContextId: task.ContextId, Artifact: art, LastChunk: true}}})
	}
	events = append(events, &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
		TaskId: task.Id, ContextId: task.ContextId, Status: task.Status}}})
	for _, ev := range events {
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
	return nil
}

// GetTask returns a stored task.
func (a *Agent) GetTask(ctx context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.tasks[key(ctx, req.GetId())]
	if t == nil {
		return nil, runtime.TaskNotFound(req.GetId())
	}
	out := proto.Clone(t).(*a2av1.Task)
	applyHistoryLength(out, req.HistoryLength)
	return out, nil
}

// ListTasks lists the caller tenant's tasks, newest first, in one page.
func (a *Agent) ListTasks(ctx context.Context, req *a2av1.ListTasksRequest) (*a2av1.ListTasksResponse, error) {
	size := int32(50)
	if req.PageSize != nil {
		size = req.GetPageSize()
		if size < 1 || size > 100 {
			return nil, runtime.InvalidParams("pageSize must be between 1 and 100",
				runtime.FieldViolation{Field: "pageSize", Description: "must be between 1 and 100"})
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	prefix := tenantOf(ctx) + "/"
	resp := &a2av1.ListTasksResponse{PageSize: size}
	for _, k := range slices.Backward(a.order) {
		t := a.tasks[k]
		if !strings.HasPrefix(k, prefix) ||
			(req.GetContextId() != "" && t.GetContextId() != req.GetContextId()) ||
			(req.GetStatus() != a2av1.TaskState_TASK_STATE_UNSPECIFIED && t.GetStatus().GetState() != req.GetStatus()) {
			continue
		}
		resp.TotalSize++
		if int32(len(resp.Tasks)) < size {
			out := proto.Clone(t).(*a2av1.Task)
			if !req.GetIncludeArtifacts() {
				out.Artifacts = nil
			}
			applyHistoryLength(out, req.HistoryLength)
			resp.Tasks = append(resp.Tasks, out)
		}
	}
	return resp, nil
}

// CancelTask cancels a task that is not in a terminal state.
func (a *Agent) CancelTask(ctx context.Context, req *a2av1.CancelTaskRequest) (*a2av1.Task, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.tasks[key(ctx, req.GetId())]
	switch {
	case t == nil:
		return nil, runtime.TaskNotFound(req.GetId())
	case t.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_CANCELED:
	case store.IsTerminal(t.GetStatus().GetState()):
		return nil, runtime.TaskNotCancelable(req.GetId())
	default:
		t.Status = &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_CANCELED, Timestamp: timestamppb.Now()}
	}
	return proto.Clone(t).(*a2av1.Task), nil
}

// SubscribeToTask sends the current snapshot of a non-terminal task. Nothing
// runs in the background here, so the stream ends after the snapshot.
func (a *Agent) SubscribeToTask(ctx context.Context, req *a2av1.SubscribeToTaskRequest, stream runtime.Stream[*a2av1.StreamResponse]) error {
	a.mu.Lock()
	t := a.tasks[key(ctx, req.GetId())]
	var snap *a2av1.Task
	if t != nil {
		snap = proto.Clone(t).(*a2av1.Task)
	}
	a.mu.Unlock()
	switch {
	case snap == nil:
		return runtime.TaskNotFound(req.GetId())
	case store.IsTerminal(snap.GetStatus().GetState()):
		return runtime.UnsupportedOperation(fmt.Sprintf("task %q is in a terminal state", req.GetId()))
	}
	return stream.Send(&a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: snap}})
}

func (a *Agent) taskExists(ctx context.Context, id string) bool {
	_, ok := a.tasks[key(ctx, id)]
	return ok
}

// CreateTaskPushNotificationConfig stores a config (id generated when empty).
func (a *Agent) CreateTaskPushNotificationConfig(ctx context.Context, req *a2av1.TaskPushNotificationConfig) (*a2av1.TaskPushNotificationConfig, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.taskExists(ctx, req.GetTaskId()) {
		return nil, runtime.TaskNotFound(req.GetTaskId())
	}
	cfg := proto.Clone(req).(*a2av1.TaskPushNotificationConfig)
	if cfg.Id == "" {
		a.seq++
		cfg.Id = fmt.Sprintf("push-%d", a.seq)
	}
	k := key(ctx, req.GetTaskId())
	if a.configs[k] == nil {
		a.configs[k] = make(map[string]*a2av1.TaskPushNotificationConfig)
	}
	a.configs[k][cfg.Id] = cfg
	return proto.Clone(cfg).(*a2av1.TaskPushNotificationConfig), nil
}

// GetTaskPushNotificationConfig returns one config; a missing one is TaskNotFound.
func (a *Agent) GetTaskPushNotificationConfig(ctx context.Context, req *a2av1.GetTaskPushNotificationConfigRequest) (*a2av1.TaskPushNotificationConfig, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cfg := a.configs[key(ctx, req.GetTaskId())][req.GetId()]
	if cfg == nil {
		return nil, runtime.TaskNotFound(req.GetTaskId()).WithMetadata("configId", req.GetId())
	}
	return proto.Clone(cfg).(*a2av1.TaskPushNotificationConfig), nil
}

// ListTaskPushNotificationConfigs lists a task's configs, sorted by id.
func (a *Agent) ListTaskPushNotificationConfigs(ctx context.Context, req *a2av1.ListTaskPushNotificationConfigsRequest) (*a2av1.ListTaskPushNotificationConfigsResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.taskExists(ctx, req.GetTaskId()) {
		return nil, runtime.TaskNotFound(req.GetTaskId())
	}
	resp := &a2av1.ListTaskPushNotificationConfigsResponse{}
	m := a.configs[key(ctx, req.GetTaskId())]
	for _, id := range slices.Sorted(maps.Keys(m)) {
		resp.Configs = append(resp.Configs, proto.Clone(m[id]).(*a2av1.TaskPushNotificationConfig))
	}
	return resp, nil
}

// GetExtendedAgentCard returns ExtendedCard.
func (a *Agent) GetExtendedAgentCard(ctx context.Context, req *a2av1.GetExtendedAgentCardRequest) (*a2av1.AgentCard, error) {
	if a.ExtendedCard == nil {
		return nil, runtime.ExtendedAgentCardNotConfigured()
	}
	return a.ExtendedCard, nil
}

// DeleteTaskPushNotificationConfig removes a config; deleting twice succeeds.
func (a *Agent) DeleteTaskPushNotificationConfig(ctx context.Context, req *a2av1.DeleteTaskPushNotificationConfigRequest) (*emptypb.Empty, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.taskExists(ctx, req.GetTaskId()) {
		return nil, runtime.TaskNotFound(req.GetTaskId())
	}
	delete(a.configs[key(ctx, req.GetTaskId())], req.GetId())
	return &emptypb.Empty{}, nil
}
