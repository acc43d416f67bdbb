package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Idempotent sends: a message send retried with the same key (the
// Idempotency-Key service parameter, else the message's messageId) by the
// same caller answers with the task the first send made or changed,
// instead of creating a second task or appending the message twice
// (docs/storage.md, "Idempotent sends"). The store keeps one claim per
// tenant, owner and key for a window; claiming is atomic in every store and
// across the processes sharing one, so of two sends racing with one key
// exactly one claims it.

// MaxSendKeyBytes bounds a send key (an Idempotency-Key, or a messageId
// with its prefix).
const MaxSendKeyBytes = 512

// SendKey is the claim of one send key.
type SendKey struct {
	Tenant string
	// Owner is the caller the claim belongs to (Record.Owner's value for
	// that caller): the same key of another owner is another claim.
	Owner string
	Key   string
	// TaskID is the task the send created (or will create) or added its
	// message to.
	TaskID string
	// Fingerprint identifies the message the key was first sent with, so
	// that a different message under the same key is told apart from a
	// retry.
	Fingerprint string
	// Claimed is when the send claimed the key; the claim holds until
	// Until, after which the key is free again.
	Claimed, Until time.Time
}

// SendKeys keeps the claims of send keys.
type SendKeys interface {
	// ClaimSendKey stores k unless a claim of k's tenant, owner and key
	// holds at k.Claimed (its Until is after it), and returns the claim
	// that holds afterwards and whether it is k. With replace not empty, a
	// holding claim whose TaskID is replace is replaced by k too (taking
	// over the claim of a send that never created its task). Claims that
	// no longer hold are removed in passing. ErrInvalidKey for a tenant,
	// owner, key or task id no store can hold.
	ClaimSendKey(ctx context.Context, k SendKey, replace string) (SendKey, bool, error)
	// ReleaseSendKey removes the claim of tenant, owner and key if it
	// names taskID (a send that made no change gives its key back).
	// Removing a missing claim succeeds.
	ReleaseSendKey(ctx context.Context, tenant, owner, key, taskID string) error
}

// CheckSendKey returns ErrInvalidKey when k names a string no store can
// hold, or a claim without its times.
func CheckSendKey(k SendKey) error {
	err := errors.Join(checkKey("tenant", k.Tenant, MaxIDBytes), checkKey("owner", k.Owner, MaxOwnerBytes),
		checkKey("send key", k.Key, MaxSendKeyBytes), checkKey("task id", k.TaskID, MaxIDBytes),
		checkKey("fingerprint", k.Fingerprint, MaxIDBytes))
	if err != nil {
		return err
	}
	if k.Key == "" || k.Claimed.IsZero() || !k.Until.After(k.Claimed) {
		return fmt.Errorf("%w: send key %q needs a key, a claim time and an end after it", ErrInvalidKey, truncateKey(k.Key))
	}
	return nil
}
