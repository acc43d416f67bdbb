package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsonrpcVersion is the only value of the envelope's "jsonrpc" member.
const jsonrpcVersion = "2.0"

// Raw JSON fragments used when writing envelopes.
var (
	jsonNull        = []byte("null")
	jsonEmptyObject = []byte("{}")
)

// envelope holds the raw values of the members of a JSON-RPC request or
// response object. A member that is absent is nil; a member present as null
// holds the four bytes "null". The slices alias the scanned document.
type envelope struct {
	jsonrpc []byte
	id      []byte
	method  []byte
	params  []byte
	result  []byte
	error   []byte

	// duplicate names the first envelope member that occurred twice; a
	// request with two ids or two methods is ambiguous and is refused.
	duplicate string
}

// scanEnvelope collects the top-level members of a JSON object. doc must be
// valid JSON (json.Valid) whose first non-space byte is '{'. Member names are
// matched case-sensitively, as JSON-RPC requires (encoding/json would fold
// case and take "ID" for "id"); other members are ignored.
func scanEnvelope(doc []byte) (envelope, error) {
	var env envelope
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return env, errors.New("not a JSON object")
	}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return env, nil
	}
	for i < len(doc) {
		key, val, end, err := scanMember(doc, i)
		if err != nil {
			return env, err
		}
		env.set(key, val)
		i = skipSpace(doc, end)
		if i >= len(doc) {
			break
		}
		switch doc[i] {
		case ',':
			i = skipSpace(doc, i+1)
		case '}':
			return env, nil
		default:
			return env, fmt.Errorf("expected ',' or '}' at offset %d", i)
		}
	}
	return env, errors.New("unterminated JSON object")
}

// scanMember reads the member `"name": value` that starts at doc[i]: its
// name, its raw value, and the offset just past the value.
func scanMember(doc []byte, i int) (key, val []byte, end int, err error) {
	if doc[i] != '"' {
		return nil, nil, 0, fmt.Errorf("expected a member name at offset %d", i)
	}
	keyEnd, err := skipString(doc, i)
	if err != nil {
		return nil, nil, 0, err
	}
	if key, err = memberName(doc[i:keyEnd], i); err != nil {
		return nil, nil, 0, err
	}
	i = skipSpace(doc, keyEnd)
	if i >= len(doc) || doc[i] != ':' {
		return nil, nil, 0, fmt.Errorf("expected ':' at offset %d", i)
	}
	i = skipSpace(doc, i+1)
	if end, err = skipValue(doc, i); err != nil {
		return nil, nil, 0, err
	}
	return key, doc[i:end], end, nil
}

// memberName is the name a quoted member name (at offset in the document)
// stands for: the bytes between the quotes, unescaped when they hold an
// escape.
func memberName(quoted []byte, offset int) ([]byte, error) {
	key := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(key, '\\') < 0 {
		return key, nil
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return nil, fmt.Errorf("member name at offset %d: %w", offset, err)
	}
	return []byte(s), nil
}

// set records one member; the switch on string(key) does not allocate.
func (env *envelope) set(key, val []byte) {
	var slot *[]byte
	switch string(key) {
	case "jsonrpc":
		slot = &env.jsonrpc
	case "id":
		slot = &env.id
	case "method":
		slot = &env.method
	case "params":
		slot = &env.params
	case "result":
		slot = &env.result
	case "error":
		slot = &env.error
	default:
		return
	}
	if *slot != nil && env.duplicate == "" {
		env.duplicate = string(key)
	}
	*slot = val
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the offset just past the JSON string starting at b[i].
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated string at offset %d", i)
}

// skipValue returns the offset just past the JSON value starting at b[i]. It
// relies on the document having been validated and only finds the value's
// end: strings are skipped as a unit, brackets are counted.
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("unexpected end of JSON input")
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, fmt.Errorf("unterminated value at offset %d", i)
	default: // number, true, false, null
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j, nil
			}
			j++
		}
		return j, nil
	}
}

