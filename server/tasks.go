package server

import (
	"context"
	"errors"
	"fmt"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// GetTask implements a2av1.A2AServiceHandler: the task with its history
// trimmed to historyLength (unset: all of it). With currentGeneration (A2A
// 1.1 long-poll) it answers once the task's generation exceeds that value,
// at once when it already does or the task is terminal, else when a write
// takes it there or the hold ends (WithLongPollHold), with the task as it
// is then.
func (s *Server) GetTask(ctx context.Context, req *a2av1.GetTaskRequest) (*a2av1.Task, error) {
	if req.HistoryLength != nil && *req.HistoryLength < 0 {
		return nil, negativeHistory("historyLength", *req.HistoryLength)
	}
	c, rec, err := s.beginTask(ctx, req.GetTenant(), req.GetId())
	if err != nil {
		return nil, err
	}
	if req.CurrentGeneration != nil {
		if rec, err = s.followers.awaitGeneration(c, rec, *req.CurrentGeneration); err != nil {
			return nil, err
		}
	}
	return view(rec.Task, req.HistoryLength, true), nil
}

// Page sizes of ListTasks (A2A §3.1.4: default 50, at most 100).
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
)

// listPageSize is the page size a ListTasks request asks for: DefaultPageSize
// when the field is absent (or 0 over gRPC, see ListTasks), else the value
// when it lies in 1..MaxPageSize.
func listPageSize(ctx context.Context, requested *int32) (int32, error) {
	if requested == nil {
		return DefaultPageSize, nil
	}
	size := *requested
	if size == 0 {
		if info, ok := runtime.CallInfoFromContext(ctx); !ok || info.Binding == runtime.BindingGRPC {
			return DefaultPageSize, nil
		}
	}
	if size < 1 || size > MaxPageSize {
		return 0, runtime.InvalidParams(fmt.Sprintf("pageSize must be between 1 and %d, got %d", MaxPageSize, size),
			runtime.FieldViolation{Field: "pageSize", Description: fmt.Sprintf("must be between 1 and %d; leave it out for the default of %d", MaxPageSize, DefaultPageSize)})
	}
	return size, nil
}

// ListTasks implements a2av1.A2AServiceHandler: the caller's tasks in the
// request's tenant, newest status update first, filtered by contextId,
// status and statusTimestampAfter (inclusive), in pages of pageSize
// (default 50, 1–100). Page tokens are positions in that order, so tasks
// created while a client pages never cause duplicates or gaps. Artifacts are
// included only with includeArtifacts; historyLength trims each history.
// With WithTaskOwner, a caller whose owner is empty (an anonymous caller
// under OwnerByCallerID) gets an empty page unless it names a contextId;
// with one, it gets the ownerless tasks of that context.
//
// An explicit pageSize of 0 is InvalidParams on JSON-RPC and HTTP+JSON (the
// proto gives the field presence and a minimum of 1), and "unset" on gRPC
// only: the official Go SDK's gRPC client (v2.3.1) always sends the field, 0
// when its caller chose none, and refusing it would make ListTasks unusable
// from that client (docs/bindings.md, ListTasks page size). Negative sizes
// and sizes above MaxPageSize are InvalidParams on every binding.
func (s *Server) ListTasks(ctx context.Context, req *a2av1.ListTasksRequest) (*a2av1.ListTasksResponse, error) {
	size, err := listPageSize(ctx, req.PageSize)
	if err != nil {
		return nil, err
	}
	if req.HistoryLength != nil && *req.HistoryLength < 0 {
		return nil, negativeHistory("historyLength", *req.HistoryLength)
	}
	q, err := listQuery(req, size)
	if err != nil {
		return nil, err
	}
	cv, err := s.begin(ctx, req.GetTenant())
	if err != nil {
		return nil, err
	}
	c := &cv
	q.Owner = c.owner
	if s.owner != nil && c.owner == "" && q.ContextID == "" {
		// Under an owner policy, tasks without an owner (created by
		// anonymous callers) are listed only by their context id: no
		// anonymous caller sees the tasks of another (see WithTaskOwner).
		return &a2av1.ListTasksResponse{Tasks: []*a2av1.Task{}, PageSize: size}, nil
	}
	release, err := s.listings.hold(c.ctx, c.streamIdentity(s.followers.owned))
	if err != nil {
		return nil, err
	}
	if !runtime.AfterResponse(c.ctx, release) {
		defer release()
	}
	page, err := s.store.ListTasks(c.ctx, c.tenant, q)
	if err != nil {
		return nil, internalError("listing tasks", err)
	}
	resp := &a2av1.ListTasksResponse{
		Tasks:     make([]*a2av1.Task, len(page.Records)),
		PageSize:  size,
		TotalSize: int32(page.Total),
	}
	for i, rec := range page.Records {
		resp.Tasks[i] = view(rec.Task, req.HistoryLength, req.GetIncludeArtifacts())
	}
	if page.More && len(page.Records) > 0 {
		resp.NextPageToken = encodeTaskCursor(store.CursorOf(page.Records[len(page.Records)-1].Task))
	}
	return resp, nil
}

