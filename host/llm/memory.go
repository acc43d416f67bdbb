package llm

import (
	"context"
	"strings"

	"github.com/openai/openai-go/v3"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// DefaultMemoryBytes is a skill's default memory budget: the text of the
// conversation sent to the model, about 16,000 tokens of English.
const DefaultMemoryBytes = 64 << 10

// maxContextTasks bounds the earlier tasks of a context read for memory.
const maxContextTasks = 50

// entry is one message of the conversation as the model sees it.
type entry struct {
	user bool
	text string
}

// conversation is what the model is told before it answers: the context's
// earlier tasks (each: its messages, then its artifacts' text as the
// assistant's), then this task's, ending with the message being answered,
// the oldest dropped beyond budget bytes of text. The message being answered
// always stays.
func conversation(ctx context.Context, req *server.Request, budget int) ([]openai.ChatCompletionMessageParamUnion, error) {
	if budget <= 0 {
		budget = DefaultMemoryBytes
	}
	earlier, err := req.ContextTasks(ctx, maxContextTasks)
	if err != nil {
		return nil, err
	}
	var entries []entry
	for _, task := range earlier {
		entries = appendTask(entries, task.GetHistory(), task)
	}
	// This task: its earlier turns (what they streamed, the question of an
	// INPUT_REQUIRED status) before the message being answered.
	history := req.History
	if len(history) == 0 && req.Message != nil {
		history = []*a2av1.Message{req.Message}
	}
	if n := len(history); n > 0 {
		entries = appendTask(entries, history[:n-1], req.Task)
		entries = appendMessage(entries, history[n-1])
	}
	entries = trim(entries, budget)
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(entries))
	for _, e := range entries {
		if e.user {
			out = append(out, openai.UserMessage(e.text))
		} else {
			out = append(out, openai.AssistantMessage(e.text))
		}
	}
	return out, nil
}

// appendTask adds the messages of a task, then what the agent answered in
// it that the history does not hold: its artifacts and status message.
func appendTask(entries []entry, history []*a2av1.Message, task *a2av1.Task) []entry {
	seen := map[string]bool{}
	for _, m := range history {
		entries = appendMessage(entries, m)
		seen[m.GetMessageId()] = true
	}
	if task == nil {
		return entries
	}
	for _, a := range task.GetArtifacts() {
		if t := partsText(a.GetParts()); t != "" {
			entries = append(entries, entry{text: t})
		}
	}
	if m := task.GetStatus().GetMessage(); m != nil && !seen[m.GetMessageId()] {
		entries = appendMessage(entries, m)
	}
	return entries
}

func appendMessage(entries []entry, m *a2av1.Message) []entry {
	t := partsText(m.GetParts())
	if t == "" {
		return entries
	}
	return append(entries, entry{user: m.GetRole() != a2av1.Role_ROLE_AGENT, text: t})
}

// partsText is the text of parts as the model reads it: text parts as they
// are, data parts as JSON.
func partsText(parts []*a2av1.Part) string {
	var b strings.Builder
	for _, p := range parts {
		var t string
		switch {
		case p.GetData() != nil:
			t = asJSON(p.GetData().AsInterface())
		default:
			t = p.GetText()
		}
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
	}
	return b.String()
}

// trim drops the oldest entries until the text fits budget; the last entry
// always stays.
func trim(entries []entry, budget int) []entry {
	total := 0
	for _, e := range entries {
		total += len(e.text)
	}
	for len(entries) > 1 && total > budget {
		total -= len(entries[0].text)
		entries = entries[1:]
	}
	// A conversation the model reads should start with the user.
	for len(entries) > 1 && !entries[0].user {
		entries = entries[1:]
	}
	return entries
}
