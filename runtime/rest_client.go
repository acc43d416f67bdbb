package runtime

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// NewRESTTransport returns a ClientTransport speaking the HTTP+JSON binding
// to the interface URL baseURL (AgentInterface.url of the HTTP+JSON entry);
// routes are appended to it ("http://host/a2a/rest" + "/message:send").
//
// Requests are built from the same compiled google.api.http rules the server
// routes with:
//
//   - The rule used is the one whose path variables the request can fill,
//     preferring the one that takes the most: with an interface tenant
//     (WithClientTenant, or the request's own tenant field) that is the
//     /{tenant} twin, so the tenant travels as the path prefix. Path values
//     are escaped with url.PathEscape.
//   - body "*" sends the request minus the fields in the path, as
//     application/json ProtoJSON; rules without a body (and GET/DELETE) send
//     the other fields as query parameters (JSON names, enums by name,
//     timestamps RFC 3339, repeated fields by repeating the key) and no body.
//   - Headers: A2A-Version, A2A-Extensions (one comma-joined header),
//     Accept: application/a2a+json, application/json (text/event-stream for
//     streams), and the WithHeader headers.
//   - verbOverrides decides the verbs tried: SubscribeToTask is sent as POST
//     and, when that answers 404 or 405 without an A2A error showing the
//     route exists (such as TASK_NOT_FOUND), once more as GET.
//
// Answers:
//
//   - Any 2xx is success; an empty body, null and {} decode as an empty
//     message (servers answer Delete with {} or nothing).
//   - Errors are decoded into *Error whatever their Content-Type: a
//     google.rpc.Status document by ErrorInfo reason, then gRPC status name,
//     then HTTP status; application/problem+json and text bodies by HTTP
//     status, keeping the detail or text as the message.
//   - Streams: a 200 text/event-stream of bare StreamResponse events; an
//     event {"error":{…}} ends the stream with that error (also when it is
//     the only event); a non-2xx answer before the stream is the error.
//
// Transport failures are returned wrapped with the method name, so
// errors.Is(err, context.Canceled) works. The transport is safe for
// concurrent use and never modifies the caller's request.
func NewRESTTransport(baseURL string, opts ...ClientOption) ClientTransport {
	t := &restTransport{base: strings.TrimRight(baseURL, "/"), cfg: newClientConfig(opts)}
	t.chains = t.cfg.newClientChains(BindingHTTPJSON, t.base, t.unary, t.stream)
	return t
}

type restTransport struct {
	base   string
	cfg    *clientConfig
	chains *clientChains // nil without interceptors
	plans  sync.Map      // *Operation → *restCallPlan
}

// restCallPlan is what the transport derives once per operation from its
// HTTP rules.
type restCallPlan struct {
	md      protoreflect.MessageDescriptor
	rules   []*restClientRule
	methods func(rule *restClientRule) []string
	retry   []int
}

// restClientRule is one compiled rule as the client uses it.
type restClientRule struct {
	rule      HTTPRule
	matcher   *pathMatcher
	vars      []fieldPath
	bodyField protoreflect.FieldDescriptor
	// skipQuery holds the dotted proto paths the query must not repeat:
	// the path variables' fields and the body field.
	skipQuery map[string]bool
	// tenantVar is the index of the variable bound to the top-level tenant
	// field, or -1.
	tenantVar int
	// method is {rule.Method}, the verbs to try by default.
	method []string
}

func (t *restTransport) plan(op *Operation, md protoreflect.MessageDescriptor) (*restCallPlan, error) {
	if v, ok := t.plans.Load(op); ok {
		if p := v.(*restCallPlan); p.md == md {
			return p, nil
		}
	}
	if len(op.HTTPRules) == 0 {
		return nil, NewError(CodeMethodNotFound, fmt.Sprintf(
			"%s has no google.api.http rule, so it cannot be called over HTTP+JSON; use another binding", op.Name))
	}
	p := &restCallPlan{md: md, methods: func(r *restClientRule) []string { return r.method }}
	if o := op.HTTPVerbs; o != nil && len(o.Client) > 0 {
		p.methods = func(*restClientRule) []string { return o.Client }
		p.retry = o.RetryStatuses
	}
	tenantFd := tenantField(md)
	for _, rule := range op.HTTPRules {
		m, err := compilePath(rule.Path)
		if err != nil {
			return nil, fmt.Errorf("a2a: HTTP+JSON %s: rule %s %s: %w", op.Name, rule.Method, rule.Path, err)
		}
		cr := &restClientRule{rule: rule, matcher: m, skipQuery: map[string]bool{}, tenantVar: -1, method: []string{rule.Method}}
		for i, v := range m.vars {
			fp, err := resolveFieldPath(md, v.name)
			if err != nil {
				return nil, fmt.Errorf("a2a: HTTP+JSON %s: rule %s %s: %w", op.Name, rule.Method, rule.Path, err)
			}
			cr.vars = append(cr.vars, fp)
			cr.skipQuery[v.name] = true
			if len(fp) == 1 && fp[0] == tenantFd {
				cr.tenantVar = i
			}
		}
		if rule.Body != "" && rule.Body != "*" {
			if cr.bodyField = md.Fields().ByName(protoreflect.Name(rule.Body)); cr.bodyField == nil {
				return nil, fmt.Errorf("a2a: HTTP+JSON %s: body %q names no field of %s", op.Name, rule.Body, md.FullName())
			}
			cr.skipQuery[rule.Body] = true
		}
		p.rules = append(p.rules, cr)
	}
	t.plans.Store(op, p)
	return p, nil
}

