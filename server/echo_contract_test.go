package server_test

import (
	"fmt"
	"slices"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// TestEchoContractStreams checks the echo agent's contract (internal/echo) as
// a stream shows it, through the default server, on every binding.
func TestEchoContractStreams(t *testing.T) {
	chunks := func(n int) []string {
		out := []string{"task SUBMITTED", "status WORKING"}
		for i := 1; i <= n; i++ {
			s := fmt.Sprintf("artifact chunk %d/%d;", i, n)
			if i > 1 {
				s += "+append"
			}
			if i == n {
				s += "+last"
			}
			out = append(out, s)
		}
		return append(out, "status COMPLETED")
	}
	tests := []struct {
		text string
		want []string
	}{
		{"hello", []string{"task SUBMITTED", "artifact Echo: hello+last", "status COMPLETED"}},
		{"  Hello   World \n", []string{"task SUBMITTED", "artifact Echo: Hello   World+last", "status COMPLETED"}},
		{"message hi there", []string{"message Echo: message hi there"}},
		{"MESSAGE", []string{"message Echo: MESSAGE"}},
		{"stream", chunks(3)},
		{"Stream 5", chunks(5)},
		{"stream 1", chunks(1)},
		{"stream 0", chunks(1)},
		{"stream 99", chunks(50)},
		{"stream many", chunks(3)},
		{"input", []string{"task SUBMITTED", "status INPUT_REQUIRED+msg"}},
		{"slow 30", []string{"task SUBMITTED", "status WORKING", "artifact Echo: slow 30+last", "status COMPLETED"}},
		{"fail", []string{"task SUBMITTED", "status WORKING", "status FAILED+msg"}},
		{"reject", []string{"task SUBMITTED", "status REJECTED+msg"}},
		{"streaming is not a control word", []string{"task SUBMITTED", "artifact Echo: streaming is not a control word+last", "status COMPLETED"}},
	}
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		for _, tc := range tests {
			t.Run(tc.text, func(t *testing.T) {
				evs, err := collect(e.c.SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg(tc.text)}))
				if err != nil {
					t.Fatalf("stream: %v (after %v)", err, describeAll(evs))
				}
				if got := describeAll(evs); !slices.Equal(got, tc.want) {
					t.Fatalf("events\n got %q\nwant %q", got, tc.want)
				}
				checkStreamIDs(t, evs)
			})
		}
	})
}

// checkStreamIDs checks what every stream must satisfy: one task id and
// context id throughout, carried by every event; one artifact id per
// chunked artifact; a direct message from the agent with a context id.
func checkStreamIDs(t *testing.T, evs []*a2av1.StreamResponse) {
	t.Helper()
	if m := evs[0].GetMessage(); m != nil {
		if len(evs) != 1 || m.GetRole() != a2av1.Role_ROLE_AGENT || m.GetContextId() == "" || m.GetTaskId() != "" || len(m.GetParts()) != 1 || m.GetMessageId() == "" {
			t.Fatalf("direct reply %v: want exactly one agent message with a contextId, a messageId, one part and no taskId", evs)
		}
		return
	}
	task := evs[0].GetTask()
	if task.GetId() == "" || task.GetContextId() == "" {
		t.Fatalf("first event %v lacks ids", task)
	}
	artifactID := ""
	for i, ev := range evs[1:] {
		var taskID, contextID string
		switch {
		case ev.GetStatusUpdate() != nil:
			u := ev.GetStatusUpdate()
			taskID, contextID = u.GetTaskId(), u.GetContextId()
			if m := u.GetStatus().GetMessage(); m != nil && (m.GetRole() != a2av1.Role_ROLE_AGENT || m.GetTaskId() != task.GetId() || m.GetMessageId() == "") {
				t.Errorf("event %d: status message %v is not an agent message of the task", i+1, m)
			}
			if u.GetStatus().GetTimestamp() == nil {
				t.Errorf("event %d: status without timestamp", i+1)
			}
		case ev.GetArtifactUpdate() != nil:
			u := ev.GetArtifactUpdate()
			taskID, contextID = u.GetTaskId(), u.GetContextId()
			if artifactID == "" {
				artifactID = u.GetArtifact().GetArtifactId()
			} else if u.GetAppend() && u.GetArtifact().GetArtifactId() != artifactID {
				t.Errorf("event %d: chunk of artifact %q, want %q", i+1, u.GetArtifact().GetArtifactId(), artifactID)
			}
		default:
			t.Fatalf("event %d: %v is neither a status nor an artifact update", i+1, ev)
		}
		if taskID != task.GetId() || contextID != task.GetContextId() {
			t.Errorf("event %d carries task %q context %q, want %q %q", i+1, taskID, contextID, task.GetId(), task.GetContextId())
		}
	}
}

