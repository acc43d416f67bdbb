package server

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// Idempotent sends (docs/bindings.md, "Idempotent sends"): a SendMessage or
// SendStreamingMessage retried with the same key by the same caller (owner
// and tenant) within the window answers with the task the first send
// created or added its message to, followed as the retry asks (blocking:
// until it settles; returnImmediately: as it is now; streaming: the task,
// then its events), instead of creating a second task or appending the
// message again. The key is the Idempotency-Key service parameter (the
// HTTP header, gRPC metadata idempotency-key; A2A #1893's proposal), else
// the message's messageId together with the message itself: a different
// message under a reused Idempotency-Key is refused (InvalidParams naming
// the key), one under a reused messageId is a new send. A2A 1.0 calls are deduplicated alike: the key is
// a service parameter, not a field of the 1.1 proto, and a messageId is
// already unique by the 1.0 specification.

// IdempotencyKeyHeader is the service parameter that names a send's
// idempotency key (on gRPC the metadata key idempotency-key).
const IdempotencyKeyHeader = "Idempotency-Key"

// DefaultIdempotencyWindow is how long a send key is kept unless
// WithIdempotencyWindow says otherwise.
const DefaultIdempotencyWindow = 24 * time.Hour

// sendKey is the idempotency key of one send, as claimed in the store.
type sendKey struct {
	key   string // "k:" + the Idempotency-Key, or "m:" + fp + ":" + the messageId
	field string // what the client named it by, for errors
	name  string // the key as the client sent it
	fp    string // the message's fingerprint
}

// sendKeyOf returns the idempotency key of a send (key "" when it has
// none, or deduplication is off).
func (s *Server) sendKeyOf(c *call, req *a2av1.SendMessageRequest) (sendKey, error) {
	if s.idemWindow <= 0 {
		return sendKey{}, nil
	}
	var k sendKey
	if c.info != nil {
		switch vals := c.info.Header.Values(IdempotencyKeyHeader); {
		case len(vals) > 1:
			return sendKey{}, badSendKey(IdempotencyKeyHeader, "is sent more than once; send one key per request")
		case len(vals) == 1 && vals[0] != "":
			k = sendKey{key: "k:" + vals[0], field: IdempotencyKeyHeader, name: vals[0]}
		}
	}
	id := req.GetMessage().GetMessageId()
	if k.key == "" && id == "" {
		return sendKey{}, nil
	}
	fp, err := fingerprint(req.GetMessage())
	if err != nil {
		return sendKey{}, runtime.Internal(fmt.Errorf("fingerprinting message %q: %w", id, err))
	}
	k.fp = fp
	if k.key == "" {
		// The message is its own key: another message under the same id
		// is another send, not a retry (1.0 clients that reuse ids keep
		// working), so the fingerprint is part of the key.
		k.key, k.field, k.name = "m:"+fp+":"+id, "message.messageId", id
	}
	if p := store.KeyProblem(k.key, store.MaxSendKeyBytes); p != "" {
		return sendKey{}, badSendKey(k.field, p)
	}
	return k, nil
}

func badSendKey(field, problem string) error {
	return runtime.InvalidParams(fmt.Sprintf("%s %s", field, problem), runtime.FieldViolation{Field: field, Description: problem})
}

// fingerprint identifies a message as the client sent it: the first 128
// bits of the SHA-256 of its deterministic protobuf encoding, encoded in a
// buffer of fingerprintBuffers.
func fingerprint(msg *a2av1.Message) (string, error) {
	buf := fingerprintBuffers.Get().(*[]byte)
	b, err := proto.MarshalOptions{Deterministic: true}.MarshalAppend((*buf)[:0], msg)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	if cap(b) <= maxPooledFingerprintBuffer {
		*buf = b[:0]
		fingerprintBuffers.Put(buf)
	}
	var text [22]byte // base64 of 16 bytes, unpadded
	base64.RawURLEncoding.Encode(text[:], sum[:16])
	return string(text[:]), nil
}

// fingerprintBuffers hold the encodings of messages being fingerprinted;
// one grown beyond maxPooledFingerprintBuffer (a message with a large
// part) is left to the collector.
var fingerprintBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledFingerprintBuffer = 64 << 10

// claimSend claims k for the send to task taskID; claimed is false when
// an earlier send with k holds it, which is then returned.
func (s *Server) claimSend(c *call, k sendKey, taskID, replace string) (held store.SendKey, claimed bool, err error) {
	at := s.clock()
	held, claimed, err = s.store.ClaimSendKey(c.ctx, store.SendKey{Tenant: c.tenant, Owner: c.owner, Key: k.key,
		TaskID: taskID, Fingerprint: k.fp, Claimed: at, Until: at.Add(s.idemWindow)}, replace)
	if err != nil {
		return store.SendKey{}, false, internalError(fmt.Sprintf("claiming %s %q", k.field, k.name), err)
	}
	return held, claimed, nil
}

// releaseSend gives k back after a send that changed nothing (refused, or
// answered directly without a task), so that a retry is sent anew.
func (s *Server) releaseSend(c *call, k sendKey, taskID string) {
	if err := s.store.ReleaseSendKey(c.ctx, c.tenant, c.owner, k.key, taskID); err != nil {
		s.logger.Warn("server: releasing an idempotency key", "key", k.name, "task", taskID, "err", err)
	}
}

// resend answers a send whose key an earlier send holds: with that send's
// task, followed as f asks. A different message under the key is refused;
// a new task that the earlier send has not created yet is waited for by
// the client (ResourceExhausted, try again), unless the claim is older
// than the run lease: then that send is taken to have died before its
// first event, and this one takes its claim over (taken).
func (s *Server) resend(c *call, req *a2av1.SendMessageRequest, k sendKey, held store.SendKey, f follow) (out started, taken bool, err error) {
	if held.Fingerprint != k.fp {
		return started{}, false, runtime.InvalidParams(
			fmt.Sprintf("%s %q was first sent with another message (to task %q); a retry must resend the same message, a new message needs a new key",
				k.field, k.name, held.TaskID),
			runtime.FieldViolation{Field: k.field, Description: "reused for a different message"}).WithMetadata("taskId", held.TaskID)
	}
	rec, err := s.load(c, held.TaskID)
	var e *runtime.Error
	if errors.As(err, &e) && e.Code() == runtime.CodeTaskNotFound && req.GetMessage().GetTaskId() == "" {
		if s.clock().Sub(held.Claimed) < s.writer.runLease {
			return started{}, false, runtime.Errorf(runtime.CodeResourceExhausted,
				"the first send with %s %q is still creating its task; try again shortly", k.field, k.name).
				WithMetadata("taskId", held.TaskID)
		}
		return started{}, true, nil
	}
	if err != nil {
		return started{}, false, err
	}
	if f == followNothing {
		return started{rec: rec}, false, nil
	}
	snap, sub, err := s.followers.subscribe(c.ctx, c.tenant, held.TaskID, f)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return started{}, false, runtime.TaskNotFound(held.TaskID)
		}
		return started{}, false, internalError("subscribing to the task", err)
	}
	return started{rec: snap, sub: sub}, false, nil
}
