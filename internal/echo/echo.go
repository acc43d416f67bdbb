// Package echo is the echo agent: a server.Executor whose behaviour is a
// fixed contract, served by examples/echo and used to test A2A
// implementations against each other. Text is the concatenated text parts of
// the incoming message, trimmed; the control word is its first word, case
// ignored; "Echo: <text>" is that prefix followed by the whole text.
//
//	incoming message          behaviour (as a stream shows it)
//	follow-up on a task       same task: artifact "Echo: <text>" → COMPLETED
//	  waiting for input
//	message                   no task: a direct agent Message "Echo: <text>"
//	stream [N]                Task (SUBMITTED) → WORKING → N chunks of one
//	                          artifact ("chunk i/N;", append from the 2nd,
//	                          lastChunk on the last; N = 3, or 1–50) → COMPLETED
//	input                     Task (SUBMITTED) → INPUT_REQUIRED with a message
//	slow [MS]                 Task → WORKING → (2 s or MS ms) → artifact
//	                          "Echo: <text>" → COMPLETED; cancelable
//	fail                      Task → WORKING → FAILED with a message
//	reject                    Task → REJECTED with a message
//	anything else             Task (SUBMITTED) → artifact "Echo: <text>" → COMPLETED
package echo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/a2agen/a2agen/server"
)

// Defaults of the contract.
const (
	// DefaultChunks is how many chunks "stream" sends without an argument;
	// MaxChunks is the most it sends (larger arguments are capped, smaller
	// than 1 raised to 1).
	DefaultChunks = 3
	MaxChunks     = 50
	// DefaultChunkInterval is the pause between "stream" chunks (the
	// contract allows up to about 100 ms).
	DefaultChunkInterval = 10 * time.Millisecond
	// DefaultSlow is how long "slow" works without an argument; MaxSlow caps
	// the argument.
	DefaultSlow = 2 * time.Second
	MaxSlow     = 10 * time.Minute
)

// Agent is the echo executor. The zero value follows the contract with the
// default timings.
type Agent struct {
	// ChunkInterval is the pause between "stream" chunks; zero means
	// DefaultChunkInterval, a negative value no pause (benchmarks).
	ChunkInterval time.Duration
}

var _ server.Executor = (*Agent)(nil)

// Execute implements server.Executor.
func (a *Agent) Execute(ctx context.Context, req *server.Request, ev *server.Events) error {
	text := strings.TrimSpace(req.Text())
	echo := "Echo: " + text
	if req.Task != nil { // a follow-up: the task waited for input
		if err := ev.Artifact(server.TextArtifact("", echo)); err != nil {
			return err
		}
		return ev.Complete(nil)
	}
	word := strings.ToLower(firstWord(text))
	switch word {
	case "message":
		return ev.Reply(server.AgentMessage(echo))
	case "stream":
		return a.stream(ctx, ev, intArg(strings.Fields(text), DefaultChunks, 1, MaxChunks))
	case "input":
		return ev.InputRequired(server.AgentMessage("Echo needs more input: send any text to this task to complete it."))
	case "slow":
		ms := intArg(strings.Fields(text), int(DefaultSlow/time.Millisecond), 0, int(MaxSlow/time.Millisecond))
		return slow(ctx, ev, time.Duration(ms)*time.Millisecond, echo)
	case "fail":
		if err := ev.Working(); err != nil {
			return err
		}
		return ev.Fail(server.AgentMessage("Echo failed, as asked."))
	case "reject":
		return ev.Reject(server.AgentMessage("Echo rejects this task, as asked."))
	}
	if err := ev.Artifact(server.TextArtifact("", echo)); err != nil {
		return err
	}
	return ev.Complete(nil)
}

// firstWord is strings.Fields(text)[0] ("" for none) without the list: the
// control word. text has no leading space (it is trimmed).
func firstWord(text string) string {
	if i := strings.IndexFunc(text, unicode.IsSpace); i >= 0 {
		return text[:i]
	}
	return text
}

// intArg reads the control word's argument: def when there is none or it is
// not a number, otherwise clamped to [lo, hi].
func intArg(fields []string, def, lo, hi int) int {
	if len(fields) < 2 {
		return def
	}
	n, err := strconv.Atoi(fields[1])
	if err != nil {
		return def
	}
	return min(max(n, lo), hi)
}

func (a *Agent) stream(ctx context.Context, ev *server.Events, n int) error {
	if err := ev.Working(); err != nil {
		return err
	}
	pause := a.ChunkInterval
	if pause == 0 {
		pause = DefaultChunkInterval
	}
	id := "" // the first chunk gets a generated id; the others reuse it
	for i := 1; i <= n; i++ {
		if i > 1 && pause > 0 {
			if err := sleep(ctx, pause); err != nil {
				return err
			}
		}
		chunk := server.TextArtifact(id, fmt.Sprintf("chunk %d/%d;", i, n))
		if err := ev.ArtifactChunk(chunk, i > 1, i == n); err != nil {
			return err
		}
		id = chunk.GetArtifactId()
	}
	return ev.Complete(nil)
}

func slow(ctx context.Context, ev *server.Events, d time.Duration, echo string) error {
	if err := ev.Working(); err != nil {
		return err
	}
	if err := sleep(ctx, d); err != nil {
		return err
	}
	if err := ev.Artifact(server.TextArtifact("", echo)); err != nil {
		return err
	}
	return ev.Complete(nil)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
