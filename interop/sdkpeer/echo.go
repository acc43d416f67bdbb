package main

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// echoAgent is the echo contract of examples/echo (issue 5) written as an
// SDK AgentExecutor, so that both implementations can be compared message
// for message: the interop tests expect the same events from either server,
// and the load benchmark measures the same work on both.
type echoAgent struct {
	// chunkInterval is the pause between two artifact chunks of "stream N".
	chunkInterval time.Duration
	// slowDefault is how long "slow" stays WORKING without an argument.
	slowDefault time.Duration
}

var _ a2asrv.AgentExecutor = (*echoAgent)(nil)

// Execute runs the echo contract for one incoming message.
func (a *echoAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := messageText(ec.Message)
		echo := "Echo: " + text

		// A follow-up to a task waiting for input completes it, whatever it says.
		if ec.StoredTask != nil && ec.StoredTask.Status.State == a2a.TaskStateInputRequired {
			_ = yield(wholeArtifact(ec, echo), nil) &&
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
			return
		}

		word, arg := controlWord(text)
		if word == "message" {
			reply := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(echo))
			reply.ContextID = ec.ContextID
			yield(reply, nil)
			return
		}

		// The SDK owns the task once it exists: a continuation must not
		// announce it again.
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		}

		switch word {
		case "stream":
			a.stream(ctx, ec, streamCount(arg), yield)
		case "input":
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired,
				agentMessage(ec, "Echo needs more input: reply with any text to complete the task.")), nil)
		case "slow":
			a.slow(ctx, ec, slowDuration(arg, a.slowDefault), echo, yield)
		case "fail":
			_ = yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) &&
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateFailed, agentMessage(ec, "Echo failed the task as asked.")), nil)
		case "reject":
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateRejected, agentMessage(ec, "Echo rejected the task as asked.")), nil)
		default:
			_ = yield(wholeArtifact(ec, echo), nil) &&
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		}
	}
}

// stream sends WORKING, n chunks of one artifact, then COMPLETED.
func (a *echoAgent) stream(ctx context.Context, ec *a2asrv.ExecutorContext, n int, yield func(a2a.Event, error) bool) {
	if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
		return
	}
	id := a2a.NewArtifactID()
	for i := 1; i <= n; i++ {
		if i > 1 && a.chunkInterval > 0 && !sleep(ctx, a.chunkInterval) {
			return
		}
		ev := &a2a.TaskArtifactUpdateEvent{
			TaskID:    ec.TaskID,
			ContextID: ec.ContextID,
			Append:    i > 1,
			LastChunk: i == n,
			Artifact: &a2a.Artifact{
				ID:    id,
				Parts: a2a.ContentParts{a2a.NewTextPart(fmt.Sprintf("chunk %d/%d;", i, n))},
			},
		}
		if !yield(ev, nil) {
			return
		}
	}
	yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
}

// slow stays WORKING for d, then answers like the default case. A cancel
// ends the wait through ctx; the CANCELED state itself comes from Cancel.
func (a *echoAgent) slow(ctx context.Context, ec *a2asrv.ExecutorContext, d time.Duration, echo string, yield func(a2a.Event, error) bool) {
	if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
		return
	}
	if !sleep(ctx, d) {
		return
	}
	_ = yield(wholeArtifact(ec, echo), nil) &&
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
}

// Cancel moves the task to CANCELED; the SDK delivers it to the running
// execution's subscribers and stops the execution.
func (a *echoAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, agentMessage(ec, "Echo canceled the task.")), nil)
	}
}

// messageText is the concatenation of the message's text parts, trimmed.
func messageText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if p != nil {
			b.WriteString(p.Text())
		}
	}
	return strings.TrimSpace(b.String())
}

// controlWord splits text into its lower-cased first word and the word after it.
func controlWord(text string) (word, arg string) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return "", ""
	}
	if len(fields) > 1 {
		arg = fields[1]
	}
	return strings.ToLower(fields[0]), arg
}

// streamCount is N of "stream N": 3 when absent or not a number, clamped to 1..50.
func streamCount(arg string) int {
	n, err := strconv.Atoi(arg)
	if err != nil {
		return 3
	}
	return min(max(n, 1), 50)
}

// slowDuration is MS of "slow MS" in milliseconds: def when absent or not a
// number, otherwise clamped to 0..10 minutes.
func slowDuration(arg string, def time.Duration) time.Duration {
	ms, err := strconv.Atoi(arg)
	if err != nil {
		return def
	}
	return time.Duration(min(max(ms, 0), 10*60*1000)) * time.Millisecond
}

// wholeArtifact is a one-chunk artifact holding text; like examples/echo it
// is marked as its own last chunk.
func wholeArtifact(ec *a2asrv.ExecutorContext, text string) *a2a.TaskArtifactUpdateEvent {
	ev := a2a.NewArtifactEvent(ec, a2a.NewTextPart(text))
	ev.LastChunk = true
	return ev
}

func agentMessage(ec *a2asrv.ExecutorContext, text string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))
}

// sleep waits for d and reports false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
