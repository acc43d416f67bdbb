package runtime

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"google.golang.org/protobuf/proto"
)

// serveAdapted serves a JSON-RPC call of a VersionAdapter's method through
// the endpoint it maps onto: the same checks in the same order as the
// service's own methods (service parameters, authentication, params,
// required fields, tenant), the adapter's decoding and encoding, and errors
// with the adapter's codes.
func (h *jsonrpcHandler) serveAdapted(w http.ResponseWriter, r *http.Request, req rpcRequest, method string, call *adaptedCall) {
	ep := call.ep
	sseErrors := ep.IsStreaming() && acceptsEventStream(r.Header.Get("Accept"))
	info, e := h.cfg.newAdaptedCallInfo(BindingJSONRPC, call.adapter, ep.Operation, fmt.Sprintf("method %q", method), r.Header, "")
	info.track()
	defer info.finish()
	ctx, e := h.cfg.authenticateHTTP(r, info, e)
	var msg proto.Message
	if e == nil {
		msg = ep.NewRequest()
		e = h.adaptedRequest(call, info, req.params, msg)
	}
	if e != nil {
		e = h.cfg.rejected(ctx, BindingJSONRPC, ep, info, r.Header, msg, e)
		if info == nil && e.code != CodeVersionNotSupported {
			// The service parameters were refused. VersionNotSupported
			// keeps its code: the client named a version other than the
			// adapter's, so it knows the newer codes.
			e = adaptError(call.adapter, e, requestedVersion(r.Header, "") != "")
		}
		h.fail(w, sseErrors, req.id, info, e)
		return
	}
	ctx = info.attach(ctx)
	if ep.IsStreaming() {
		h.cfg.serveSSE(ctx, w, ep, info, msg, &sseFraming{
			binding: BindingJSONRPC,
			encode:  call.method.EncodeResult,
			event: func(dst, result []byte) []byte {
				return appendResultResponse(dst, req.id, result)
			},
			errorEvent: func(dst []byte, e *Error, now time.Time) []byte {
				return appendErrorResponse(dst, req.id, marshalJSONRPCError(wireError(info, e), now))
			},
			writeError: func(w http.ResponseWriter, info *CallInfo, e *Error) {
				h.fail(w, sseErrors, req.id, info, e)
			},
		})
		return
	}
	h.serveAdaptedUnary(ctx, w, call, req.id, info, msg)
}

// adaptedRequest fills msg from the params of an adapter's method (absent
// or null params are {}) and checks it as every binding does.
func (h *jsonrpcHandler) adaptedRequest(call *adaptedCall, info *CallInfo, params []byte, msg proto.Message) *Error {
	if len(params) == 0 || string(params) == "null" {
		params = jsonEmptyObject
	}
	if e := decodeAdapted(func() error { return call.method.DecodeParams(params, msg) }); e != nil {
		return e
	}
	return h.cfg.checkRequest(h.svc, info, msg)
}

func (h *jsonrpcHandler) serveAdaptedUnary(ctx context.Context, w http.ResponseWriter, call *adaptedCall, id []byte, info *CallInfo, msg proto.Message) {
	resp, err := h.cfg.callUnary(ctx, call.ep, info, msg)
	if err != nil {
		h.writeError(w, http.StatusOK, id, info, h.handlerError(ctx, call.ep, err))
		return
	}
	result, err := call.method.EncodeResult(resp)
	if err != nil {
		h.writeError(w, http.StatusOK, id, info, h.handlerError(ctx, call.ep, fmt.Errorf("encoding the A2A %s response: %w", call.adapter.Version, err)))
		return
	}
	h.writeJSON(w, http.StatusOK, info, resultHeadStart, id, resultHeadEnd, result, closingBrace)
}
