package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
)

// NewJSONRPCHandler returns the JSON-RPC 2.0 binding of svc (A2A §9): every
// call is an HTTP POST to the handler's URL carrying
// {"jsonrpc":"2.0","id":…,"method":"<rpc name>","params":<request message>}.
//
// Answers, where the specification leaves a choice:
//
//   - Requests that are not JSON-RPC at the HTTP level are refused with an
//     HTTP status and a JSON-RPC InvalidRequest (-32600) body with id null:
//     a method other than POST gets 405 and "Allow: POST"; a Content-Type other
//     than application/json or application/a2a+json (parameters such as
//     charset ignored), or none, gets 415 with those two types in an Accept
//     header. Browsers can send neither cross-site without a CORS preflight,
//     so a page on another origin cannot call the endpoint with the user's
//     cookies (see docs/bindings.md, CORS).
//   - Authentication errors (WithAuthenticator, or a handler's) are sent
//     with HTTP 401 (Unauthenticated, -31401) or 403 (Unauthorized, -31403)
//     and their challenges as WWW-Authenticate headers.
//   - Every other JSON-RPC error is sent with HTTP 200, as the official SDK does,
//     including a body larger than WithMaxBodyBytes (InvalidRequest, id null,
//     a message naming the limit): the JSON-RPC client reads the error instead
//     of an opaque HTTP failure.
//   - A batch (a JSON array) gets one InvalidRequest error with id null.
//   - A request without an id (a notification) is still answered, with id null.
//   - Absent or null params are taken as {}.
//   - The order of checks is: envelope, method, service parameters
//     (A2A-Version, A2A-Extensions), authentication, params decoding,
//     required fields, tenant.
//   - Streaming rpcs answer text/event-stream. An error before the first
//     event (including one the handler returns before sending anything) is
//     sent as a plain application/json JSON-RPC error, not as an SSE event
//     (clients branch on the response Content-Type) — except for a client
//     whose Accept lists text/event-stream and no JSON type, which gets it
//     as the only event of a 200 SSE response (see fail). An error after the first
//     event is sent as a final event holding a JSON-RPC error response.
//   - Extensions the handler activated (ActivateExtension) are echoed in the
//     A2A-Extensions response header; for streams, those activated before the
//     first event.
//   - Handler errors that are not *Error are answered as InternalError and
//     logged, without their text; a panicking handler is recovered, logged
//     with its stack and answered the same way.
func NewJSONRPCHandler(svc *Service, opts ...HandlerOption) http.Handler {
	cfg := newHandlerConfigFor(svc, opts)
	return &jsonrpcHandler{svc: svc, cfg: cfg, adapted: cfg.adaptedMethods(svc)}
}

type jsonrpcHandler struct {
	svc     *Service
	cfg     *handlerConfig
	adapted map[string]*adaptedCall // WithVersionAdapter's methods
}

func (h *jsonrpcHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := h.readRequest(w, r)
	if !ok {
		return
	}
	req, e := parseRequest(body)
	if e != nil {
		h.writeError(w, http.StatusOK, req.id, nil, h.earlyError(r, "", e))
		return
	}
	// The method is looked up by its raw bytes first, which does not
	// allocate; serveOtherMethod decodes a name with escapes.
	if ep := h.svc.byMethod[string(req.method[1:len(req.method)-1])]; ep != nil {
		h.serveCall(w, r, req, ep)
		return
	}
	h.serveOtherMethod(w, r, req)
}

// readRequest reads the body of a call, refusing a request that is not
// JSON-RPC at the HTTP level (its verb, Content-Type or size); ok is false
// when it answered the request.
func (h *jsonrpcHandler) readRequest(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.writeError(w, http.StatusMethodNotAllowed, jsonNull, nil,
			h.earlyError(r, "", NewError(CodeInvalidRequest, "JSON-RPC requests must use POST, not "+r.Method)))
		return nil, false
	}
	if e := requestMediaTypeError(w, r.Header.Get("Content-Type")); e != nil {
		h.writeError(w, http.StatusUnsupportedMediaType, jsonNull, nil, h.earlyError(r, "", e))
		return nil, false
	}
	body, err := readBody(w, r, h.cfg.maxBodyBytes)
	if err != nil {
		// A body over the limit is an ordinary JSON-RPC error (HTTP 200),
		// which the client reads; one that broke off is 400.
		e, tooLarge := bodyError(err)
		status := http.StatusBadRequest
		if tooLarge {
			status = http.StatusOK
		}
		h.writeError(w, status, jsonNull, nil, h.earlyError(r, "", e))
		return nil, false
	}
	return body, true
}

