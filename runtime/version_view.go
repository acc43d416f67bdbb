package runtime

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Every binding serves a call in the view of its negotiated A2A-Version:
// callUnary and callStream are the one place where the handler's answer
// reaches the bindings, so what a call sees is decided here, once, for
// JSON-RPC, HTTP+JSON (both with their SSE streams) and gRPC alike.

// callView is what serving one endpoint to callers of one older version
// takes: the table, the plans of the request and response types (nil:
// nothing to look at) and, for an rpc the version lacks, the refusal.
type callView struct {
	t         *VersionTable
	v         string
	req, resp *versionPlan
	refused   *Error
}

// viewKey indexes the callViews of a handler.
type viewKey struct {
	ep *Endpoint
	v  string
}

// setVersionView records what the view of each call's version needs from
// svc: the version of a call that names none (the service's own newest, so
// that a draft added with WithSupportedVersions is served only to callers
// that ask for it) and, for each version the interface serves that is older
// than the newest of the service's version table, one callView per
// endpoint, built here so that a call pays one map lookup to know its view.
func (c *handlerConfig) setVersionView(svc *Service) {
	if v := svc.Desc.ProtocolVersion(); v != "" && c.supports(v) {
		c.versionDefault = v
	}
	t := svc.Desc.Versions
	if t == nil || len(t.Since) == 0 {
		return
	}
	for _, served := range c.servedVersions() {
		v, ok := ParseVersion(served)
		if !ok || !t.older(v) {
			continue
		}
		for _, ep := range svc.Endpoints {
			if c.views == nil {
				c.views = map[viewKey]*callView{}
			}
			c.views[viewKey{ep, v}] = newCallView(t, v, svc.Desc.Name, ep)
		}
	}
}

// newCallView builds the view of ep for callers of version v.
func newCallView(t *VersionTable, v string, service protoreflect.FullName, ep *Endpoint) *callView {
	cv := &callView{t: t, v: v, req: t.plan(v, ep.NewRequest().ProtoReflect().Descriptor())}
	if mt, err := protoregistry.GlobalTypes.FindMessageByName(ep.Operation.Response); err == nil {
		cv.resp = t.plan(v, mt.Descriptor())
	} else {
		cv.resp = dynamicPlan // a type this program has not registered: planned per answer
	}
	if since, ok := t.Since[string(service)+"."+ep.Operation.Name]; ok && compareVersions(since, v) > 0 {
		cv.refused = NewError(CodeUnsupportedOperation, fmt.Sprintf("%s is an operation of A2A %s and this call negotiated A2A-Version %s; send A2A-Version: %s",
			ep.Operation.Name, since, v, since))
	}
	return cv
}

// dynamicPlan marks a response type whose plan is looked up per answer.
var dynamicPlan = &versionPlan{}

// view is what a caller of this view may see of an answer m (see
// VersionTable.View).
func (cv *callView) view(m proto.Message) (proto.Message, bool) {
	p := cv.resp
	if p == dynamicPlan {
		return cv.t.View(m, cv.v)
	}
	return p.view(m)
}

// callUnary serves a unary call (callUnaryIntercepted) as its version sees
// it: a call of an older version than the service's table knows has its
// request read with that version's meaning (what the version lacks is
// ignored, as a server of that version would), an rpc its version lacks
// refused, and its answer without what its version lacks; an error the
// version does not know becomes the one it does (errorSince).
func (c *handlerConfig) callUnary(ctx context.Context, ep *Endpoint, info *CallInfo, req proto.Message) (proto.Message, error) {
	var cv *callView
	if c.views != nil && info != nil {
		cv = c.views[viewKey{ep, info.Version}]
	}
	if cv == nil {
		resp, err := c.callUnaryIntercepted(ctx, ep, info, req)
		if err != nil {
			err = errorAsOf(err, info)
		}
		return resp, err
	}
	if cv.refused != nil {
		return nil, cv.refused
	}
	cv.req.strip(req)
	resp, err := c.callUnaryIntercepted(ctx, ep, info, req)
	if err != nil {
		return nil, errorAsOf(err, info)
	}
	resp, _ = cv.view(resp)
	return resp, nil
}

// callStream is callUnary for streaming calls: each event is sent as the
// call's version sees it, and an event of a kind the version lacks (a oneof
// case of the stream's response message) is not sent.
func (c *handlerConfig) callStream(ctx context.Context, ep *Endpoint, info *CallInfo, req proto.Message, send func(proto.Message) error) error {
	var cv *callView
	if c.views != nil && info != nil {
		cv = c.views[viewKey{ep, info.Version}]
	}
	if cv == nil {
		return errorAsOf(c.callStreamIntercepted(ctx, ep, info, req, send), info)
	}
	if cv.refused != nil {
		return cv.refused
	}
	cv.req.strip(req)
	viewed := func(m proto.Message) error {
		out, drop := cv.view(m)
		if drop {
			return nil
		}
		return send(out)
	}
	return errorAsOf(c.callStreamIntercepted(ctx, ep, info, req, viewed), info)
}

// errorAsOf is err as the caller of info's version may see it: an error
// introduced after that version (errorSince) becomes the error the version
// knows, with the same message and metadata. Other errors are err itself.
func errorAsOf(err error, info *CallInfo) error {
	if err == nil || info == nil || info.Version == "" {
		return err
	}
	var e *Error
	if !errors.As(err, &e) || e == nil {
		return err
	}
	intro, ok := errorSince[e.code]
	if !ok || compareVersions(intro.version, info.Version) <= 0 {
		return err
	}
	older := *e
	older.code = intro.older
	older.message = e.Message()
	return &older
}
