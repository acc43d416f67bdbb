package store

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// Limits of the strings a store keeps as keys (docs/limits.md, "Strings a
// store keeps"). Every store refuses the same strings, so that what one
// store accepts, every store holds: PostgreSQL's text cannot hold a NUL byte
// or invalid UTF-8, and its btree indexes refuse an entry (tenant, owner,
// context id, task id together) of more than 2,704 bytes, which the limits
// keep well clear of even after delivery ids quote tenant and task id.
const (
	// MaxIDBytes bounds task ids, context ids, message ids, push config ids
	// and tenants.
	MaxIDBytes = 256
	// MaxOwnerBytes bounds owners (Record.Owner: a caller's subject with
	// OwnerByCallerID) and the keys of metadata.
	MaxOwnerBytes = 1024
)

// ErrInvalidKey: a write named a tenant, task id, context id, owner or push
// config id that no store can hold (a NUL byte, invalid UTF-8, or longer
// than MaxIDBytes or MaxOwnerBytes). Nothing is written. Reads with such a
// key find nothing (ErrNotFound, an empty page).
var ErrInvalidKey = errors.New("store: key cannot be stored")

// KeyProblem says why s cannot be a key of at most max bytes, or "" when it
// can: it must be valid UTF-8 without NUL bytes.
func KeyProblem(s string, max int) string {
	if len(s) > max {
		return fmt.Sprintf("is %d bytes long; at most %d are allowed", len(s), max)
	}
	if asciiWithoutNUL(s) { // nearly every key: ids, UUIDs, subjects
		return ""
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "contains a NUL byte (U+0000)"
	}
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	return ""
}

// asciiWithoutNUL reports whether every byte of s is ASCII other than NUL,
// eight bytes at a time.
func asciiWithoutNUL(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		// A byte with its high bit set, or a zero byte ((w-ones)&^w sets
		// the high bit of the lowest zero byte, and of none when there is
		// none).
		if w&highs != 0 || (w-ones)&^w&highs != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == 0 || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ValidID reports whether s can be a task id, context id, push config id
// or tenant.
func ValidID(s string) bool { return KeyProblem(s, MaxIDBytes) == "" }

// ValidIDs reports whether every s can be an id.
func ValidIDs(s ...string) bool {
	for _, v := range s {
		if !ValidID(v) {
			return false
		}
	}
	return true
}

// checkKey returns ErrInvalidKey naming what and why, or nil.
func checkKey(what, s string, max int) error {
	if p := KeyProblem(s, max); p != "" {
		return fmt.Errorf("%w: %s %q %s", ErrInvalidKey, what, truncateKey(s), p)
	}
	return nil
}

// truncateKey shortens s for an error message.
func truncateKey(s string) string {
	const most = 64
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}

// CheckCreation returns ErrInvalidKey when c names a key no store can
// hold: its tenant, task id, context id, owner or a push config id.
func CheckCreation(c Creation) error {
	t := c.Task
	err := errors.Join(checkKey("tenant", c.Tenant, MaxIDBytes), checkKey("task id", t.GetId(), MaxIDBytes),
		checkKey("context id", t.GetContextId(), MaxIDBytes), checkKey("owner", c.Owner, MaxOwnerBytes))
	if err != nil {
		return err
	}
	for _, cfg := range c.PushConfigs {
		if err := checkKey("push config id", cfg.GetId(), MaxIDBytes); err != nil {
			return err
		}
	}
	return nil
}

// CheckUpdate returns ErrNotFound when u names a tenant or task id no
// store can hold (no such task can exist), and ErrInvalidKey for such a
// context id.
func CheckUpdate(u Update) error {
	if !ValidIDs(u.Tenant, u.Task.GetId()) {
		return fmt.Errorf("%w: task %q", ErrNotFound, truncateKey(u.Task.GetId()))
	}
	return checkKey("context id", u.Task.GetContextId(), MaxIDBytes)
}

// CheckPushConfig returns ErrNotFound when the tenant or task id of a push
// config to save is no key a store can hold (no such task can exist), and
// ErrInvalidKey for such a config id.
func CheckPushConfig(tenant string, cfg *a2av1.TaskPushNotificationConfig) error {
	if !ValidIDs(tenant, cfg.GetTaskId()) {
		return fmt.Errorf("%w: task %q", ErrNotFound, truncateKey(cfg.GetTaskId()))
	}
	return checkKey("push config id", cfg.GetId(), MaxIDBytes)
}

// ValidQuery reports whether a listing of tenant with q can match a task:
// a tenant, owner, context id or cursor no store can hold matches none.
func ValidQuery(tenant string, q Query) bool {
	if !ValidIDs(tenant, q.ContextID) || KeyProblem(q.Owner, MaxOwnerBytes) != "" {
		return false
	}
	return q.After == nil || ValidID(q.After.ID)
}
