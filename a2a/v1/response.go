package a2av1

// Accessors for the answers of SendMessage and the events of streams, so
// that a client does not switch over the payload oneof to learn which task
// an answer is about. Each is nil-safe.

// TaskID returns the id of the task the answer is about: the task's id, or
// the message's task id ("" for a direct reply outside any task).
func (x *SendMessageResponse) TaskID() string {
	if t := x.GetTask(); t != nil {
		return t.GetId()
	}
	return x.GetMessage().GetTaskId()
}

// ContextID returns the context id of the task or of the message.
func (x *SendMessageResponse) ContextID() string {
	if t := x.GetTask(); t != nil {
		return t.GetContextId()
	}
	return x.GetMessage().GetContextId()
}

// State returns the task's state, or TASK_STATE_UNSPECIFIED for a message.
func (x *SendMessageResponse) State() TaskState {
	return x.GetTask().GetStatus().GetState()
}

// Text returns the text people would read as the answer: a message's text,
// or the task's artifacts' text (each artifact's parts concatenated, one
// artifact per line), or else the text of the task's status message.
func (x *SendMessageResponse) Text() string {
	if m := x.GetMessage(); m != nil {
		return m.Text()
	}
	return x.GetTask().Text()
}

// Text returns the text of the task's artifacts (each artifact's parts
// concatenated, one artifact per line), or else the text of its status
// message; "" for nil.
func (t *Task) Text() string {
	var out string
	for i, a := range t.GetArtifacts() {
		if i > 0 {
			out += "\n"
		}
		out += a.Text()
	}
	if out == "" {
		out = t.GetStatus().GetMessage().Text()
	}
	return out
}

// TaskID returns the id of the task the event is about, whichever kind of
// event it is ("" for a message outside any task).
func (x *StreamResponse) TaskID() string {
	switch p := x.GetPayload().(type) {
	case *StreamResponse_Task:
		return p.Task.GetId()
	case *StreamResponse_Message:
		return p.Message.GetTaskId()
	case *StreamResponse_StatusUpdate:
		return p.StatusUpdate.GetTaskId()
	case *StreamResponse_ArtifactUpdate:
		return p.ArtifactUpdate.GetTaskId()
	}
	return ""
}

// ContextID returns the context id of the event's task or message.
func (x *StreamResponse) ContextID() string {
	switch p := x.GetPayload().(type) {
	case *StreamResponse_Task:
		return p.Task.GetContextId()
	case *StreamResponse_Message:
		return p.Message.GetContextId()
	case *StreamResponse_StatusUpdate:
		return p.StatusUpdate.GetContextId()
	case *StreamResponse_ArtifactUpdate:
		return p.ArtifactUpdate.GetContextId()
	}
	return ""
}

// State returns the task state the event carries (a task snapshot or a
// status update), or TASK_STATE_UNSPECIFIED for messages and artifact
// updates, which do not change it.
func (x *StreamResponse) State() TaskState {
	if t := x.GetTask(); t != nil {
		return t.GetStatus().GetState()
	}
	return x.GetStatusUpdate().GetStatus().GetState()
}

// Text returns the event's text: a message's, an artifact chunk's, a task
// snapshot's (as SendMessageResponse.Text) or a status update's message.
func (x *StreamResponse) Text() string {
	switch p := x.GetPayload().(type) {
	case *StreamResponse_Task:
		return p.Task.Text()
	case *StreamResponse_Message:
		return p.Message.Text()
	case *StreamResponse_StatusUpdate:
		return p.StatusUpdate.GetStatus().GetMessage().Text()
	case *StreamResponse_ArtifactUpdate:
		return p.ArtifactUpdate.GetArtifact().Text()
	}
	return ""
}
