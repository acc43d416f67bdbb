package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// Page size of ListTaskPushNotificationConfigs when the request gives none,
// and its maximum (larger requests are served this many).
const (
	DefaultPushConfigPageSize = 100
	MaxPushConfigPageSize     = 100
)

// pushGate answers PushNotificationNotSupported when the card does not
// declare push notifications, refuses a task or config id no store can hold
// (configID: "" when the call names none), then resolves the caller and the
// task.
func (s *Server) pushGate(ctx context.Context, tenant, taskID, configID string) (*call, error) {
	if !s.pushEnabled {
		return nil, runtime.PushNotificationNotSupported()
	}
	if taskID == "" {
		return nil, runtime.InvalidParams("taskId is required", runtime.FieldViolation{Field: "taskId", Description: "required"})
	}
	if err := checkID("taskId", taskID); err != nil {
		return nil, err
	}
	if err := checkID("id", configID); err != nil {
		return nil, err
	}
	c, err := s.begin(ctx, tenant)
	if err != nil {
		return nil, err
	}
	if _, err := s.load(&c, taskID); err != nil {
		return nil, err
	}
	return &c, nil
}

// CreateTaskPushNotificationConfig implements a2av1.A2AServiceHandler. The
// client's id is kept (an existing config with that id is replaced), an empty
// one is generated. The url must be an absolute http(s) URL; with the
// sender's SSRF guard on, literal private addresses and localhost are refused
// here already. Events from now on are posted to it, in the form of the
// protocol version the request came in (store.PushConfig.ProtocolVersion,
// store.TaskPayload: a config set through A2A v0.3 is posted the task). The
// answer is the stored config redacted like Get's (see redacted): setting a
// config again with the same id is how a client rotates its token or
// credentials.
func (s *Server) CreateTaskPushNotificationConfig(ctx context.Context, req *a2av1.TaskPushNotificationConfig) (*a2av1.TaskPushNotificationConfig, error) {
	c, err := s.pushGate(ctx, req.GetTenant(), req.GetTaskId(), req.GetId())
	if err != nil {
		return nil, err
	}
	if err := s.push.CheckURL(req.GetUrl()); err != nil {
		return nil, runtime.InvalidParams(err.Error(), runtime.FieldViolation{Field: "url", Description: err.Error()})
	}
	cfg := proto.CloneOf(req) // the caller's request is left as it was sent
	if cfg.GetId() == "" {
		cfg.Id = newID()
	}
	key := c.key(req.GetTaskId())
	// Under the task's lock, so that no event of the task is committed
	// between the config being stored and being visible to notifications.
	held := s.writer.lock(key)
	err = s.savePushConfig(c.ctx, c.tenant, store.PushConfig{TaskPushNotificationConfig: cfg, ProtocolVersion: c.protocolVersion()})
	held.Unlock()
	var re *runtime.Error
	if errors.As(err, &re) {
		return nil, re
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, runtime.TaskNotFound(req.GetTaskId())
	case err != nil:
		return nil, internalError("saving the push notification config", err)
	}
	return redacted(cfg), nil
}

// GetTaskPushNotificationConfig implements a2av1.A2AServiceHandler. An
// unknown task or config is TaskNotFound (A2A §3.1.8). The token and
// authentication.credentials are never answered (see redacted).
func (s *Server) GetTaskPushNotificationConfig(ctx context.Context, req *a2av1.GetTaskPushNotificationConfigRequest) (*a2av1.TaskPushNotificationConfig, error) {
	c, err := s.pushGate(ctx, req.GetTenant(), req.GetTaskId(), req.GetId())
	if err != nil {
		return nil, err
	}
	cfg, err := s.store.PushConfig(c.ctx, c.tenant, req.GetTaskId(), req.GetId())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, runtime.NewError(runtime.CodeTaskNotFound,
			fmt.Sprintf("task %q has no push notification config %q", req.GetTaskId(), req.GetId())).
			WithMetadata("taskId", req.GetTaskId()).WithMetadata("configId", req.GetId())
	case err != nil:
		return nil, internalError("reading the push notification config", err)
	}
	return redacted(cfg.TaskPushNotificationConfig), nil
}