// restCall is one prepared call: the chosen rule, the path, and the message
// whose non-path fields make up the body or query.
type restCall struct {
	op      *Operation
	rule    *restClientRule
	path    []byte
	payload protoreflect.Message
	methods []string
	retry   []int
}

// prepare chooses the rule and renders the path of a call.
func (t *restTransport) prepare(op *Operation, req proto.Message) (*restCall, error) {
	if req == nil {
		return nil, fmt.Errorf("a2a: HTTP+JSON %s: nil request", op.Name)
	}
	rm := req.ProtoReflect()
	p, err := t.plan(op, rm.Descriptor())
	if err != nil {
		return nil, err
	}
	fillTenant := t.cfg.tenantToFill(req) != nil
	best, values, missing := t.chooseRule(p, rm, fillTenant)
	if best == nil {
		return nil, InvalidParams(fmt.Sprintf("%s: field %s is empty, but the HTTP+JSON path needs it", op.Name, missing),
			FieldViolation{Field: missing, Description: "required to build the request path"})
	}
	path, err := best.matcher.buildPath(append(make([]byte, 0, len(t.base)+64), t.base...), values)
	if err != nil {
		return nil, InvalidParams(fmt.Sprintf("%s: %v", op.Name, err))
	}
	payload := t.payloadOf(req, best, fillTenant)
	return &restCall{op: op, rule: best, path: path, payload: payload, methods: p.methods(best), retry: p.retry}, nil
}

// chooseRule picks the rule of p whose path can be built from rm and has
// the most variables, with their values; when none can, missing names the
// first field a path needs that rm leaves empty.
func (t *restTransport) chooseRule(p *restCallPlan, rm protoreflect.Message, fillTenant bool) (best *restClientRule, values []string, missing string) {
	var scratch [4]string // the values of a rule being looked at; the best's are copied
	for _, cr := range p.rules {
		var candidate []string
		if len(cr.vars) <= len(scratch) {
			candidate = scratch[:len(cr.vars)]
		} else {
			candidate = make([]string, len(cr.vars))
		}
		empty := t.pathValues(cr, rm, fillTenant, candidate)
		if empty != "" {
			missing = cmp.Or(missing, empty)
			continue
		}
		if best == nil || len(cr.vars) > len(best.vars) {
			best, values = cr, append([]string(nil), candidate...)
		}
	}
	return best, values, missing
}

// pathValues fills values with the path variables of cr taken from rm (the
// interface tenant for the tenant variable when fillTenant); it returns the
// JSON path of the first one that is empty where the path needs a value,
// or "".
func (t *restTransport) pathValues(cr *restClientRule, rm protoreflect.Message, fillTenant bool, values []string) string {
	clear(values)
	for i, fp := range cr.vars {
		if i == cr.tenantVar && fillTenant {
			values[i] = t.cfg.tenant
			continue
		}
		if v, set := fp.get(rm); set {
			values[i] = formatScalar(fp[len(fp)-1], v)
		}
		if values[i] == "" && cr.matcher.kinds[cr.matcher.vars[i].start] != matchRest {
			return fp.jsonPath()
		}
	}
	return ""
}

// payloadOf is the message whose fields the body or query carries: req
// without the fields in the path, with the interface tenant when the path
// does not carry it — on a copy, so that the caller's message is left
// alone, and req itself when nothing changes.
func (t *restTransport) payloadOf(req proto.Message, best *restClientRule, fillTenant bool) protoreflect.Message {
	rm := req.ProtoReflect()
	mustCopy := fillTenant && best.tenantVar < 0
	for i, fp := range best.vars {
		if _, set := fp.get(rm); set && !(i == best.tenantVar && fillTenant) {
			mustCopy = true
		}
	}
	if !mustCopy {
		return rm
	}
	payload := proto.Clone(req).ProtoReflect()
	for _, fp := range best.vars {
		fp.clear(payload)
	}
	if fillTenant && best.tenantVar < 0 {
		SetTenant(payload.Interface(), t.cfg.tenant)
	}
	return payload
}

