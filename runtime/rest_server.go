package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
)

// NewRESTHandler returns the HTTP+JSON binding of svc (A2A §11): every rpc is
// served on the routes of its google.api.http rules, plain and /{tenant}
// alike, compiled at generation time into Operation.HTTPRules.
//
// Routing:
//
//   - The handler can be mounted under any prefix (the path of the interface
//     URL): see WithPathPrefix, or register it on an http.ServeMux with a
//     subtree pattern ("/a2a/rest/"), whose prefix is then removed.
//   - Paths are matched segment by segment after percent-decoding each
//     segment ("%3A" is ':'; "%2F" stays inside its segment, so an id may
//     hold a '/'); a variable such as {id} matches exactly one non-empty
//     segment. When several patterns match, the most specific wins: a
//     custom verb first (so "/tasks/x:cancel" is CancelTask and never GetTask
//     of "x:cancel"), then literals before wildcards from the left.
//   - An unknown path is answered 404, a known path with another verb 405
//     with Allow listing the verbs it takes; both with a Status body whose
//     ErrorInfo reason is METHOD_NOT_FOUND.
//   - verbOverrides widens the verbs of rpcs where the proto and the prose
//     disagree: SubscribeToTask is served on GET and POST and ignores any
//     body.
//
// Requests:
//
//   - body "*": the body is the request message (ProtoJSON, unknown members
//     ignored, snake_case names accepted); an empty body, null and {} all
//     mean an empty message. Path variables are set after the body and win
//     over a body member for the same field.
//   - Without a body rule (GET, DELETE), fields come from the query string:
//     JSON or proto names, dotted for nested fields, enums by name or
//     number, RFC 3339 timestamps, repeated fields by repeating the key or
//     comma-joining; unknown parameters are ignored; lastUpdatedAfter is
//     taken as statusTimestampAfter; A2A-Version may be a query parameter.
//   - The body's Content-Type must be application/json or
//     application/a2a+json (parameters ignored), else 415 with those two
//     types in an Accept header — also when a body comes without any
//     Content-Type, which browsers send cross-site without a CORS preflight.
//     A request without a body (Content-Length 0) needs none. A body over
//     WithMaxBodyBytes gets 413.
//   - The tenant of a /{tenant} route fills the request's tenant field;
//     WithTenant then refuses a different tenant with InvalidParams (400, a
//     field violation on "tenant"), as on the other bindings.
//
// Responses:
//
//   - 200 with the response message in ProtoJSON; REQUIRED fields of the
//     response are always present (ListTasksResponse's nextPageToken,
//     pageSize, totalSize, tasks). google.protobuf.Empty is {}.
//   - Content-Type application/a2a+json when the request's Accept lists it,
//     else application/json; errors too.
//   - Errors are google.rpc.Status documents with the HTTP status of the
//     error table: {"error":{"code":<HTTP status>,"status":"<gRPC code
//     name>","message":…,"details":[ErrorInfo, BadRequest?]}}.
//   - Streaming rpcs answer text/event-stream, one bare StreamResponse per
//     data line. An error before the first event is answered as a normal
//     non-2xx Status response (so HTTP status and proxies see the failure);
//     after it, as a final event data: {"error":{…Status…}}, then the stream
//     ends.
//   - Handler errors that are not *Error are answered as InternalError and
//     logged without their text; a panic is recovered and logged.
//   - WithAuthenticator runs after the route and the service parameters,
//     before the request is bound; its errors are answered 401 or 403 with
//     their challenges as WWW-Authenticate headers.
func NewRESTHandler(svc *Service, opts ...HandlerOption) http.Handler {
	cfg := newHandlerConfigFor(svc, opts)
	return &restHandler{svc: svc, cfg: cfg, router: newRESTRouter(svc, cfg.logger), mount: newPathMount(cfg),
		adaptedREST: cfg.adaptedRoutes(svc)}
}

type restHandler struct {
	svc         *Service
	cfg         *handlerConfig
	router      *restRouter
	mount       *pathMount
	adaptedREST []*adaptedRESTRoute // WithVersionAdapter's routes
}

// maxInlineSegments and maxInlineVariables size the per-request buffers that
// keep path matching off the heap for ordinary paths.
const (
	maxInlineSegments  = 16
	maxInlineVariables = 8
)

func (h *restHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	accept := responseMediaType(r.Header.Get("Accept"))
	var segBuf [maxInlineSegments]string
	segs, err := pathSegments(r.URL, segBuf[:0])
	if err != nil {
		h.writeError(w, http.StatusBadRequest, accept, nil, Errorf(CodeInvalidRequest, "malformed request path: %w", err))
		return
	}
	segs, ok := h.mount.strip(r, segs)
	if !ok {
		h.refuseRoute(w, r, accept, nil)
		return
	}
	if h.adaptedREST != nil && h.serveAdaptedRoute(w, r, accept, segs) {
		return
	}
	route, node := h.router.match(r.Method, segs)
	if route == nil {
		h.refuseRoute(w, r, accept, node)
		return
	}
	h.serveRoute(w, r, accept, route, segs)
}

