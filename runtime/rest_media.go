package runtime

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Media types of the HTTP+JSON binding. A2A v1.0.1 (§11.1) says
// application/a2a+json SHOULD be used; v1.0.0 and the official Go SDK use
// application/json. Both are accepted on input.
const (
	mediaTypeJSON    = "application/json"
	mediaTypeA2AJSON = "application/a2a+json"
)

// acceptedRequestMediaTypes lists the media types a request body of the
// JSON-RPC and HTTP+JSON bindings may have. A 415 answer sends it in an
// Accept response header (RFC 9110 §12.5.1, §15.5.16).
const acceptedRequestMediaTypes = mediaTypeJSON + ", " + mediaTypeA2AJSON

// requestMediaTypeError checks the Content-Type of a request that carries a
// body: application/json or application/a2a+json, parameters such as charset
// ignored. A missing or other Content-Type is refused (nil means accepted):
// a browser sends a cross-site POST without a CORS preflight only with a
// form or text/plain Content-Type or none, so insisting on a JSON type keeps
// pages on other origins from calling the endpoint with the user's ambient
// credentials (cookies, client certificates). On refusal the Accept header
// of w names the accepted types; the caller answers 415.
func requestMediaTypeError(w http.ResponseWriter, ct string) *Error {
	if ct != "" && isJSONMediaType(ct) {
		return nil
	}
	w.Header().Set("Accept", acceptedRequestMediaTypes)
	if ct == "" {
		return NewError(CodeInvalidRequest, "the request body has no Content-Type; send application/json or application/a2a+json")
	}
	return NewError(CodeInvalidRequest, fmt.Sprintf("Content-Type %q is not accepted; send application/json or application/a2a+json", ct))
}

// responseMediaType picks the Content-Type of a JSON response:
// application/a2a+json when the request's Accept lists it (with a non-zero
// q), else application/json, which every client reads. An Accept that lists
// neither is not refused (no 406): the body is JSON either way.
func responseMediaType(accept string) string {
	for accept != "" {
		var item string
		item, accept, _ = strings.Cut(accept, ",")
		mt, params, _ := strings.Cut(item, ";")
		if !strings.EqualFold(strings.TrimSpace(mt), mediaTypeA2AJSON) {
			continue
		}
		if acceptsWithQ(params) {
			return mediaTypeA2AJSON
		}
	}
	return mediaTypeJSON
}

// acceptsWithQ reports whether the parameters of an Accept item leave its q
// above zero.
func acceptsWithQ(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err != nil || q > 0
		}
	}
	return true
}