// TestEchoContractFollowUp: a follow-up to a task waiting for input is
// echoed on the same task and completes it.
func TestEchoContractFollowUp(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
				first := sendTask(t, e.c, "input")
				if first.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED || first.GetStatus().GetMessage() == nil {
					t.Fatalf("input: task %v, want INPUT_REQUIRED with a status message", first.GetStatus())
				}
				req := &a2av1.SendMessageRequest{Message: followUp("stream 5 is just text now", first.GetId())}
				var task *a2av1.Task
				if stream {
					evs, err := collect(e.c.SendStreamingMessage(ctxT(t), req))
					if err != nil {
						t.Fatal(err)
					}
					want := []string{"task SUBMITTED", "artifact Echo: stream 5 is just text now+last", "status COMPLETED"}
					if got := describeAll(evs); !slices.Equal(got, want) {
						t.Fatalf("follow-up stream %q, want %q", got, want)
					}
					if evs[0].GetTask().GetId() != first.GetId() {
						t.Fatalf("follow-up went to task %s, want %s", evs[0].GetTask().GetId(), first.GetId())
					}
					task = waitState(t, e.c, first.GetId(), a2av1.TaskState_TASK_STATE_COMPLETED)
				} else {
					task = send(t, e.c, req).GetTask()
				}
				if task.GetId() != first.GetId() || task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
					t.Fatalf("follow-up result %v, want task %s COMPLETED", task.GetStatus(), first.GetId())
				}
				if got := artifactText(t, task); got != "Echo: stream 5 is just text now" {
					t.Fatalf("artifact %q", got)
				}
				// History: the user's message, the agent's question, the answer.
				h := task.GetHistory()
				if len(h) != 3 || h[0].GetRole() != a2av1.Role_ROLE_USER || h[1].GetRole() != a2av1.Role_ROLE_AGENT || h[2].GetRole() != a2av1.Role_ROLE_USER {
					t.Fatalf("history %v, want user, agent, user", h)
				}
			})
		}
	})
}

// TestEchoContractBlocking checks the contract through blocking SendMessage.
func TestEchoContractBlocking(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		for _, tc := range []struct {
			text     string
			state    a2av1.TaskState
			artifact string
		}{
			{"hello", a2av1.TaskState_TASK_STATE_COMPLETED, "Echo: hello"},
			{"stream 3", a2av1.TaskState_TASK_STATE_COMPLETED, "chunk 1/3;chunk 2/3;chunk 3/3;"},
			{"slow 20", a2av1.TaskState_TASK_STATE_COMPLETED, "Echo: slow 20"},
			{"input", a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, ""},
			{"fail", a2av1.TaskState_TASK_STATE_FAILED, ""},
			{"reject", a2av1.TaskState_TASK_STATE_REJECTED, ""},
		} {
			t.Run(tc.text, func(t *testing.T) {
				task := sendTask(t, e.c, tc.text)
				if task.GetStatus().GetState() != tc.state {
					t.Fatalf("state %v, want %v", task.GetStatus().GetState(), tc.state)
				}
				if tc.artifact != "" {
					if got := artifactText(t, task); got != tc.artifact {
						t.Fatalf("artifact %q, want %q", got, tc.artifact)
					}
				} else if task.GetStatus().GetMessage() == nil && tc.state != a2av1.TaskState_TASK_STATE_COMPLETED {
					t.Fatalf("%v without a status message", tc.state)
				}
			})
		}
		resp := send(t, e.c, &a2av1.SendMessageRequest{Message: userMsg("message x")})
		if m := resp.GetMessage(); m == nil || server.MessageText(m) != "Echo: message x" || m.GetContextId() == "" {
			t.Fatalf("message: %v, want a direct reply with a contextId", resp)
		}
	})
}