// serveOtherMethod answers a method the lookup by raw bytes missed: a name
// written with escapes, a VersionAdapter's method, or an unknown method
// (after the Authenticator, see refuseUnknownOperation).
func (h *jsonrpcHandler) serveOtherMethod(w http.ResponseWriter, r *http.Request, req rpcRequest) {
	method, _ := jsonString(req.method)
	if call := h.adapted[method]; call != nil {
		h.serveAdapted(w, r, req, method, call)
		return
	}
	if ep := h.svc.byMethod[method]; ep != nil {
		h.serveCall(w, r, req, ep)
		return
	}
	e := h.cfg.refuseUnknownOperation(r, BindingJSONRPC)
	if e == nil {
		e = h.unknownMethod(method)
	}
	h.writeError(w, http.StatusOK, req.id, nil, h.earlyError(r, method, e))
}

// serveCall serves a call of one of the service's endpoints: the service
// parameters, the Authenticator, the params, then the handler.
func (h *jsonrpcHandler) serveCall(w http.ResponseWriter, r *http.Request, req rpcRequest, ep *Endpoint) {
	// Streaming calls from a client that accepts only text/event-stream get
	// their early errors as an SSE stream too (see fail).
	sseErrors := ep.IsStreaming() && acceptsEventStream(r.Header.Get("Accept"))
	info, e := h.cfg.newCallInfo(BindingJSONRPC, ep.Operation, r.Header, "")
	info.track()
	defer info.finish()
	ctx, e := h.cfg.authenticateHTTP(r, info, e)
	var msg proto.Message
	if e == nil {
		msg, e = h.request(ep, info, req.params)
	}
	if e != nil {
		h.fail(w, sseErrors, req.id, info, h.cfg.rejected(ctx, BindingJSONRPC, ep, info, r.Header, msg, e))
		return
	}
	ctx = info.attach(ctx)
	if ep.IsStreaming() {
		h.serveStream(ctx, w, ep, req.id, info, msg, sseErrors)
		return
	}
	h.serveUnary(ctx, w, ep, req.id, info, msg)
}

// request decodes and checks the request message of a call from its
// params. A bidirectional rpc has no request message here (gRPC only).
func (h *jsonrpcHandler) request(ep *Endpoint, info *CallInfo, params []byte) (proto.Message, *Error) {
	if ep.IsClientStreaming() {
		return nil, unsupportedRequestStream(ep.Operation) // client_requests.go
	}
	msg := ep.NewRequest()
	if err := unmarshalJSON(params, msg); err != nil {
		return msg, paramsError(err)
	}
	return msg, h.cfg.checkRequest(h.svc, info, msg)
}

// isJSONMediaType accepts application/json and application/a2a+json with any
// parameters, and a missing Content-Type (requests are checked with
// requestMediaTypeError, which refuses a missing one). It does not allocate.
func isJSONMediaType(ct string) bool {
	if ct == "" {
		return true
	}
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = strings.TrimSpace(ct)
	return strings.EqualFold(ct, "application/json") || strings.EqualFold(ct, "application/a2a+json")
}

// A method of another version of the protocol (ServiceDesc.OtherVersionMethods,
// e.g. the v0.3 "message/send" on a v1.0 interface) is VersionNotSupported
// naming the versions served and this interface's name for the operation.
func (h *jsonrpcHandler) unknownMethod(method string) *Error {
	if v, ok := h.svc.Desc.OtherVersionMethods[method]; ok {
		e := VersionNotSupported(v, h.cfg.supportedVersions...)
		e.message = fmt.Sprintf("method %q is A2A %s, which this interface does not serve; it serves %s, whose methods are %s",
			method, v, strings.Join(h.cfg.supportedVersions, ", "), methodList(h.svc))
		return e
	}
	return NewError(CodeMethodNotFound, fmt.Sprintf("method %q not found; this interface serves %s", method, methodList(h.svc)))
}

// methodList names the JSON-RPC methods of svc for error messages.
func methodList(svc *Service) string {
	names := make([]string, len(svc.Endpoints))
	for i, ep := range svc.Endpoints {
		names[i] = ep.Operation.JSONRPCName()
	}
	return strings.Join(names, ", ")
}

// paramsError turns a params decoding failure into InvalidParams with the
// decoder's message, which names the offending member.
func paramsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Errorf(CodeInvalidParams, "invalid params: %w", err)
}

