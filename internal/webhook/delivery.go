package webhook

import (
	"crypto/subtle"
	"errors"
	"net/http"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// TokenHeaders are the headers a push delivery's token may come in: the one
// this project's agents send first, the official Go SDK's second; either is
// accepted.
var TokenHeaders = []string{"X-A2A-Notification-Token", "A2A-Notification-Token"}

// MaxDeliveryBytes bounds one delivery's body.
const MaxDeliveryBytes = 16 << 20

// TokenMatches reports whether h carries token in one of TokenHeaders,
// compared in constant time. An empty token never matches.
func TokenMatches(h http.Header, token string) bool {
	if token == "" {
		return false
	}
	for _, name := range TokenHeaders {
		if v := h.Get(name); v != "" && subtle.ConstantTimeCompare([]byte(v), []byte(token)) == 1 {
			return true
		}
	}
	return false
}

// ReadDelivery reads a push delivery's body: a v1.0 StreamResponse, or the
// A2A v0.3 form an agent posts to a webhook registered through v0.3 (the
// Task, or an event, with its "kind"; docs/bindings.md, "Push notifications
// by registration version"), read as the v1.0 event it stands for. The
// v1.0 reading's error is the one reported when neither reads.
func ReadDelivery(body []byte) (*a2av1.StreamResponse, error) {
	ev := new(a2av1.StreamResponse)
	err := runtime.UnmarshalJSON(body, ev)
	if err == nil && ev.GetPayload() != nil {
		return ev, nil
	}
	if v03, v03err := a2av03.EventToV1(body, "body"); v03err == nil {
		return v03, nil
	}
	if err == nil {
		err = errors.New("no task, message, statusUpdate or artifactUpdate member")
	}
	return nil, err
}