// serveAdaptedRoute serves the request when one of WithVersionAdapter's
// routes matches it, or refuses its verb when only the verb differs; it
// reports whether it answered.
func (h *restHandler) serveAdaptedRoute(w http.ResponseWriter, r *http.Request, accept string, segs []string) bool {
	call, vars, plain, allow := h.matchAdapted(r, segs)
	switch {
	case call != nil:
		h.serveAdapted(w, r, accept, call, vars, plain)
	case len(allow) > 0:
		h.refuseMethod(w, r, accept, strings.Join(allow, ", "))
	default:
		return false
	}
	return true
}

// refuseRoute answers a request no route serves, once the Authenticator
// let it pass (see refuseUnknownOperation): 404 for a path no route has
// (node nil), else 405 naming the verbs the path takes.
func (h *restHandler) refuseRoute(w http.ResponseWriter, r *http.Request, accept string, node *routeNode) {
	if e := h.cfg.refuseUnknownOperation(r, BindingHTTPJSON); e != nil {
		h.writeError(w, 0, accept, nil, e)
		return
	}
	if node == nil {
		h.writeError(w, http.StatusNotFound, accept, nil, NewError(CodeMethodNotFound,
			fmt.Sprintf("no HTTP+JSON route for %s %s", r.Method, r.URL.EscapedPath())))
		return
	}
	h.refuseMethod(w, r, accept, node.allow)
}

// refuseMethod answers 405 for a path that takes only the verbs in allow.
func (h *restHandler) refuseMethod(w http.ResponseWriter, r *http.Request, accept, allow string) {
	w.Header().Set("Allow", allow)
	h.writeError(w, http.StatusMethodNotAllowed, accept, nil, NewError(CodeMethodNotFound,
		fmt.Sprintf("%s %s is not allowed; this path takes %s", r.Method, r.URL.EscapedPath(), allow)))
}

// serveRoute serves a call of the route's endpoint: the service parameters,
// the Authenticator, the request, then the handler.
func (h *restHandler) serveRoute(w http.ResponseWriter, r *http.Request, accept string, route *restRoute, segs []string) {
	ep := route.ep
	info, e := h.cfg.newCallInfo(BindingHTTPJSON, ep.Operation, r.Header, queryParam(r.URL.RawQuery, paramVersion))
	info.track()
	defer info.finish()
	ctx, e := h.cfg.authenticateHTTP(r, info, e)
	var (
		msg    proto.Message
		status int // of a refusal; 0: the error's own
	)
	if e == nil {
		msg, status, e = h.request(w, r, route, segs, info)
	}
	if e != nil {
		if out := h.cfg.rejected(ctx, BindingHTTPJSON, ep, info, r.Header, msg, e); out != e {
			e, status = out, 0
		}
		h.writeError(w, status, accept, info, e)
		return
	}
	ctx = info.attach(ctx)
	if ep.IsStreaming() {
		h.serveStream(ctx, w, ep, accept, info, msg)
		return
	}
	h.serveUnary(ctx, w, ep, accept, info, msg)
}

// request binds and checks the request message of a call; status is the
// HTTP status to refuse it with (0: the error's own). A bidirectional rpc
// has no request message here (gRPC only).
func (h *restHandler) request(w http.ResponseWriter, r *http.Request, route *restRoute, segs []string, info *CallInfo) (proto.Message, int, *Error) {
	ep := route.ep
	if ep.IsClientStreaming() {
		return nil, 0, unsupportedRequestStream(ep.Operation) // client_requests.go
	}
	msg := ep.NewRequest()
	if status, e := h.bind(w, r, route, segs, msg); e != nil {
		return msg, status, e
	}
	return msg, 0, h.cfg.checkRequest(h.svc, info, msg)
}

func (h *restHandler) serveUnary(ctx context.Context, w http.ResponseWriter, ep *Endpoint, accept string, info *CallInfo, msg proto.Message) {
	resp, err := h.cfg.callUnary(ctx, ep, info, msg)
	if err != nil {
		h.writeError(w, 0, accept, info, h.cfg.handlerError(ctx, BindingHTTPJSON, ep, err))
		return
	}
	body, err := marshalJSON(resp, true)
	if err != nil {
		h.writeError(w, 0, accept, info, h.cfg.handlerError(ctx, BindingHTTPJSON, ep, fmt.Errorf("encoding the response: %w", err)))
		return
	}
	writeBody(w, h.cfg.writeTimeout, http.StatusOK, accept, info, body)
}

// pathSegments returns the percent-decoded segments of the request path.
// A path without escapes that net/http kept (RawPath empty) is already
// decoded and split as is.
func pathSegments(u *url.URL, dst []string) ([]string, error) {
	if u.RawPath == "" {
		return splitDecodedPath(u.Path, dst), nil
	}
	return splitPath(u.EscapedPath(), dst)
}