// listQuery is the store query of a ListTasks request (its owner aside),
// with pages of size tasks; a filter or page token the request gets wrong
// is InvalidParams.
func listQuery(req *a2av1.ListTasksRequest, size int32) (store.Query, error) {
	if err := checkID("contextId", req.GetContextId()); err != nil {
		return store.Query{}, err
	}
	q := store.Query{ContextID: req.GetContextId(), State: req.GetStatus(), Limit: int(size)}
	if ts := req.GetStatusTimestampAfter(); ts != nil {
		if err := ts.CheckValid(); err != nil {
			return store.Query{}, runtime.InvalidParams("statusTimestampAfter is not a valid timestamp",
				runtime.FieldViolation{Field: "statusTimestampAfter", Description: err.Error()})
		}
		q.UpdatedAfter = ts.AsTime()
	}
	if tok := req.GetPageToken(); tok != "" {
		cur, err := decodeTaskCursor(tok)
		if err != nil {
			return store.Query{}, runtime.InvalidParams("pageToken is not a token this server issued; start again without one",
				runtime.FieldViolation{Field: "pageToken", Description: err.Error()})
		}
		q.After = &cur
	}
	return q, nil
}

// beginTask begins a call about the task id (checked first) and reads the
// task, which must be the caller's.
func (s *Server) beginTask(ctx context.Context, tenant, id string) (*call, store.Record, error) {
	if err := checkID("id", id); err != nil {
		return nil, store.Record{}, err
	}
	cv, err := s.begin(ctx, tenant)
	if err != nil {
		return nil, store.Record{}, err
	}
	c := &cv
	rec, err := s.load(c, id)
	if err != nil {
		return nil, store.Record{}, err
	}
	return c, rec, nil
}

// CancelTask implements a2av1.A2AServiceHandler. A task that is not terminal
// is recorded as CANCELED (every subscriber sees it) and its running
// execution, if any, has its context canceled. Canceling a CANCELED task
// returns it unchanged; other terminal tasks give TaskNotCancelable. An
// executor implementing Canceler may refuse.
func (s *Server) CancelTask(ctx context.Context, req *a2av1.CancelTaskRequest) (*a2av1.Task, error) {
	c, rec, err := s.beginTask(ctx, req.GetTenant(), req.GetId())
	if err != nil {
		return nil, err
	}
	key := c.key(req.GetId())
	if done, err := cancelOutcome(rec.Task); done {
		return rec.Task, err
	}
	if cn, ok := s.exec.(Canceler); ok {
		if err := cn.Cancel(c.ctx, rec.Task); err != nil {
			var e *runtime.Error
			if errors.As(err, &e) {
				return nil, e
			}
			return nil, runtime.TaskNotCancelable(key.id).WithCause(err)
		}
	}
	held := s.writer.lock(key)
	elsewhere := ""
	if s.execs.runningElsewhere(rec) {
		elsewhere = rec.Runner
	}
	rec, err = s.writer.commit(c.ctx, key, rec, setStatus(a2av1.TaskState_TASK_STATE_CANCELED, nil), false)
	r := s.execs.runOf(key)
	held.Unlock()
	if errors.Is(err, store.ErrTerminal) {
		if rec, err = s.load(c, key.id); err != nil {
			return nil, err
		}
		_, err = cancelOutcome(rec.Task)
		return rec.Task, err
	}
	if err != nil {
		return nil, internalError("canceling the task", err)
	}
	if r != nil {
		r.cancel(ErrCanceled)
	} else if elsewhere != "" {
		s.execs.signal(c.ctx, elsewhere, store.Signal{Kind: store.SignalCancel, Tenant: key.tenant, TaskID: key.id})
	}
	return rec.Task, nil
}

// cancelOutcome decides a cancel of a task that is already terminal: a
// CANCELED task is returned as is, others are TaskNotCancelable.
func cancelOutcome(t *a2av1.Task) (done bool, err error) {
	switch st := t.GetStatus().GetState(); {
	case st == a2av1.TaskState_TASK_STATE_CANCELED:
		return true, nil
	case store.IsTerminal(st):
		return true, runtime.TaskNotCancelable(t.GetId())
	}
	return false, nil
}

// SubscribeToTask implements a2av1.A2AServiceHandler: the current task
// first, then its updates as they happen, until a terminal state or
// INPUT_REQUIRED (a task already waiting for input can be subscribed to; its
// stream ends at the next such state). Terminal tasks give
// UnsupportedOperation. A call of A2A 1.1 or later with Last-Event-ID (gRPC:
// a2a-last-event-id) resumes a stream instead (resume.go).
func (s *Server) SubscribeToTask(ctx context.Context, req *a2av1.SubscribeToTaskRequest, stream runtime.Stream[*a2av1.StreamResponse]) error {
	if !s.streaming {
		return errNoStreaming()
	}
	if err := checkID("id", req.GetId()); err != nil {
		return err
	}
	cv, err := s.begin(ctx, req.GetTenant())
	if err != nil {
		return err
	}
	c := &cv
	after, resuming, err := resumeAfter(c.ctx)
	if err != nil {
		return err
	}
	release, err := s.followers.holdStream(c)
	if err != nil {
		return err
	}
	defer release()
	rec, sub, err := s.store.Subscribe(s.followers.budgeted(c.ctx), c.tenant, req.GetId(), store.FollowEvents)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return runtime.TaskNotFound(req.GetId())
	case err != nil:
		return internalError("subscribing to the task", err)
	case rec.Owner != c.owner:
		sub.Close()
		return runtime.TaskNotFound(req.GetId())
	case resuming:
		return s.followers.resume(c, stream, rec, sub, after)
	case store.IsTerminal(rec.Task.GetStatus().GetState()):
		sub.Close()
		return runtime.UnsupportedOperation(fmt.Sprintf("task %q is %s; there is nothing left to subscribe to (use GetTask)",
			req.GetId(), rec.Task.GetStatus().GetState())).WithMetadata("taskId", req.GetId())
	}
	return s.followers.relay(c, stream, rec.Task, rec.Version, sub)
}
