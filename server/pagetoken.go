package server

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/a2agen/a2agen/server/store"
)

// Page tokens are opaque to clients. A ListTasks token is the listing
// position of the last task of the page (status time in Unix nanoseconds and
// task id), a push-config token the last config id; both base64url encoded.
// Being positions rather than offsets, they stay valid while tasks are added.

const taskTokenPrefix = "t1."

func encodeTaskCursor(c store.Cursor) string {
	raw := taskTokenPrefix + strconv.FormatInt(c.Time.UnixNano(), 10) + "." + c.ID
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

var errBadToken = errors.New("malformed page token")

func decodeTaskCursor(tok string) (store.Cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return store.Cursor{}, errBadToken
	}
	rest, ok := strings.CutPrefix(string(raw), taskTokenPrefix)
	if !ok {
		return store.Cursor{}, errBadToken
	}
	ns, id, ok := strings.Cut(rest, ".")
	if !ok || id == "" || !store.ValidID(id) {
		return store.Cursor{}, errBadToken
	}
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		return store.Cursor{}, errBadToken
	}
	return store.Cursor{Time: time.Unix(0, n).UTC(), ID: id}, nil
}

const configTokenPrefix = "p1."

func encodeConfigCursor(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(configTokenPrefix + id))
}

func decodeConfigCursor(tok string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", errBadToken
	}
	id, ok := strings.CutPrefix(string(raw), configTokenPrefix)
	if !ok || id == "" || !store.ValidID(id) {
		return "", errBadToken
	}
	return id, nil
}
