package runtime

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
)

// Every binding serves a call in the view of its negotiated A2A-Version:
// callUnary and callStream are the one place where the handler's answer
// reaches the bindings, so what a call sees is decided here, once, for
// JSON-RPC, HTTP+JSON (both with their SSE streams) and gRPC alike.

// setVersionView records what the view of each call's version needs from
// svc: its version table, the version of a call that names none (the
// service's own newest, so that a draft added with WithSupportedVersions is
// served only to callers that ask for it) and the rpcs the oldest version
// lacks.
func (c *handlerConfig) setVersionView(svc *Service) {
	if v := svc.Desc.ProtocolVersion(); v != "" && c.supports(v) {
		c.versionDefault = v
	}
	t := svc.Desc.Versions
	if t == nil || len(t.Since) == 0 {
		return
	}
	c.versions = t
	for _, ep := range svc.Endpoints {
		full := string(svc.Desc.Name) + "." + ep.Operation.Name
		if since, ok := t.Since[full]; ok {
			if c.operationsSince == nil {
				c.operationsSince = map[*Operation]string{}
			}
			c.operationsSince[ep.Operation] = since
		}
	}
}

// callUnary serves a unary call (callUnaryIntercepted) as its version sees
// it: a call of an older version than the service's table knows has its
// request read with that version's meaning (what the version lacks is
// ignored, as a server of that version would), an rpc its version lacks
// refused, and its answer without what its version lacks; an error the
// version does not know becomes the one it does (errorSince).
func (c *handlerConfig) callUnary(ctx context.Context, ep *Endpoint, info *CallInfo, req proto.Message) (proto.Message, error) {
	if info == nil || !c.versions.older(info.Version) {
		resp, err := c.callUnaryIntercepted(ctx, ep, info, req)
		if err != nil {
			err = errorAsOf(err, info)
		}
		return resp, err
	}
	if e := c.operationLacked(ep, info.Version); e != nil {
		return nil, e
	}
	c.versions.Strip(req, info.Version)
	resp, err := c.callUnaryIntercepted(ctx, ep, info, req)
	if err != nil {
		return nil, errorAsOf(err, info)
	}
	resp, _ = c.versions.View(resp, info.Version)
	return resp, nil
}

// callStream is callUnary for streaming calls: each event is sent as the
// call's version sees it, and an event of a kind the version lacks (a oneof
// case of the stream's response message) is not sent.
func (c *handlerConfig) callStream(ctx context.Context, ep *Endpoint, info *CallInfo, req proto.Message, send func(proto.Message) error) error {
	if info == nil || !c.versions.older(info.Version) {
		return errorAsOf(c.callStreamIntercepted(ctx, ep, info, req, send), info)
	}
	if e := c.operationLacked(ep, info.Version); e != nil {
		return e
	}
	t, v := c.versions, info.Version
	t.Strip(req, v)
	viewed := func(m proto.Message) error {
		out, drop := t.View(m, v)
		if drop {
			return nil
		}
		return send(out)
	}
	return errorAsOf(c.callStreamIntercepted(ctx, ep, info, req, viewed), info)
}

// operationLacked is UnsupportedOperation when ep's rpc was introduced after
// version v, or nil.
func (c *handlerConfig) operationLacked(ep *Endpoint, v string) *Error {
	since, ok := c.operationsSince[ep.Operation]
	if !ok || compareVersions(since, v) <= 0 {
		return nil
	}
	return NewError(CodeUnsupportedOperation, fmt.Sprintf("%s is an operation of A2A %s and this call negotiated A2A-Version %s; send A2A-Version: %s",
		ep.Operation.Name, since, v, since))
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
