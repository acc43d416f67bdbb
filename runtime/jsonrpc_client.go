package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// NewJSONRPCTransport returns a ClientTransport speaking the JSON-RPC 2.0
// binding to the interface URL url (AgentInterface.url of the JSONRPC entry).
//
// Every call is one POST carrying {"jsonrpc":"2.0","id":"<n>","method":
// "<rpc name>","params":<request>}, with A2A-Version and, when configured,
// one comma-joined A2A-Extensions header. The transport decodes:
//
//   - JSON-RPC errors into *Error, by ErrorInfo reason first, then by code,
//     keeping message, ErrorInfo metadata (including the server's timestamp)
//     and BadRequest field violations;
//   - a missing, null or {} result as an empty response (the official SDK
//     omits the result of DeleteTaskPushNotificationConfig);
//   - non-200 answers: a JSON-RPC error body is decoded as such; otherwise the
//     status decides (401 Unauthenticated, 403 Unauthorized, 405/501
//     MethodNotFound, 400/413/415 InvalidRequest, anything else Internal — on
//     this binding the status describes the HTTP exchange, so a 404 means a
//     wrong URL rather than a missing task) with the status and a body
//     snippet in the message;
//   - answers that break the protocol (not JSON, wrong id, undecodable
//     result) as InvalidAgentResponse.
//
// Transport failures (connection refused, context cancelled) are returned as
// they are, wrapped with the method name, so errors.Is(err,
// context.Canceled) works. The transport is safe for concurrent use.
func NewJSONRPCTransport(url string, opts ...ClientOption) ClientTransport {
	t := &jsonrpcTransport{url: url, cfg: newClientConfig(opts)}
	t.chains = t.cfg.newClientChains(BindingJSONRPC, url, t.unary, t.stream)
	return t
}

type jsonrpcTransport struct {
	url    string
	cfg    *clientConfig
	chains *clientChains // nil without interceptors
	lastID atomic.Uint64
}

// Unary implements ClientTransport.
func (t *jsonrpcTransport) Unary(ctx context.Context, op *Operation, req, resp proto.Message) error {
	if t.chains != nil {
		return t.cfg.interceptUnary(ctx, t.chains, op, req, resp)
	}
	return t.unary(ctx, op, req, resp)
}

func (t *jsonrpcTransport) unary(ctx context.Context, op *Operation, req, resp proto.Message) (err error) {
	defer func() { err = callerContextError(ctx, BindingJSONRPC, op, err) }()
	id, body, err := t.encodeRequest(op, req)
	if err != nil {
		return err
	}
	hresp, err := t.post(ctx, op, body, "application/json")
	if err != nil {
		return err
	}
	defer hresp.Body.Close()
	raw, err := readResponseBody(hresp, t.cfg.maxResponseBytes)
	if err != nil {
		return fmt.Errorf("a2a: JSON-RPC %s: reading the response: %w", op.Name, err)
	}
	recordResponseTrailer(ctx, hresp.Trailer)
	if hresp.StatusCode != http.StatusOK {
		return statusError(hresp, raw)
	}
	result, err := decodeResponse(raw, id)
	if err != nil {
		return err
	}
	proto.Reset(resp)
	if result == nil || string(result) == "null" {
		return nil
	}
	if err := unmarshalJSON(result, resp); err != nil {
		return Errorf(CodeInvalidAgentResponse, "the %s result does not decode: %w", op.Name, err)
	}
	return nil
}

// Stream implements ClientTransport. The answer may be an SSE stream of
// JSON-RPC responses or, for errors the server detects before streaming, a
// single application/json JSON-RPC error; both are handled.
func (t *jsonrpcTransport) Stream(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return t.cfg.resumable(ctx, op, req, newResp, t)
}

// streamOnce opens one stream of op, through the interceptors.
func (t *jsonrpcTransport) streamOnce(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	if t.chains != nil {
		return t.cfg.interceptStream(ctx, t.chains, op, req, newResp)
	}
	return t.stream(ctx, op, req, newResp)
}

