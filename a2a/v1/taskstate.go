package a2av1

// Terminal reports whether the state is final: COMPLETED, FAILED, CANCELED
// or REJECTED. A terminal task accepts no more messages and its streams end.
func (x TaskState) Terminal() bool {
	switch x {
	case TaskState_TASK_STATE_COMPLETED, TaskState_TASK_STATE_FAILED,
		TaskState_TASK_STATE_CANCELED, TaskState_TASK_STATE_REJECTED:
		return true
	}
	return false
}

// Interrupted reports whether the task waits for the client: INPUT_REQUIRED
// (send a follow-up, see NewFollowUp) or AUTH_REQUIRED. A blocking
// SendMessage returns at an interrupted state as at a terminal one.
func (x TaskState) Interrupted() bool {
	return x == TaskState_TASK_STATE_INPUT_REQUIRED || x == TaskState_TASK_STATE_AUTH_REQUIRED
}

// Active reports whether the agent is still on the task: SUBMITTED or
// WORKING.
func (x TaskState) Active() bool {
	return x == TaskState_TASK_STATE_SUBMITTED || x == TaskState_TASK_STATE_WORKING
}

// Short returns the state's name without its TASK_STATE_ prefix, as people
// read it: "WORKING", "COMPLETED"…; "UNSPECIFIED" for the zero value.
func (x TaskState) Short() string {
	const prefix = "TASK_STATE_"
	s := x.String()
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):]
	}
	return s
}
