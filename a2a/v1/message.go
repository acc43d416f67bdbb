package a2av1

import "github.com/a2agen/a2agen/runtime"

// NewUserMessage returns a message from the user with the parts and a fresh
// message id (a UUIDv7), ready for SendMessageRequest.Message.
func NewUserMessage(parts ...*Part) *Message {
	return &Message{MessageId: runtime.NewUUID(), Role: Role_ROLE_USER, Parts: parts}
}

// NewTextMessage returns a user message with one text part.
func NewTextMessage(text string) *Message {
	return NewUserMessage(NewTextPart(text))
}

// NewFollowUp returns a user message that continues task: its task and
// context ids are copied, so the agent adds it to the task (for example
// answering INPUT_REQUIRED). A nil task gives a message that starts a new
// one.
func NewFollowUp(task *Task, parts ...*Part) *Message {
	m := NewUserMessage(parts...)
	m.TaskId = task.GetId()
	m.ContextId = task.GetContextId()
	return m
}

// NewSendMessageRequest returns the request that sends m with default
// configuration.
func NewSendMessageRequest(m *Message) *SendMessageRequest {
	return &SendMessageRequest{Message: m}
}

// Text returns the concatenated text parts of the message (other parts are
// skipped); "" for a nil message.
func (x *Message) Text() string { return partsText(x.GetParts()) }

// Text returns the concatenated text parts of the artifact; "" for nil.
func (x *Artifact) Text() string { return partsText(x.GetParts()) }

// LastMessage returns the last message of the task's history, or its status
// message when the history is empty (a server may trim it), or nil.
func (x *Task) LastMessage() *Message {
	if h := x.GetHistory(); len(h) > 0 {
		return h[len(h)-1]
	}
	return x.GetStatus().GetMessage()
}