func (t *jsonrpcTransport) stream(ctx context.Context, op *Operation, req proto.Message, newResp func() proto.Message) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		yield = callerContextYield(ctx, BindingJSONRPC, op, yield)
		id, body, err := t.encodeRequest(op, req)
		if err != nil {
			yield(nil, err)
			return
		}
		hresp, err := t.post(ctx, op, body, sseContentType)
		if err != nil {
			yield(nil, err)
			return
		}
		// Closing the body before its end drops the connection, which is
		// how the server learns that the client stopped listening.
		defer hresp.Body.Close()

		mediaType, _, _ := mime.ParseMediaType(hresp.Header.Get("Content-Type"))
		if hresp.StatusCode != http.StatusOK || mediaType != sseContentType {
			yield(nil, t.nonStreamAnswer(op, hresp, id))
			return
		}
		defer func() { recordResponseTrailer(ctx, hresp.Trailer) }()
		readSSEEvents(ctx, hresp.Body, t.cfg.maxResponseBytes, BindingJSONRPC, op, yield, func(data []byte) (proto.Message, error) {
			result, err := decodeResponse(data, id)
			if err != nil {
				return nil, err
			}
			if result == nil || string(result) == "null" {
				return nil, Errorf(CodeInvalidAgentResponse, "a %s stream event has neither result nor error", op.Name)
			}
			m := newResp()
			if err := unmarshalJSON(result, m); err != nil {
				return nil, Errorf(CodeInvalidAgentResponse, "a %s stream event does not decode: %w", op.Name, err)
			}
			return m, nil
		})
	}
}

// nonStreamAnswer is the error to report for a stream request answered with
// something other than a 200 SSE response: usually a JSON-RPC error sent
// before the stream began.
func (t *jsonrpcTransport) nonStreamAnswer(op *Operation, hresp *http.Response, id string) error {
	raw, err := readResponseBody(hresp, t.cfg.maxResponseBytes)
	if err != nil {
		return fmt.Errorf("a2a: JSON-RPC %s: reading the response: %w", op.Name, err)
	}
	if hresp.StatusCode != http.StatusOK {
		return statusError(hresp, raw)
	}
	if _, err := decodeResponse(raw, id); err != nil {
		return err
	}
	return Errorf(CodeInvalidAgentResponse, "%s answered with a single result (Content-Type %q) instead of an event stream",
		op.Name, hresp.Header.Get("Content-Type"))
}

// encodeRequest builds the request body and returns it with its id.
func (t *jsonrpcTransport) encodeRequest(op *Operation, req proto.Message) (string, []byte, error) {
	params, err := t.marshalParams(req)
	if err != nil {
		return "", nil, fmt.Errorf("a2a: JSON-RPC %s: encoding the request: %w", op.Name, err)
	}
	id := strconv.FormatUint(t.lastID.Add(1), 10)
	body := make([]byte, 0, len(params)+len(op.JSONRPCName())+len(id)+48)
	body = append(body, `{"jsonrpc":"2.0","id":"`...)
	body = append(body, id...)
	body = append(body, `","method":`...)
	body = appendJSONString(body, op.JSONRPCName())
	body = append(body, `,"params":`...)
	body = append(body, params...)
	body = append(body, '}')
	return id, body, nil
}

// marshalParams encodes req as the params object, adding the configured
// tenant when req has an empty tenant field. The caller's message is not
// modified: the member is spliced into the encoded object (protojson omits
// the empty field, so it cannot appear twice), or, for a tenant field with
// explicit presence set to "", a clone is encoded.
func (t *jsonrpcTransport) marshalParams(req proto.Message) ([]byte, error) {
	if req == nil {
		return []byte("{}"), nil
	}
	fd := t.cfg.tenantToFill(req)
	if fd != nil && req.ProtoReflect().Has(fd) {
		req = proto.Clone(req)
		req.ProtoReflect().Set(fd, protoreflect.ValueOfString(t.cfg.tenant))
		fd = nil
	}
	params, err := marshalJSON(req, false)
	if err != nil {
		return nil, err
	}
	params = bytes.TrimSpace(params)
	if len(params) == 0 {
		params = []byte("{}")
	}
	if fd == nil {
		return params, nil
	}
	if params[0] != '{' {
		return nil, fmt.Errorf("cannot add the tenant to params %s", snippet(params, 40))
	}
	out := make([]byte, 0, len(params)+len(t.cfg.tenant)+16)
	out = append(out, '{')
	out = appendJSONString(out, fd.JSONName())
	out = append(out, ':')
	out = appendJSONString(out, t.cfg.tenant)
	if rest := bytes.TrimLeft(params[1:], " \t\r\n"); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, params[1:]...), nil
}

