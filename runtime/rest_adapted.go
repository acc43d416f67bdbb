package runtime

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
)

// adaptedRESTRoute is one compiled AdaptedRoute.
type adaptedRESTRoute struct {
	call *adaptedCall
	segs []adaptedSegment
	verb string // custom verb of the last segment, without ':'
}

// adaptedSegment is a literal segment or, with name set, a variable.
type adaptedSegment struct {
	literal, name string
}

// adaptedRoutes compiles the HTTP+JSON routes of the adapters of c.
func (c *handlerConfig) adaptedRoutes(svc *Service) []*adaptedRESTRoute {
	var out []*adaptedRESTRoute
	for _, a := range c.adapters {
		for i := range a.Routes {
			rt := &a.Routes[i]
			r := &adaptedRESTRoute{call: &adaptedCall{adapter: a, ep: svc.adaptedEndpoint(a, rt.Operation), route: rt}}
			path := strings.TrimPrefix(rt.Path, "/")
			parts := strings.Split(path, "/")
			last := parts[len(parts)-1]
			if i := strings.LastIndexByte(last, ':'); i >= 0 && !strings.Contains(last[i:], "}") {
				r.verb, parts[len(parts)-1] = last[i+1:], last[:i]
			}
			for _, p := range parts {
				if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
					r.segs = append(r.segs, adaptedSegment{name: p[1 : len(p)-1]})
				} else {
					r.segs = append(r.segs, adaptedSegment{literal: p})
				}
			}
			out = append(out, r)
		}
	}
	return out
}

// match reports whether segs is the route's path and returns its variables.
func (r *adaptedRESTRoute) match(segs []string) (map[string]string, bool) {
	if len(segs) != len(r.segs) {
		return nil, false
	}
	var vars map[string]string
	for i, s := range r.segs {
		seg := segs[i]
		if i == len(segs)-1 {
			if r.verb != "" {
				var ok bool
				if seg, ok = strings.CutSuffix(seg, ":"+r.verb); !ok {
					return nil, false
				}
			} else if s.name != "" && strings.Contains(seg, ":") {
				return nil, false // a custom verb this route does not take
			}
		}
		switch {
		case s.name == "" && seg != s.literal:
			return nil, false
		case s.name != "":
			if seg == "" {
				return nil, false
			}
			if vars == nil {
				vars = map[string]string{}
			}
			vars[s.name] = seg
		}
	}
	return vars, true
}

// matchAdapted finds the adapted route of a request: under an adapter's
// RESTPrefix unless A2A-Version names a version of the service itself, or
// at the plain path when A2A-Version names the adapter's version. A path
// that an adapter route has but not with this verb is reported as allow.
func (h *restHandler) matchAdapted(r *http.Request, segs []string) (call *adaptedCall, vars map[string]string, plain bool, allow []string) {
	requested, _ := ParseVersion(requestedVersion(r.Header, queryParam(r.URL.RawQuery, paramVersion)))
	for _, rt := range h.adaptedREST {
		a := rt.call.adapter
		own, _ := ParseVersion(a.Version)
		var path []string
		switch {
		case a.RESTPrefix != "" && len(segs) > 1 && segs[0] == a.RESTPrefix && (requested == "" || !h.cfg.supports(requested)):
			path, plain = segs[1:], false
		case requested == own:
			path, plain = segs, true
		default:
			continue
		}
		v, ok := rt.match(path)
		if !ok {
			continue
		}
		if rt.call.route.HTTPMethod != r.Method {
			allow = append(allow, rt.call.route.HTTPMethod)
			continue
		}
		return rt.call, v, plain, nil
	}
	return nil, nil, false, allow
}

