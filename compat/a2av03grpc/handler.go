package a2av03grpc

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Register serves a2a.v1.A2AService (A2A v0.3 over gRPC) on r from h, the
// handler that serves lf.a2a.v1.A2AService: one Executor and one store for
// both versions. opts are those of a2av1.RegisterA2AServiceGRPC (the same
// interceptors, authentication and limits apply); the interface serves
// protocol version 0.3 unless an option says otherwise.
//
// CreateTaskPushNotificationConfig's config_id, which the v0.3 proto marks
// REQUIRED, may be absent (ConfigIDOptional): the config's own id is used,
// else the server picks one, as on v1.0. The official Go SDK's v0.3 gRPC
// client sends none for a config without id.
func Register(r grpc.ServiceRegistrar, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) {
	runtime.RegisterGRPC(r, NewService(h), opts...)
}

// ConfigIDOptional is the REQUIRED field of the v0.3 proto that the v0.3
// gRPC service accepts absent (strict in what it emits, liberal in what it
// accepts).
const ConfigIDOptional protoreflect.FullName = "a2a.v1.CreateTaskPushNotificationConfigRequest.config_id"

// NewService returns the runtime service that Register serves: the v0.3
// service over NewHandler(h), not requiring ConfigIDOptional.
func NewService(h a2av1.A2AServiceHandler) *runtime.Service {
	return a2av03pb.NewA2AServiceRuntime(NewHandler(h)).Accepting(ConfigIDOptional)
}

// NewHandler returns the v0.3 handler over h: every request is converted to
// v1.0, served by h, and the answer converted back.
func NewHandler(h a2av1.A2AServiceHandler) a2av03pb.A2AServiceHandler { return handler{h: h} }

type handler struct{ h a2av1.A2AServiceHandler }

var _ a2av03pb.A2AServiceHandler = handler{}

// stream sends v1.0 events to a v0.3 stream.
type stream struct {
	out runtime.Stream[*a2av03pb.StreamResponse]
}

func (s stream) Send(e *a2av1.StreamResponse) error { return s.out.Send(StreamResponseFromV1(e)) }

// serve converts a v0.3 request to v1.0, serves it in the call's tenant
// with call and converts the answer back.
func serve[Q, R proto.Message, A, B any](ctx context.Context, req Q, toV1 func(Q) (R, error), call func(context.Context, R) (A, error), fromV1 func(A) B) (B, error) {
	var zero B
	r, err := toV1(req)
	if err != nil {
		return zero, err
	}
	inTenant(ctx, r)
	a, err := call(ctx, r)
	if err != nil {
		return zero, err
	}
	return fromV1(a), nil
}

// serveStream is serve for a streaming call: the v1.0 events are sent to
// out in their v0.3 form.
func serveStream[Q, R proto.Message](ctx context.Context, req Q, toV1 func(Q) (R, error), call func(context.Context, R, runtime.Stream[*a2av1.StreamResponse]) error, out runtime.Stream[*a2av03pb.StreamResponse]) error {
	r, err := toV1(req)
	if err != nil {
		return err
	}
	inTenant(ctx, r)
	return call(ctx, r, stream{out})
}

// sendRequestToV1 is SendRequestToV1 with the v1.0 request's requirements
// checked (v0.3's proto leaves them to the server).
func sendRequestToV1(req *a2av03pb.SendMessageRequest) (*a2av1.SendMessageRequest, error) {
	r := SendRequestToV1(req)
	return r, checkV1(r, "")
}

// createPushConfigRequestToV1 is CreatePushConfigRequestToV1 with the v1.0
// request's requirements checked, named as v0.3 names the fields.
func createPushConfigRequestToV1(req *a2av03pb.CreateTaskPushNotificationConfigRequest) (*a2av1.TaskPushNotificationConfig, error) {
	r, err := CreatePushConfigRequestToV1(req)
	if err != nil {
		return nil, err
	}
	return r, checkV1(r, "config.pushNotificationConfig.")
}

// asIs is the answer unconverted, where v0.3 and v1.0 share its type.
func asIs[T any](v T) T { return v }