// ListTaskPushNotificationConfigs implements a2av1.A2AServiceHandler: the
// task's configs ordered by id, pageSize at a time (0: 100; at most 100).
func (s *Server) ListTaskPushNotificationConfigs(ctx context.Context, req *a2av1.ListTaskPushNotificationConfigsRequest) (*a2av1.ListTaskPushNotificationConfigsResponse, error) {
	size := int(req.GetPageSize())
	switch {
	case size < 0:
		return nil, runtime.InvalidParams(fmt.Sprintf("pageSize must not be negative, got %d", size),
			runtime.FieldViolation{Field: "pageSize", Description: "must be >= 0"})
	case size == 0:
		size = DefaultPushConfigPageSize
	case size > MaxPushConfigPageSize:
		size = MaxPushConfigPageSize
	}
	after := ""
	if tok := req.GetPageToken(); tok != "" {
		var err error
		if after, err = decodeConfigCursor(tok); err != nil {
			return nil, runtime.InvalidParams("pageToken is not a token this server issued; start again without one",
				runtime.FieldViolation{Field: "pageToken", Description: err.Error()})
		}
	}
	c, err := s.pushGate(ctx, req.GetTenant(), req.GetTaskId(), "")
	if err != nil {
		return nil, err
	}
	cfgs, more, err := s.store.ListPushConfigs(c.ctx, c.tenant, req.GetTaskId(), after, size)
	if err != nil {
		return nil, internalError("listing push notification configs", err)
	}
	resp := &a2av1.ListTaskPushNotificationConfigsResponse{Configs: make([]*a2av1.TaskPushNotificationConfig, len(cfgs))}
	for i, cfg := range cfgs {
		resp.Configs[i] = redacted(cfg.TaskPushNotificationConfig)
	}
	if more && len(cfgs) > 0 {
		resp.NextPageToken = encodeConfigCursor(cfgs[len(cfgs)-1].GetId())
	}
	return resp, nil
}

// redacted returns a copy of cfg without its secrets: the token and
// authentication.credentials are left empty, the scheme, url and ids are
// kept. Create, Get and List answer it, so a webhook's credentials are
// written once and never read back (a response may end up in a log, a
// proxy or another caller's hands); the stored config keeps them for
// delivery. A client rotates them by creating the config again with the
// same id, which replaces it (or by deleting it and creating a new one).
//
// It copies the whole message and clears the two secrets, so that fields a
// later version of the proto adds are answered too.
func redacted(cfg *a2av1.TaskPushNotificationConfig) *a2av1.TaskPushNotificationConfig {
	out := proto.CloneOf(cfg)
	out.Token = ""
	if a := out.GetAuthentication(); a != nil {
		a.Credentials = ""
	}
	return out
}

// DeleteTaskPushNotificationConfig implements a2av1.A2AServiceHandler.
// Deleting a config that does not exist succeeds (idempotent); an unknown
// task is TaskNotFound. Events written from now on are not delivered to
// it; notifications of earlier events still are.
func (s *Server) DeleteTaskPushNotificationConfig(ctx context.Context, req *a2av1.DeleteTaskPushNotificationConfigRequest) (*emptypb.Empty, error) {
	c, err := s.pushGate(ctx, req.GetTenant(), req.GetTaskId(), req.GetId())
	if err != nil {
		return nil, err
	}
	key := c.key(req.GetTaskId())
	held := s.writer.lock(key)
	err = s.store.DeletePushConfig(c.ctx, c.tenant, req.GetTaskId(), req.GetId())
	held.Unlock()
	if err != nil {
		return nil, internalError("deleting the push notification config", err)
	}
	return &emptypb.Empty{}, nil
}

// savePushConfig stores cfg if the task has room for it under
// WithMaxPushConfigsPerTask (a config replacing one with its id always
// has); the caller holds the task's lock. A refusal is a *runtime.Error.
func (s *Server) savePushConfig(ctx context.Context, tenant string, cfg store.PushConfig) error {
	if max := s.maxPushConfigs; max > 0 {
		existing, _, err := s.store.ListPushConfigs(ctx, tenant, cfg.GetTaskId(), "", max)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if len(existing) >= max && !slices.ContainsFunc(existing, func(c store.PushConfig) bool { return c.GetId() == cfg.GetId() }) {
			return runtime.NewError(runtime.CodeInvalidRequest, fmt.Sprintf(
				"task %q already has %d push notification configs, the most it may have (MaxPushConfigsPerTask); delete one or replace one under its id", cfg.GetTaskId(), max)).
				WithMetadata("limit", "MaxPushConfigsPerTask").WithMetadata("limitValue", strconv.Itoa(max))
		}
	}
	return s.store.SavePushConfig(ctx, tenant, cfg)
}
