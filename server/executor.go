package server

import (
	"context"

	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Executor is what an agent author writes: what the agent does with one
// incoming message. Execute reads the request and reports progress and
// results through events; the server turns them into a task (or a direct
// reply), stores it, streams it to subscribers and posts it to webhooks.
//
// How Execute ends decides the outcome:
//
//   - after a terminal state (events.Complete, Fail, Reject) or an
//     interrupted one (events.InputRequired, AuthRequired): as reported;
//   - returning nil while the task is still SUBMITTED or WORKING completes it;
//   - returning an error fails the task (FAILED, with the error's message if
//     it is a *runtime.Error, a generic one otherwise — details are logged,
//     not sent); if no event was sent yet, no task is created and the caller
//     receives the error instead, so returning runtime.ContentTypeNotSupported
//     or runtime.InvalidParams refuses a message cleanly;
//   - returning nil without any event is an InvalidAgentResponse error.
//
// Execute runs on its own goroutine, detached from the request that started
// it: the task goes on when that client disconnects. ctx is canceled when a
// client cancels the task (context.Cause is ErrCanceled) or the server shuts
// down (ErrShutdown); Execute must then return promptly.
type Executor interface {
	Execute(ctx context.Context, req *Request, events *Events) error
}

// ExecutorFunc adapts a function to the Executor interface.
type ExecutorFunc func(ctx context.Context, req *Request, events *Events) error

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, req *Request, events *Events) error {
	return f(ctx, req, events)
}

// Canceler is implemented by executors that need to act when a client cancels
// a task, e.g. to stop work running elsewhere. The server calls Cancel before
// it records the task as CANCELED and cancels the context of the running
// Execute. Returning an error refuses the cancellation: a *runtime.Error is
// sent as is (e.g. runtime.TaskNotCancelable), any other error becomes
// TaskNotCancelable. task is the current snapshot (read-only).
type Canceler interface {
	Cancel(ctx context.Context, task *a2av1.Task) error
}

// Request is what Execute receives. Every field is read-only: the messages
// and the task are shared with the server's store and other readers.
type Request struct {
	// TaskID is the id of the task this message belongs to. For a new task it
	// is already chosen, although the task only exists once the executor
	// sends its first event.
	TaskID string
	// ContextID is the conversation the message belongs to (the client's,
	// or one the server generated).
	ContextID string
	// Message is the incoming message.
	Message *a2av1.Message
	// Task is the task as it was when this turn started, with Message at the
	// end of its history; nil for a message that starts a new task.
	Task *a2av1.Task
	// History is the conversation so far, ending with Message.
	History []*a2av1.Message
	// Tenant is the tenant the request was addressed to.
	Tenant string
	// Caller is who sent the message: the identity the binding's
	// authenticator attached (runtime.IdentityFromContext), nil for an
	// anonymous caller.
	Caller *runtime.Identity
	// Extensions are the extension URIs the client asked to activate
	// (A2A-Extensions).
	Extensions []string
	// AcceptedOutputModes are the media types the client accepts in
	// responses (empty: no preference).
	AcceptedOutputModes []string
	// Metadata is the request's metadata.
	Metadata *structpb.Struct

	run *run
}

// Text returns the concatenated text parts of the incoming message.
func (r *Request) Text() string { return MessageText(r.Message) }

// FollowUps returns the channel on which messages that clients send to this
// task while Execute runs arrive (they are already in the task's history).
// Reading them is optional: a follow-up the execution does not take before it
// returns starts the next turn of the task (a new Execute). While one waits
// here the execution cannot end the task: Complete, Fail and Reject return
// ErrFollowUpPending, and the execution either takes the message and goes
// on, or returns and gets it as the next turn's Message. So a message the
// server accepted for a running task always reaches the agent; one that
// arrives after the task ended is refused (UnsupportedOperation).
func (r *Request) FollowUps() <-chan *a2av1.Message {
	if r.run == nil {
		return nil
	}
	return r.run.followUpChan(true)
}

// MessageText returns the concatenated text parts of m (m.Text()).
func MessageText(m *a2av1.Message) string { return m.Text() }

// TextPart returns a part holding text (a2av1.NewTextPart).
func TextPart(text string) *a2av1.Part { return a2av1.NewTextPart(text) }

// AgentMessage returns an agent message with one text part. Its id, task and
// context are filled in when it is sent through Events.
func AgentMessage(text string) *a2av1.Message {
	return &a2av1.Message{Role: a2av1.Role_ROLE_AGENT, Parts: []*a2av1.Part{TextPart(text)}}
}

// TextArtifact returns an artifact with one text part; an empty id is
// replaced by a generated one when it is sent through Events. The part is
// an allocation of its own: a chunk appended to an artifact of the task
// shares its part with the task's snapshot, which would otherwise keep the
// whole chunk reachable for as long as the store keeps the task.
func TextArtifact(id, text string) *a2av1.Artifact {
	b := &struct { // the artifact and its parts list in one allocation
		artifact a2av1.Artifact
		parts    [1]*a2av1.Part
	}{parts: [1]*a2av1.Part{TextPart(text)}}
	b.artifact.ArtifactId = id
	b.artifact.Parts = b.parts[:]
	return &b.artifact
}
