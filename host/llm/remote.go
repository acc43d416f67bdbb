package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

// skillMetadataKey names the remote skill in a message's metadata
// (host.SkillMetadataKey; repeated so that this file needs no host import).
const skillMetadataKey = "a2a-scaffold/skill"

// RemoteAgent is another A2A agent whose skills the model may call as
// tools, through the generated clients on whichever binding its card
// offers (agentcard).
type RemoteAgent struct {
	// URL is the agent's base URL (its card is at
	// /.well-known/agent-card.json); ignored when Card is set.
	URL string
	// Card, when set, is the agent's card, used as is.
	Card *a2av1.AgentCard
	// Options configure the client: credentials (agentcard.WithCredentials),
	// bindings, client interceptors (trace propagation).
	Options []agentcard.Option
}

// Tools connects to the agent and returns one tool per skill of its card,
// named after the skill id ('-' and other characters the model APIs refuse
// as '_'), described by its name and description, taking the message to
// send as text. A call sends the message to that skill and waits for the
// remote task: its status messages and its answer become this task's WORKING
// progress ("<agent>: ..."),
// its answer (artifacts' and status message's text) the tool's result, its
// INPUT_REQUIRED this task's (NeedsInputError), its FAILED or REJECTED an
// error the model reads. The client lives as long as the program.
func (r RemoteAgent) Tools(ctx context.Context) ([]Tool, error) {
	var c *agentcard.Client
	var err error
	if r.Card != nil {
		c, err = agentcard.NewClient(r.Card, r.Options...)
	} else {
		c, err = agentcard.Discover(ctx, r.URL, r.Options...)
	}
	if err != nil {
		return nil, fmt.Errorf("llm: remote agent %s: %w", r.URL, err)
	}
	var tools []Tool
	for _, s := range c.Card.GetSkills() {
		tools = append(tools, remoteTool(c, s))
	}
	return tools, nil
}

func remoteTool(c *agentcard.Client, s *a2av1.AgentSkill) Tool {
	agent := c.Card.GetName()
	return Tool{
		Name:        schemaName(s.GetId()),
		Description: fmt.Sprintf("Ask the agent %q (skill %s): %s", agent, s.GetName(), s.GetDescription()),
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"message": map[string]any{"type": "string", "description": "What to ask, in full sentences."}},
			"required":   []any{"message"},
		},
		Call: func(ctx context.Context, call ToolCall) (string, error) {
			var args struct {
				Message string `json:"message"`
			}
			if err := json.Unmarshal(call.Arguments, &args); err != nil || strings.TrimSpace(args.Message) == "" {
				return "", fmt.Errorf("give the message to send as {\"message\": \"...\"}")
			}
			m := a2av1.NewTextMessage(args.Message)
			m.Metadata = &structpb.Struct{Fields: map[string]*structpb.Value{skillMetadataKey: structpb.NewStringValue(s.GetId())}}
			var answer []string
			var last *a2av1.StreamResponse
			for ev, err := range c.SendStreamingMessage(ctx, &a2av1.SendMessageRequest{Message: m}) {
				if err != nil {
					return "", fmt.Errorf("agent %q: %w", agent, err)
				}
				last = ev
				if st := ev.GetStatusUpdate(); st != nil && st.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_WORKING && st.GetStatus().GetMessage() != nil {
					progress(call, agent+": "+st.GetStatus().GetMessage().Text())
				}
				if a := ev.GetArtifactUpdate(); a != nil {
					answer = append(answer, a.GetArtifact().Text())
				}
				if msg := ev.GetMessage(); msg != nil {
					answer = append(answer, msg.Text())
				}
			}
			if last == nil {
				return "", fmt.Errorf("agent %q answered nothing", agent)
			}
			state := last.State()
			status := remoteStatusText(last)
			switch state {
			case a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, a2av1.TaskState_TASK_STATE_AUTH_REQUIRED:
				q := a2av1.NewTextMessage(agent + " asks: " + status)
				return "", &NeedsInputError{Message: q}
			case a2av1.TaskState_TASK_STATE_FAILED, a2av1.TaskState_TASK_STATE_REJECTED, a2av1.TaskState_TASK_STATE_CANCELED:
				return "", fmt.Errorf("agent %q ended the task %s: %s", agent, state.Short(), status)
			}
			if status != "" {
				answer = append(answer, status)
			}
			result := strings.Join(answer, "")
			progress(call, agent+": "+result)
			return result, nil
		},
	}
}

// remoteStatusText is the text of the last event's status message.
func remoteStatusText(ev *a2av1.StreamResponse) string {
	if st := ev.GetStatusUpdate(); st != nil {
		return st.GetStatus().GetMessage().Text()
	}
	if t := ev.GetTask(); t != nil {
		return t.GetStatus().GetMessage().Text()
	}
	return ""
}

// progress reports text as this task's WORKING status (best effort: a task
// that cannot take it still gets the tool's result).
func progress(call ToolCall, text string) {
	if call.Events == nil {
		return
	}
	m := a2av1.NewTextMessage(text)
	m.Role = a2av1.Role_ROLE_AGENT
	_ = call.Events.Status(a2av1.TaskState_TASK_STATE_WORKING, m)
}