// serveAdapted serves an HTTP+JSON call of a VersionAdapter's route through
// the endpoint it maps onto, with the checks of the service's own routes.
func (h *restHandler) serveAdapted(w http.ResponseWriter, r *http.Request, accept string, call *adaptedCall, vars map[string]string, plain bool) {
	ep := call.ep
	rt := call.route
	info, e := h.cfg.newAdaptedCallInfo(BindingHTTPJSON, call.adapter, ep.Operation, fmt.Sprintf("route %s %s", r.Method, r.URL.EscapedPath()),
		r.Header, queryParam(r.URL.RawQuery, paramVersion))
	var (
		msg    proto.Message
		status int
		in     *AdaptedRequest
	)
	info.track()
	defer info.finish()
	ctx, e := h.cfg.authenticateHTTP(r, info, e)
	if e == nil {
		msg = ep.NewRequest()
		in = &AdaptedRequest{Vars: vars, Plain: plain}
		status, e = h.adaptedRequest(w, r, rt, in, info, msg)
	}
	if e != nil {
		if out := h.cfg.rejected(ctx, BindingHTTPJSON, ep, info, r.Header, msg, e); out != e {
			e, status = out, 0
		}
		if info == nil && e.code != CodeVersionNotSupported {
			e = adaptError(call.adapter, e, requestedVersion(r.Header, queryParam(r.URL.RawQuery, paramVersion)) != "")
		}
		h.writeError(w, status, accept, info, wireError(info, e))
		return
	}
	ctx = info.attach(ctx)
	encode := rt.Encode
	if in.Encode != nil {
		encode = in.Encode
	}
	if ep.IsStreaming() {
		h.cfg.serveSSE(ctx, w, ep, info, msg, &sseFraming{
			binding: BindingHTTPJSON,
			encode:  encode,
			event:   func(dst, resp []byte) []byte { return append(dst, resp...) },
			errorEvent: func(dst []byte, e *Error, now time.Time) []byte {
				e = wireError(info, e)
				return append(dst, marshalStatus(e, e.code.HTTPStatus(), now)...)
			},
			errorEventType: restErrorEventType(call.adapter),
			writeError: func(w http.ResponseWriter, info *CallInfo, e *Error) {
				h.writeError(w, 0, accept, info, wireError(info, e))
			},
		})
		return
	}
	h.serveAdaptedUnary(ctx, w, accept, call, encode, info, msg)
}

// adaptedRequest fills msg from an adapted route's request (in): the query,
// the body when the route has one, the adapter's decoding, then the checks
// of every binding. The status is the HTTP status to refuse it with (0: the
// error's own).
func (h *restHandler) adaptedRequest(w http.ResponseWriter, r *http.Request, rt *AdaptedRoute, in *AdaptedRequest, info *CallInfo, msg proto.Message) (int, *Error) {
	var e *Error
	if in.Query, e = parseAdaptedQuery(r.URL.RawQuery); e != nil {
		return 0, e
	}
	if rt.Body && r.ContentLength != 0 {
		var status int
		if in.Body, status, e = h.readJSONBody(w, r, MaxJSONDepth); e != nil {
			return status, e
		}
	}
	if e = decodeAdapted(func() error { return rt.Decode(in, msg) }); e != nil {
		return 0, e
	}
	return 0, h.cfg.checkRequest(h.svc, info, msg)
}

func (h *restHandler) serveAdaptedUnary(ctx context.Context, w http.ResponseWriter, accept string, call *adaptedCall, encode func(proto.Message) ([]byte, error), info *CallInfo, msg proto.Message) {
	resp, err := h.cfg.callUnary(ctx, call.ep, info, msg)
	if err != nil {
		h.writeError(w, 0, accept, info, wireError(info, h.cfg.handlerError(ctx, BindingHTTPJSON, call.ep, err)))
		return
	}
	body, err := encode(resp)
	if err != nil {
		h.writeError(w, 0, accept, info, wireError(info, h.cfg.handlerError(ctx, BindingHTTPJSON, call.ep,
			fmt.Errorf("encoding the A2A %s response: %w", call.adapter.Version, err))))
		return
	}
	writeBody(w, h.cfg.writeTimeout, http.StatusOK, accept, info, body)
}

// restErrorEventType is the SSE event type of the final error event of a
// stream of adapter a: "error" with RESTErrorCode, else none.
func restErrorEventType(a *VersionAdapter) string {
	if a.RESTErrorCode {
		return "error"
	}
	return ""
}

// parseAdaptedQuery parses a query string; a malformed one is InvalidRequest.
func parseAdaptedQuery(raw string) (url.Values, *Error) {
	if raw == "" {
		return url.Values{}, nil
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, Errorf(CodeInvalidRequest, "malformed query string: %w", err)
	}
	return q, nil
}