// encode returns the URL and body of the call sent with method.
func (c *restCall) encode(method string) (string, []byte, error) {
	rule := c.rule.rule
	bodyless := rule.Body == "" || method == http.MethodGet || method == http.MethodDelete
	url := c.path
	var body []byte
	if bodyless || rule.Body != "*" {
		skip := c.rule.skipQuery
		if bodyless && c.rule.bodyField != nil {
			skip = withoutKey(skip, rule.Body)
		}
		q, err := appendQuery(nil, c.payload, skip)
		if err != nil {
			return "", nil, InvalidParams(fmt.Sprintf("%s: %v", c.op.Name, err))
		}
		if len(q) > 0 {
			url = append(append(slices.Clip(url), '?'), q...)
		}
	}
	if bodyless {
		return string(url), nil, nil
	}
	var err error
	if rule.Body == "*" {
		body, err = marshalJSON(c.payload.Interface(), false)
	} else {
		body, err = marshalBodyField(c.payload, c.rule.bodyField)
	}
	if err != nil {
		return "", nil, fmt.Errorf("a2a: HTTP+JSON %s: encoding the request: %w", c.op.Name, err)
	}
	return string(url), body, nil
}

// withoutKey returns a copy of m without key.
func withoutKey(m map[string]bool, key string) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// marshalBodyField encodes the value of one field as the body (a rule with
// body: "<field>"): the ProtoJSON of the field's value, {} when unset.
func marshalBodyField(m protoreflect.Message, fd protoreflect.FieldDescriptor) ([]byte, error) {
	only := m.New()
	if m.Has(fd) {
		only.Set(fd, m.Get(fd))
	}
	doc, err := marshalJSON(only.Interface(), false)
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(doc, &members); err != nil {
		return nil, err
	}
	if v, ok := members[fd.JSONName()]; ok {
		return v, nil
	}
	return []byte("{}"), nil
}

// send performs the call, trying each verb of c.methods in turn while the
// answer says the route is missing or refuses the verb.
func (t *restTransport) send(ctx context.Context, c *restCall, accept string) (*http.Response, error) {
	for i, method := range c.methods {
		url, body, err := c.encode(method)
		if err != nil {
			return nil, err
		}
		hresp, err := t.do(ctx, c.op, method, url, body, accept)
		if err != nil {
			return nil, err
		}
		if i == len(c.methods)-1 || !slices.Contains(c.retry, hresp.StatusCode) {
			return hresp, nil
		}
		raw, err := readResponseBody(hresp, t.cfg.maxResponseBytes)
		hresp.Body.Close()
		if err == nil && routeExists(raw) {
			return nil, decodeRESTError(hresp.StatusCode, hresp.Status, raw)
		}
	}
	return nil, fmt.Errorf("a2a: HTTP+JSON %s: no HTTP method to try", c.op.Name) // c.methods is never empty
}

// routeExists reports whether an error body carries an A2A ErrorInfo
// reason other than METHOD_NOT_FOUND: the route was found and the error is
// the call's own (a missing task, say), so another verb would not help.
func routeExists(body []byte) bool {
	var doc restErrorBody
	if json.Unmarshal(body, &doc) != nil || len(doc.Error) == 0 {
		return false
	}
	var st restStatusBody
	if json.Unmarshal(doc.Error, &st) != nil {
		return false
	}
	d := decodeErrorDetails(st.Details)
	return d.reason != "" && (d.domain == "" || d.domain == ErrorDomain) && d.reason != CodeMethodNotFound.Reason()
}

func (t *restTransport) do(ctx context.Context, op *Operation, method, url string, body []byte, accept string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("a2a: HTTP+JSON %s: %w", op.Name, err)
	}
	if body != nil {
		setTwoHeaders(hreq.Header, "Content-Type", mediaTypeJSON, "Accept", accept)
	} else {
		hreq.Header.Set("Accept", accept)
	}
	t.cfg.sendHeaders(ctx, hreq.Header)
	hresp, err := t.cfg.httpClient.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("a2a: HTTP+JSON %s: %w", op.Name, err)
	}
	recordResponseHeader(ctx, hresp.Header)
	return hresp, nil
}

// acceptJSON is the Accept header of unary calls.
const acceptJSON = mediaTypeA2AJSON + ", " + mediaTypeJSON

// Unary implements ClientTransport.
func (t *restTransport) Unary(ctx context.Context, op *Operation, req, resp proto.Message) error {
	if t.chains != nil {
		return t.cfg.interceptUnary(ctx, t.chains, op, req, resp)
	}
	return t.unary(ctx, op, req, resp)
}