// splitDecodedPath splits an already decoded path into segments.
func splitDecodedPath(path string, dst []string) []string {
	if len(path) > 0 && path[0] == '/' {
		path = path[1:]
	}
	for {
		i := 0
		for i < len(path) && path[i] != '/' {
			i++
		}
		dst = append(dst, path[:i])
		if i == len(path) {
			return dst
		}
		path = path[i+1:]
	}
}

// bind fills msg from the request: the body (when the rule has one), the
// query string (for the fields the body does not carry), then the path
// variables. It returns the HTTP status to answer a failure with (0 for the
// error's own).
func (h *restHandler) bind(w http.ResponseWriter, r *http.Request, route *restRoute, segs []string, msg proto.Message) (int, *Error) {
	rm := msg.ProtoReflect()
	if route.readsBody() && r.ContentLength != 0 {
		// A body that is one field sits one level inside the message.
		body, status, e := h.readJSONBody(w, r, MaxJSONDepth-route.bodyFieldLevel())
		if e != nil {
			return status, e
		}
		if e := decodeRESTBody(route, body, msg); e != nil {
			return 0, e
		}
	}
	if route.readsQuery() && r.URL.RawQuery != "" {
		if e := bindQuery(rm, r.URL.RawQuery, route.bodyField); e != nil {
			return 0, e
		}
	}
	if len(route.vars) > 0 {
		var capBuf [maxInlineVariables]string
		values := route.matcher.capture(segs, capBuf[:0])
		for i, fp := range route.vars {
			if err := fp.set(rm, values[i]); err != nil {
				return 0, InvalidParams(fmt.Sprintf("path segment for %s: %v", fp.jsonPath(), err),
					FieldViolation{Field: fp.jsonPath(), Description: err.Error()})
			}
		}
	}
	return 0, nil
}

// readJSONBody reads a request body under the limits of the binding: its
// Content-Type, its size, its nesting (at most maxDepth) and its number of
// values. The status is the HTTP status to refuse it with (0: the error's
// own).
func (h *restHandler) readJSONBody(w http.ResponseWriter, r *http.Request, maxDepth int) ([]byte, int, *Error) {
	if e := requestMediaTypeError(w, r.Header.Get("Content-Type")); e != nil {
		return nil, http.StatusUnsupportedMediaType, e
	}
	body, err := readBody(w, r, h.cfg.maxBodyBytes)
	if err != nil {
		e, tooLarge := bodyError(err)
		if tooLarge {
			return nil, http.StatusRequestEntityTooLarge, e
		}
		return nil, http.StatusBadRequest, e
	}
	if !jsonDepthWithin(body, maxDepth) {
		return nil, 0, depthExceeded()
	}
	if !jsonValuesWithin(body, MaxJSONValues) {
		return nil, 0, valuesExceeded()
	}
	return body, 0, nil
}

// decodeRESTBody decodes the body into msg (body "*") or into the selected
// field. Empty, null and {} are an empty message. Malformed JSON is a
// ParseError; JSON that does not fit the message is InvalidParams.
func decodeRESTBody(route *restRoute, body []byte, msg proto.Message) *Error {
	doc := body
	if route.bodyField != nil {
		if isEmptyJSON(body) {
			return nil
		}
		// Decode {"<field>": body} into the (still empty) request, which
		// works for a field of any type.
		doc = make([]byte, 0, len(body)+len(route.bodyField.JSONName())+4)
		doc = appendJSONString(append(doc, '{'), route.bodyField.JSONName())
		doc = append(append(append(doc, ':'), body...), '}')
	}
	if err := unmarshalJSON(doc, msg); err != nil {
		if !json.Valid(body) {
			return Errorf(CodeParseError, "the request body is not valid JSON: %w", err)
		}
		return paramsError(err)
	}
	return nil
}

// isEmptyJSON reports whether a body is empty, white space or null.
func isEmptyJSON(b []byte) bool {
	rest := bytes.Trim(b, jsonSpaces)
	return len(rest) == 0 || string(rest) == "null"
}

func (h *restHandler) serveStream(ctx context.Context, w http.ResponseWriter, ep *Endpoint, accept string, info *CallInfo, msg proto.Message) {
	h.cfg.serveSSE(ctx, w, ep, info, msg, &sseFraming{
		binding: BindingHTTPJSON,
		event:   func(dst, resp []byte) []byte { return append(dst, resp...) },
		errorEvent: func(dst []byte, e *Error, now time.Time) []byte {
			return append(dst, marshalStatus(e, e.code.HTTPStatus(), now)...)
		},
		writeError: func(w http.ResponseWriter, info *CallInfo, e *Error) {
			h.writeError(w, 0, accept, info, e)
		},
	})
}

// writeError sends e as a Status document with the HTTP status given, or
// the error table's status for e when status is 0.
func (h *restHandler) writeError(w http.ResponseWriter, status int, mediaType string, info *CallInfo, e *Error) {
	if status == 0 {
		status = e.code.HTTPStatus()
	}
	setChallenges(w.Header(), e)
	writeBody(w, h.cfg.writeTimeout, status, mediaType, info, marshalStatus(e, status, time.Now()))
}