func (t *jsonrpcTransport) post(ctx context.Context, op *Operation, body []byte, accept string) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("a2a: JSON-RPC %s: %w", op.Name, err)
	}
	setTwoHeaders(hreq.Header, "Content-Type", "application/json", "Accept", accept)
	t.cfg.sendHeaders(ctx, hreq.Header)
	hresp, err := t.cfg.httpClient.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("a2a: JSON-RPC %s: %w", op.Name, err)
	}
	recordResponseHeader(ctx, hresp.Header)
	return hresp, nil
}

// readResponseBody reads a whole response body of at most limit bytes: in
// one allocation when its length is announced (readLimited otherwise).
func readResponseBody(hresp *http.Response, limit int64) ([]byte, error) {
	n := hresp.ContentLength
	if n < 0 || n > limit {
		return readLimited(hresp.Body, limit)
	}
	buf := make([]byte, n+1) // one more byte: a body longer than announced
	m, err := io.ReadFull(hresp.Body, buf)
	switch {
	case err == nil: // longer than announced: the rest, under the limit
		rest, err := io.ReadAll(io.LimitReader(hresp.Body, limit-int64(m)+1))
		if err != nil {
			return nil, err
		}
		if b := append(buf, rest...); int64(len(b)) <= limit {
			return b, nil
		}
		return nil, errResponseTooLarge(limit)
	case int64(m) == n && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)):
		return buf[:m], nil
	default:
		return nil, err
	}
}

// readLimited reads a whole body of at most limit bytes.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errResponseTooLarge(limit)
	}
	return b, nil
}

func errResponseTooLarge(limit int64) error {
	return Errorf(CodeInvalidAgentResponse, "the response is larger than the limit of %d bytes", limit)
}

// decodeResponse checks a JSON-RPC response against the request id and
// returns its raw result (nil when absent), or the error it carries.
func decodeResponse(raw []byte, id string) ([]byte, error) {
	doc := bytes.TrimLeft(raw, " \t\r\n")
	if len(doc) == 0 {
		return nil, NewError(CodeInvalidAgentResponse, "the JSON-RPC response is empty")
	}
	if e := responseDepthError(doc); e != nil {
		return nil, e
	}
	if !json.Valid(doc) || doc[0] != '{' {
		return nil, NewError(CodeInvalidAgentResponse, "the JSON-RPC response is not a JSON object: "+snippet(doc, 200))
	}
	env, err := scanEnvelope(doc)
	if err != nil {
		return nil, Errorf(CodeInvalidAgentResponse, "malformed JSON-RPC response: %w", err)
	}
	if !isJSONVersion(env.jsonrpc) {
		return nil, NewError(CodeInvalidAgentResponse, `the JSON-RPC response lacks "jsonrpc":"2.0": `+snippet(doc, 200))
	}
	gotID, isString := jsonString(env.id)
	if env.error != nil && string(env.error) != "null" {
		// A server that could not read the request answers with id null.
		if env.id != nil && string(env.id) != "null" && (!isString || gotID != id) {
			return nil, NewError(CodeInvalidAgentResponse, fmt.Sprintf("the JSON-RPC error response has id %s, want %q", snippet(env.id, 40), id))
		}
		return nil, decodeJSONRPCError(env.error)
	}
	if !isString || gotID != id {
		return nil, NewError(CodeInvalidAgentResponse, fmt.Sprintf("the JSON-RPC response has id %s, want %q", snippet(env.id, 40), id))
	}
	return env.result, nil
}

// statusError reports a non-200 answer: a JSON-RPC error body is decoded,
// anything else becomes an error chosen by the HTTP status.
func statusError(hresp *http.Response, body []byte) error {
	return withResponseChallenges(statusErrorBody(hresp, body), hresp.Header)
}

// statusErrorBody is statusError without the challenges.
func statusErrorBody(hresp *http.Response, body []byte) error {
	if isJSONMediaType(hresp.Header.Get("Content-Type")) && len(body) > 0 {
		if doc := bytes.TrimLeft(body, " \t\r\n"); len(doc) > 0 && doc[0] == '{' && json.Valid(doc) {
			if env, err := scanEnvelope(doc); err == nil && env.error != nil && string(env.error) != "null" {
				return decodeJSONRPCError(env.error)
			}
		}
	}
	var code ErrorCode
	switch s := hresp.StatusCode; s {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		code = CodeFromHTTPStatus(s)
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		code = CodeInvalidRequest
	default:
		code = CodeInternal
	}
	msg := "HTTP " + hresp.Status
	if text := strings.TrimSpace(string(body)); text != "" {
		msg += ": " + snippet([]byte(text), 200)
	}
	return NewError(code, msg)
}