func (h *jsonrpcHandler) serveUnary(ctx context.Context, w http.ResponseWriter, ep *Endpoint, id []byte, info *CallInfo, msg proto.Message) {
	resp, err := h.cfg.callUnary(ctx, ep, info, msg)
	if err != nil {
		h.writeError(w, http.StatusOK, id, info, h.handlerError(ctx, ep, err))
		return
	}
	result, err := marshalJSON(resp, true)
	if err != nil {
		h.writeError(w, http.StatusOK, id, info, h.handlerError(ctx, ep, fmt.Errorf("encoding the response: %w", err)))
		return
	}
	// The result is written as marshalled, between the envelope's head and
	// its closing brace, so a large result is neither re-encoded nor copied.
	h.writeJSON(w, http.StatusOK, info, resultHeadStart, id, resultHeadEnd, result, closingBrace)
}

// handlerError converts what a handler returned into the *Error to send,
// logging what the client does not see.
func (h *jsonrpcHandler) handlerError(ctx context.Context, ep *Endpoint, err error) *Error {
	return h.cfg.handlerError(ctx, BindingJSONRPC, ep, err)
}

// earlyError is e, refused before its method was served (method is the
// request's method name, "" when unread), in the error form of the version
// the request is in: that of the adapter of the version A2A-Version names;
// without the header, that of the adapter of v0.3 (what no header means)
// only when the method name is in v0.3's style ("tasks/list", with a '/'),
// so a v0.3 client calling an unknown method reads the error as it reads
// every other, while a v1.0 client without the header keeps the service's
// own form for errors that show no version (a parse error, say).
func (h *jsonrpcHandler) earlyError(r *http.Request, method string, e *Error) *Error {
	requested := requestedVersion(r.Header, "")
	v := versionWhenAbsent
	if requested != "" {
		var ok bool
		if v, ok = ParseVersion(requested); !ok {
			return e
		}
	} else if !strings.Contains(method, "/") {
		return e
	}
	if a := h.cfg.adapterFor(v); a != nil {
		return adaptError(a, e, requested != "")
	}
	return e
}

// writeError sends a JSON-RPC error response with the given HTTP status;
// authentication errors are sent with 401 or 403 and their challenges (see
// jsonrpcStatus).
func (h *jsonrpcHandler) writeError(w http.ResponseWriter, status int, id []byte, info *CallInfo, e *Error) {
	e = wireError(info, e)
	out := appendErrorResponse(nil, id, marshalJSONRPCError(e, time.Now()))
	setChallenges(w.Header(), e)
	h.writeJSON(w, jsonrpcStatus(status, e), info, out)
}

// writeJSON writes a complete application/json response made of parts.
func (h *jsonrpcHandler) writeJSON(w http.ResponseWriter, status int, info *CallInfo, parts ...[]byte) {
	writeBody(w, h.cfg.writeTimeout, status, "application/json", info, parts...)
}

func (h *jsonrpcHandler) serveStream(ctx context.Context, w http.ResponseWriter, ep *Endpoint, id []byte, info *CallInfo, msg proto.Message, sseErrors bool) {
	h.cfg.serveSSE(ctx, w, ep, info, msg, &sseFraming{
		binding: BindingJSONRPC,
		event: func(dst, result []byte) []byte {
			return appendResultResponse(dst, id, result)
		},
		errorEvent: func(dst []byte, e *Error, now time.Time) []byte {
			return appendErrorResponse(dst, id, marshalJSONRPCError(wireError(info, e), now))
		},
		writeError: func(w http.ResponseWriter, info *CallInfo, e *Error) {
			h.fail(w, sseErrors, id, info, e)
		},
	})
}

// fail answers an error of a call whose method is known. For a streaming
// call whose client sent "Accept: text/event-stream" (and not JSON) the error
// is one SSE event in a 200 response: the official Go SDK's client (v2.3.1)
// reads every streaming answer as SSE and would otherwise see an empty
// stream. Authentication failures keep their 401/403 and challenges, and
// every other answer is the plain application/json error response.
func (h *jsonrpcHandler) fail(w http.ResponseWriter, sseErrors bool, id []byte, info *CallInfo, e *Error) {
	if !sseErrors || jsonrpcStatus(http.StatusOK, e) != http.StatusOK {
		h.writeError(w, http.StatusOK, id, info, e)
		return
	}
	setActivatedExtensions(w.Header(), info)
	sse := newSSEWriter(w)
	if err := sse.writeEvent(appendErrorResponse(nil, id, marshalJSONRPCError(wireError(info, e), time.Now()))); err != nil {
		h.cfg.logger.Debug("a2a: writing a JSON-RPC stream error event failed", "error", err)
	}
}

// acceptsEventStream reports whether an Accept header asks for
// text/event-stream without also accepting JSON.
func acceptsEventStream(accept string) bool {
	sse, json := false, false
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case sseContentType:
			sse = true
		case "application/json", "application/a2a+json", "application/*", "*/*":
			json = true
		}
	}
	return sse && !json
}