func (h handler) SendMessage(ctx context.Context, req *a2av03pb.SendMessageRequest) (*a2av03pb.SendMessageResponse, error) {
	return serve(ctx, req, sendRequestToV1, h.h.SendMessage, SendResponseFromV1)
}

func (h handler) SendStreamingMessage(ctx context.Context, req *a2av03pb.SendMessageRequest, out runtime.Stream[*a2av03pb.StreamResponse]) error {
	return serveStream(ctx, req, sendRequestToV1, h.h.SendStreamingMessage, out)
}

func (h handler) GetTask(ctx context.Context, req *a2av03pb.GetTaskRequest) (*a2av03pb.Task, error) {
	return serve(ctx, req, GetTaskRequestToV1, h.h.GetTask, TaskFromV1)
}

func (h handler) CancelTask(ctx context.Context, req *a2av03pb.CancelTaskRequest) (*a2av03pb.Task, error) {
	return serve(ctx, req, CancelTaskRequestToV1, h.h.CancelTask, TaskFromV1)
}

func (h handler) TaskSubscription(ctx context.Context, req *a2av03pb.TaskSubscriptionRequest, out runtime.Stream[*a2av03pb.StreamResponse]) error {
	return serveStream(ctx, req, SubscribeRequestToV1, h.h.SubscribeToTask, out)
}

func (h handler) CreateTaskPushNotificationConfig(ctx context.Context, req *a2av03pb.CreateTaskPushNotificationConfigRequest) (*a2av03pb.TaskPushNotificationConfig, error) {
	return serve(ctx, req, createPushConfigRequestToV1, h.h.CreateTaskPushNotificationConfig, TaskPushConfigFromV1)
}

func (h handler) GetTaskPushNotificationConfig(ctx context.Context, req *a2av03pb.GetTaskPushNotificationConfigRequest) (*a2av03pb.TaskPushNotificationConfig, error) {
	return serve(ctx, req, GetPushConfigRequestToV1, h.h.GetTaskPushNotificationConfig, TaskPushConfigFromV1)
}

func (h handler) ListTaskPushNotificationConfig(ctx context.Context, req *a2av03pb.ListTaskPushNotificationConfigRequest) (*a2av03pb.ListTaskPushNotificationConfigResponse, error) {
	return serve(ctx, req, ListPushConfigsRequestToV1, h.h.ListTaskPushNotificationConfigs, ListPushConfigsResponseFromV1)
}

// GetAgentCard answers with the extended card in its v0.3 form (v0.3's
// gRPC GetAgentCard is the authenticated card; the public one is at the
// well-known URL).
func (h handler) GetAgentCard(ctx context.Context, req *a2av03pb.GetAgentCardRequest) (*a2av03pb.AgentCard, error) {
	toV1 := func(*a2av03pb.GetAgentCardRequest) (*a2av1.GetExtendedAgentCardRequest, error) {
		return &a2av1.GetExtendedAgentCardRequest{}, nil
	}
	return serve(ctx, req, toV1, h.h.GetExtendedAgentCard, CardFromV1)
}

func (h handler) DeleteTaskPushNotificationConfig(ctx context.Context, req *a2av03pb.DeleteTaskPushNotificationConfigRequest) (*emptypb.Empty, error) {
	return serve(ctx, req, DeletePushConfigRequestToV1, h.h.DeleteTaskPushNotificationConfig, asIs[*emptypb.Empty])
}

// inTenant puts the tenant of the call (runtime.CallInfo.Tenant: the
// interface's, runtime.WithTenant) in r, the v1.0 form of a v0.3 request.
// v0.3 has no tenants, so on an interface with a tenant a v0.3 request is
// served in that tenant, as on the JSON v0.3 layer, where the runtime fills
// the converted request's tenant in.
func inTenant(ctx context.Context, r proto.Message) {
	info, ok := runtime.CallInfoFromContext(ctx)
	if !ok || info.Tenant == "" {
		return
	}
	rm := r.ProtoReflect()
	if fd := rm.Descriptor().Fields().ByName("tenant"); fd != nil && fd.Kind() == protoreflect.StringKind && rm.Get(fd).String() == "" {
		rm.Set(fd, protoreflect.ValueOfString(info.Tenant))
	}
}