// jsonKind names the kind of a raw JSON value for error messages.
func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// jsonString decodes a raw JSON string value; ok is false when v is not one.
// Strings without escapes are converted directly.
func jsonString(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// isJSONVersion reports whether v is the JSON string "2.0" (in any escaping).
func isJSONVersion(v []byte) bool {
	if string(v) == `"2.0"` {
		return true
	}
	s, ok := jsonString(v)
	return ok && s == jsonrpcVersion
}

// MaxJSONRPCIDBytes bounds the id of a JSON-RPC request, measured as sent
// (quotes and escapes included). The server repeats the id in its answer and in
// every event of a stream, so a longer id is refused with InvalidRequest
// (-32600) and id null.
const MaxJSONRPCIDBytes = 256

// validID reports whether a raw id may be echoed: JSON-RPC allows a string, a
// number or null. Anything else (object, array, boolean) is refused.
func validID(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return string(id) == "null"
}

// rpcRequest is a decoded JSON-RPC request envelope.
type rpcRequest struct {
	// id is the raw id, echoed verbatim in the answer; "null" when the
	// request had none (a notification) or an id that could not be echoed.
	id []byte
	// method is the raw method value (a JSON string).
	method []byte
	// params is the raw params object; {} when absent or null.
	params []byte
}

// parseRequest decodes a JSON-RPC request envelope. On failure it returns the
// error to send together with the id to echo: the request's id when it was
// valid, null otherwise (JSON-RPC 2.0 §5).
func parseRequest(body []byte) (rpcRequest, *Error) {
	req := rpcRequest{id: jsonNull}
	doc := bytes.TrimLeft(body, " \t\r\n")
	if e := checkRequestDocument(doc); e != nil {
		return req, e
	}
	env, err := scanEnvelope(doc)
	if err != nil { // unreachable for valid JSON; kept as a guard
		return req, NewError(CodeParseError, "invalid JSON payload: "+err.Error())
	}
	if env.duplicate != "" {
		return req, NewError(CodeInvalidRequest, fmt.Sprintf("the request has more than one %q member", env.duplicate))
	}
	if env.id != nil {
		if e := checkRequestID(env.id); e != nil {
			return req, e
		}
		req.id = env.id
	}
	if e := checkVersionAndMethod(env); e != nil {
		return req, e
	}
	req.method = env.method
	switch {
	case env.params == nil || string(env.params) == "null":
		req.params = jsonEmptyObject
	case env.params[0] == '{':
		req.params = env.params
	default:
		return req, NewError(CodeInvalidParams, `"params" must be a JSON object holding the request message, got `+jsonKind(env.params))
	}
	return req, nil
}

// checkRequestDocument refuses a request body (white space trimmed in
// front) that is not one JSON object within the limits.
func checkRequestDocument(doc []byte) *Error {
	if len(doc) == 0 {
		return NewError(CodeParseError, "invalid JSON payload: the request body is empty")
	}
	// The params object is one level inside the envelope. Checked before
	// json.Valid, so a deep document costs one pass up to its limit.
	if !jsonDepthWithin(doc, MaxJSONDepth+1) {
		return depthExceeded()
	}
	if !jsonValuesWithin(doc, MaxJSONValues) {
		return valuesExceeded()
	}
	if !json.Valid(doc) {
		return NewError(CodeParseError, "invalid JSON payload: "+syntaxErrorText(doc))
	}
	switch doc[0] {
	case '{':
		return nil
	case '[':
		return NewError(CodeInvalidRequest, "batch requests are not supported: send one JSON-RPC request object per HTTP request")
	}
	return NewError(CodeInvalidRequest, "a JSON-RPC request must be a JSON object, got "+jsonKind(doc))
}

// checkRequestID refuses an id that is not a string, a number or null,
// is too long or is not UTF-8.
func checkRequestID(id []byte) *Error {
	switch {
	case !validID(id):
		return NewError(CodeInvalidRequest, `"id" must be a string, a number or null, got `+jsonKind(id))
	case len(id) > MaxJSONRPCIDBytes:
		return limitExceeded("MaxJSONRPCIDBytes",
			fmt.Sprintf(`"id" is %d bytes, over the limit of %d bytes (MaxJSONRPCIDBytes)`, len(id), MaxJSONRPCIDBytes),
			MaxJSONRPCIDBytes)
	case !utf8.Valid(id):
		return NewError(CodeInvalidRequest, `"id" is not valid UTF-8`)
	}
	return nil
}

// checkVersionAndMethod refuses an envelope without "jsonrpc": "2.0" or
// without a method name.
func checkVersionAndMethod(env envelope) *Error {
	switch {
	case env.jsonrpc == nil:
		return NewError(CodeInvalidRequest, `the "jsonrpc" member is missing; it must be "2.0"`)
	case !isJSONVersion(env.jsonrpc):
		return NewError(CodeInvalidRequest, `"jsonrpc" must be "2.0", got `+snippet(env.jsonrpc, 40))
	case env.method == nil:
		return NewError(CodeInvalidRequest, `the "method" member is missing`)
	case env.method[0] != '"':
		return NewError(CodeInvalidRequest, `"method" must be a string, got `+jsonKind(env.method))
	case len(env.method) == 2:
		return NewError(CodeInvalidRequest, `"method" must not be empty`)
	}
	return nil
}

// syntaxErrorText describes why doc is not valid JSON, with the offset.
func syntaxErrorText(doc []byte) string {
	var v any
	err := json.Unmarshal(doc, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error() + " at offset " + strconv.FormatInt(se.Offset, 10)
	}
	if err != nil {
		return err.Error()
	}
	return "malformed JSON"
}

// snippet returns at most n bytes of b for an error message.
func snippet(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// closingBrace ends an envelope started by appendResultHead.
var closingBrace = []byte("}")

// resultHeadStart and resultHeadEnd surround the id in a result envelope's
// head (appendResultHead), for writing it in parts without building it.
var (
	resultHeadStart = []byte(`{"jsonrpc":"2.0","id":`)
	resultHeadEnd   = []byte(`,"result":`)
)

// appendResultHead appends {"jsonrpc":"2.0","id":<id>,"result": — the
// envelope up to its result; the result and closingBrace follow.
func appendResultHead(dst, id []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	return append(dst, `,"result":`...)
}

// appendResultResponse appends {"jsonrpc":"2.0","id":<id>,"result":<result>}.
// id and result are raw JSON and are copied without re-encoding.
func appendResultResponse(dst, id, result []byte) []byte {
	dst = appendResultHead(dst, id)
	dst = append(dst, result...)
	return append(dst, '}')
}

// appendErrorResponse appends {"jsonrpc":"2.0","id":<id>,"error":<error>}.
func appendErrorResponse(dst, id, errObj []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"error":`...)
	dst = append(dst, errObj...)
	return append(dst, '}')
}
