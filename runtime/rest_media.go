package runtime

import (
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