func (t *restTransport) unary(ctx context.Context, op *Operation, req, resp proto.Message) (err error) {
	defer func() { err = callerContextError(ctx, BindingHTTPJSON, op, err) }()
	c, err := t.prepare(op, req)
	if err != nil {
		return err
	}
	hresp, err := t.send(ctx, c, acceptJSON)
	if err != nil {
		return err
	}
	defer hresp.Body.Close()
	raw, err := readResponseBody(hresp, t.cfg.maxResponseBytes)
	if err != nil {
		return fmt.Errorf("a2a: HTTP+JSON %s: reading the response: %w", op.Name, err)
	}
	recordResponseTrailer(ctx, hresp.Trailer)
	if e := responseDepthError(raw); e != nil {
		return e
	}
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		return withResponseChallenges(decodeRESTError(hresp.StatusCode, hresp.Status, raw), hresp.Header)
	}
	proto.Reset(resp)
	if isEmptyJSON(raw) {
		return nil
	}
	if err := unmarshalJSON(raw, resp); err != nil {
		return Errorf(CodeInvalidAgentResponse, "the %s response (Content-Type %q) does not decode: %w",
			op.Name, hresp.Header.Get("Content-Type"), err)
	}
	return nil
}

// Stream implements ClientTransport.
func (t *restTransport) Stream(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return t.cfg.resumable(ctx, op, req, newResp, t)
}

// streamOnce opens one stream of op, through the interceptors.
func (t *restTransport) streamOnce(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	if t.chains != nil {
		return t.cfg.interceptStream(ctx, t.chains, op, req, newResp)
	}
	return t.stream(ctx, op, req, newResp)
}

func (t *restTransport) stream(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		yield = callerContextYield(ctx, BindingHTTPJSON, op, yield)
		c, err := t.prepare(op, req)
		if err != nil {
			yield(nil, err)
			return
		}
		hresp, err := t.send(ctx, c, sseContentType)
		if err != nil {
			yield(nil, err)
			return
		}
		// Closing the body before its end drops the connection, which is
		// how the server learns that the client stopped listening.
		defer hresp.Body.Close()

		mediaType, _, _ := mime.ParseMediaType(hresp.Header.Get("Content-Type"))
		if hresp.StatusCode < 200 || hresp.StatusCode > 299 || mediaType != sseContentType {
			yield(nil, t.nonStreamAnswer(op, hresp))
			return
		}
		defer func() { recordResponseTrailer(ctx, hresp.Trailer) }()
		readSSEEvents(ctx, hresp.Body, t.cfg.maxResponseBytes, BindingHTTPJSON, op, yield, func(data []byte) (proto.Message, error) {
			if e := responseDepthError(data); e != nil {
				return nil, e
			}
			m := newResp()
			if err := unmarshalJSON(data, m); err != nil {
				return nil, Errorf(CodeInvalidAgentResponse, "a %s stream event does not decode: %w", op.Name, err)
			}
			if isEmptyMessage(m) {
				// Either an event with nothing in it or {"error":{…}}: the
				// error member is unknown to the response type, so it
				// decoded to an empty message.
				if e := decodeErrorEvent(data); e != nil {
					return nil, e
				}
			}
			return m, nil
		})
	}
}

// nonStreamAnswer is the error to report for a stream request answered with
// something other than a 2xx SSE response: usually an error sent before the
// stream began.
func (t *restTransport) nonStreamAnswer(op *Operation, hresp *http.Response) error {
	raw, err := readResponseBody(hresp, t.cfg.maxResponseBytes)
	if err != nil {
		return fmt.Errorf("a2a: HTTP+JSON %s: reading the response: %w", op.Name, err)
	}
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		return withResponseChallenges(decodeRESTError(hresp.StatusCode, hresp.Status, raw), hresp.Header)
	}
	if e := decodeErrorEvent(raw); e != nil {
		return e
	}
	return Errorf(CodeInvalidAgentResponse, "%s answered with Content-Type %q instead of an event stream: %s",
		op.Name, hresp.Header.Get("Content-Type"), snippet(raw, 200))
}

// decodeErrorEvent returns the error of a {"error":{…Status…}} document, or
// nil when doc has no error member.
func decodeErrorEvent(doc []byte) *Error {
	var b restErrorBody
	if json.Unmarshal(doc, &b) != nil {
		return nil
	}
	return decodeStatusMember(http.StatusInternalServerError, b.Error)
}

// isEmptyMessage reports whether m has no field set.
func isEmptyMessage(m proto.Message) bool {
	rm := m.ProtoReflect()
	md := rm.Descriptor()
	if md.ExtensionRanges().Len() > 0 { // extensions are only seen by Range
		empty := true
		rm.Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool {
			empty = false
			return false
		})
		return empty
	}
	fields := md.Fields() // a loop instead of Range, whose closure would be allocated per event
	for i := range fields.Len() {
		if rm.Has(fields.Get(i)) {
			return false
		}
	}
	return true
}
