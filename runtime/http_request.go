package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"google.golang.org/protobuf/proto"
)

// The steps of serving an HTTP call that the JSON-RPC and HTTP+JSON
// bindings share, for their own endpoints and a VersionAdapter's alike:
// reading the body under the size limit, authenticating the caller, and
// checking the decoded request.

// readBody reads the whole request body, at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		// Announced too large: refused without reading a byte of it.
		return nil, &http.MaxBytesError{Limit: limit}
	}
	if n := r.ContentLength; n >= 0 && n <= limit {
		// Known length: one allocation (plus one byte to see the end),
		// and no limiting reader, which only a body longer than announced
		// needs.
		buf := make([]byte, n+1)
		m, err := io.ReadFull(r.Body, buf)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return buf[:m], nil
		}
		if err != nil {
			return nil, err
		}
		// The body is longer than announced: read it all again under the
		// limit, the bytes already read first.
		return io.ReadAll(http.MaxBytesReader(w, io.NopCloser(io.MultiReader(bytes.NewReader(buf), r.Body)), limit))
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// bodyError is the refusal of a request body readBody could not read:
// tooLarge when it went over the limit (which the message names), else the
// body broke off. Each binding picks the HTTP status to answer it with.
func bodyError(err error) (e *Error, tooLarge bool) {
	var over *http.MaxBytesError
	if errors.As(err, &over) {
		return NewError(CodeInvalidRequest, fmt.Sprintf("request body larger than the limit of %d bytes", over.Limit)), true
	}
	return Errorf(CodeInvalidRequest, "reading the request body: %w", err), false
}

// authenticateHTTP records the caller's address in info and runs the
// Authenticator, once the service parameters were accepted: e is their
// refusal, passed on without authenticating. The context returned carries
// what the Authenticator added.
func (c *handlerConfig) authenticateHTTP(r *http.Request, info *CallInfo, e *Error) (context.Context, *Error) {
	if e != nil {
		return r.Context(), e
	}
	info.Peer = r.RemoteAddr
	return c.authenticate(r.Context(), c.httpAuthRequest(r, info))
}

// checkRequest checks a decoded request as every binding does: its
// required fields, then its tenant against the interface's (which fills an
// empty one).
func (c *handlerConfig) checkRequest(svc *Service, info *CallInfo, msg proto.Message) *Error {
	if err := svc.Validate(msg); err != nil {
		return ErrorOrInternal(err)
	}
	return c.applyTenant(info, msg)
}
