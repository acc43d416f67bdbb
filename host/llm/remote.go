package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/internal/dataschema"
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
	// Options configure the client: credentials (agentcard.WithCredentials,
	// EnvCredentials), bindings, client interceptors (trace propagation).
	Options []agentcard.Option
	// Skills, when not empty, are the ids of the skills offered as tools;
	// a card without one of them is an error. Empty: every skill.
	Skills []string
}

// Tools connects to the agent and returns one tool per skill of its card
// (or per skill of Skills), named after the skill id ('-' and other
// characters the model APIs refuse as '_'), described by its name and
// description. A skill whose input schema the card gives (the skill-schema
// extension of a2a-scaffold cards) takes arguments of that schema, sent as
// the message's data part; any other takes the message to send as text,
// {"message": "..."}. A call sends the message to that skill and waits for the
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
	name := r.URL
	if r.Card != nil || name == "" {
		name = c.Card.GetName()
	}
	skills := c.Card.GetSkills()
	if len(r.Skills) > 0 {
		skills = nil
		for _, id := range r.Skills {
			i := slices.IndexFunc(c.Card.GetSkills(), func(s *a2av1.AgentSkill) bool { return s.GetId() == id })
			if i < 0 {
				return nil, fmt.Errorf("llm: remote agent %s has no skill %q (its card lists %s)", name, id, skillIDs(c.Card))
			}
			skills = append(skills, c.Card.GetSkills()[i])
		}
	}
	inputs := inputSchemas(c.Card)
	var tools []Tool
	for _, s := range skills {
		tools = append(tools, remoteTool(c, s, inputs[s.GetId()]))
	}
	return tools, nil
}

func skillIDs(card *a2av1.AgentCard) string {
	var ids []string
	for _, s := range card.GetSkills() {
		ids = append(ids, strconv.Quote(s.GetId()))
	}
	if len(ids) == 0 {
		return "no skill"
	}
	return strings.Join(ids, ", ")
}

// inputSchemas are the input schemas the card's skill-schema extension
// gives, by skill id; only schemas of the typed-skill subset are taken
// (another is left out: its skill takes text).
func inputSchemas(card *a2av1.AgentCard) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, entry := range dataschema.CardSchemas(card) {
		in, ok := entry["input"].(map[string]any)
		if !ok {
			continue
		}
		if _, problems := dataschema.FromValue(in); len(problems) > 0 {
			continue
		}
		out[id] = in
	}
	return out
}

// textParameters are the arguments of a remote skill without an input
// schema: the message to send.
var textParameters = map[string]any{
	"type":       "object",
	"properties": map[string]any{"message": map[string]any{"type": "string", "description": "What to ask, in full sentences."}},
	"required":   []any{"message"},
}

// remoteTool is the tool of skill s; input, when not nil, is its input
// schema: the arguments are then sent as a data part.
func remoteTool(c *agentcard.Client, s *a2av1.AgentSkill, input map[string]any) Tool {
	agent := c.Card.GetName()
	params := textParameters
	if input != nil {
		params = input
	}
	return Tool{
		Name:        schemaName(s.GetId()),
		Description: fmt.Sprintf("Ask the agent %q (skill %s): %s", agent, s.GetName(), s.GetDescription()),
		Parameters:  params,
		Call: func(ctx context.Context, call ToolCall) (string, error) {
			m, err := remoteMessage(call.Arguments, input != nil)
			if err != nil {
				return "", err
			}
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

// remoteMessage is the message a call sends: the arguments as a data part
// (data), or their message as text.
func remoteMessage(arguments json.RawMessage, data bool) (*a2av1.Message, error) {
	if data {
		var v any
		if err := json.Unmarshal(arguments, &v); err != nil {
			return nil, fmt.Errorf("the arguments are not JSON: %v", err)
		}
		part, err := a2av1.NewDataPart(v)
		if err != nil {
			return nil, fmt.Errorf("the arguments: %v", err)
		}
		return a2av1.NewUserMessage(part), nil
	}
	var args struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(arguments, &args); err != nil || strings.TrimSpace(args.Message) == "" {
		return nil, fmt.Errorf("give the message to send as {\"message\": \"...\"}")
	}
	return a2av1.NewTextMessage(args.Message), nil
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

// remoteTools are a skill's RemoteAgents, discovered once.
type remoteTools struct {
	agents []*RemoteAgent
	mu     sync.Mutex
	tools  [][]Tool // per agent; nil: not discovered yet
}

// with returns static followed by the tools of every remote agent,
// discovering the agents not discovered yet. Two tools of one name are an
// error naming both.
func (r *remoteTools) with(ctx context.Context, static []Tool) ([]Tool, error) {
	if len(r.agents) == 0 {
		return static, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools == nil {
		r.tools = make([][]Tool, len(r.agents))
	}
	out := slices.Clone(static)
	for i, a := range r.agents {
		if r.tools[i] == nil {
			tools, err := a.Tools(ctx)
			if err != nil {
				return nil, err
			}
			r.tools[i] = tools
		}
		out = append(out, r.tools[i]...)
	}
	seen := map[string]bool{AskUserTool: true}
	for _, t := range out {
		if seen[t.Name] {
			return nil, fmt.Errorf("two tools are called %q (a local tool or a remote agent's skill); remote skills become tools named after their ids", t.Name)
		}
		seen[t.Name] = true
	}
	return out, nil
}
