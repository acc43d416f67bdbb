package server

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// The strings a request names that a store keeps as keys — tenants, task,
// context, message and push config ids, the caller's subject (the owner
// of its tasks) and the keys of metadata — are checked here, at the edge of
// the server, before any store sees them: a NUL byte, invalid UTF-8 or more
// than store.MaxIDBytes (store.MaxOwnerBytes for subjects and metadata
// keys) is InvalidParams naming the field, the same on every store,
// binding and protocol version (docs/limits.md, "Strings a store keeps").
// The stores refuse the same strings themselves (store.ErrInvalidKey), so a
// program calling a store directly cannot poison it either.

// keyCheck collects the violations of one request.
type keyCheck struct{ violations []runtime.FieldViolation }

// key checks one string of at most max bytes.
func (k *keyCheck) key(field, value string, max int) {
	if p := store.KeyProblem(value, max); p != "" {
		k.violations = append(k.violations, runtime.FieldViolation{Field: field, Description: p})
	}
}

// id checks an id or tenant.
func (k *keyCheck) id(field, value string) { k.key(field, value, store.MaxIDBytes) }

// metadata checks the keys of a metadata object.
func (k *keyCheck) metadata(field string, m *structpb.Struct) {
	for name := range m.GetFields() {
		if p := store.KeyProblem(name, store.MaxOwnerBytes); p != "" {
			k.violations = append(k.violations, runtime.FieldViolation{Field: field, Description: "a key " + p})
		}
	}
}

// err is InvalidParams naming every violation, or nil.
func (k *keyCheck) err() error {
	if len(k.violations) == 0 {
		return nil
	}
	text := k.violations[0].Field + ": " + k.violations[0].Description
	if len(k.violations) > 1 {
		text += fmt.Sprintf(" (and %d more)", len(k.violations)-1)
	}
	return runtime.InvalidParams(text, k.violations...)
}

// checkID is InvalidParams when value cannot be an id, else nil.
func checkID(field, value string) error {
	if store.ValidID(value) {
		return nil
	}
	var k keyCheck
	k.id(field, value)
	return k.err()
}

// checkCall refuses a call whose tenant, caller subject or owner no store
// can hold.
func (s *Server) checkCall(c *call) error {
	if err := checkID("tenant", c.tenant); err != nil {
		return err
	}
	if p := store.KeyProblem(subjectOf(c.caller), store.MaxOwnerBytes); p != "" {
		return runtime.InvalidParams("the caller's identity (its subject) " + p + "; no task can belong to it")
	}
	if s.owner != nil && c.owner != subjectOf(c.caller) {
		if p := store.KeyProblem(c.owner, store.MaxOwnerBytes); p != "" {
			return runtime.InvalidParams("the task owner of the caller's identity " + p + "; no task can belong to it")
		}
	}
	return nil
}

// checkMessageKeys checks the ids and metadata keys of a SendMessage
// request.
func checkMessageKeys(req *a2av1.SendMessageRequest) error {
	msg := req.GetMessage()
	if store.ValidIDs(msg.GetMessageId(), msg.GetTaskId(), msg.GetContextId()) && len(msg.GetReferenceTaskIds()) == 0 &&
		req.GetMetadata() == nil && msg.GetMetadata() == nil && req.GetConfiguration().GetTaskPushNotificationConfig() == nil && !partMetadata(msg) {
		return nil // the common case, without allocating
	}
	var k keyCheck
	k.id("message.messageId", msg.GetMessageId())
	k.id("message.taskId", msg.GetTaskId())
	k.id("message.contextId", msg.GetContextId())
	for i, id := range msg.GetReferenceTaskIds() {
		k.id("message.referenceTaskIds["+strconv.Itoa(i)+"]", id)
	}
	if cfg := req.GetConfiguration().GetTaskPushNotificationConfig(); cfg != nil {
		k.id("configuration.taskPushNotificationConfig.id", cfg.GetId())
		k.id("configuration.taskPushNotificationConfig.taskId", cfg.GetTaskId())
	}
	k.metadata("metadata", req.GetMetadata())
	k.metadata("message.metadata", msg.GetMetadata())
	for i, p := range msg.GetParts() {
		if p.GetMetadata() != nil {
			k.metadata("message.parts["+strconv.Itoa(i)+"].metadata", p.GetMetadata())
		}
	}
	return k.err()
}

func partMetadata(msg *a2av1.Message) bool {
	for _, p := range msg.GetParts() {
		if p.GetMetadata() != nil {
			return true
		}
	}
	return false
}
