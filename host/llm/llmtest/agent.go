package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"

	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/server"
)

// Agent is a scripted A2A agent on loopback, standing in for a remote
// agent whose skills a model calls as tools.
type Agent struct {
	// URL is its base URL; its card is at URL/.well-known/agent-card.json.
	URL   string
	agent *host.Agent
}

// Close stops the agent.
func (a *Agent) Close() error { return a.agent.Shutdown(context.Background()) }

// StartAgent runs an agent called name on a loopback port over JSON-RPC,
// whose card lists skills (one, "ask", when none are given) and declares
// an HTTP bearer scheme for each of schemes (no call needs it; a call with
// any bearer token is accepted, as the remote agent's credentials of a
// scaffolded project's tests are whatever its environment holds). Every skill
// answers its task with a message saying which skill of which agent
// answered.
func StartAgent(name string, skills []string, schemes ...string) (*Agent, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("llmtest: %w", err)
	}
	addr := l.Addr().String()
	if len(skills) == 0 {
		skills = []string{"ask"}
	}
	card := map[string]any{
		"name": name, "description": "A scripted agent (host/llm/llmtest).", "version": "1.0.0",
		"supportedInterfaces": []any{map[string]any{"url": "http://" + addr + "/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
		"capabilities":        map[string]any{"streaming": true},
		"defaultInputModes":   []any{"text/plain", "application/json"},
		"defaultOutputModes":  []any{"text/plain"},
	}
	var cardSkills []any
	var run []host.Skill
	for _, id := range skills {
		cardSkills = append(cardSkills, map[string]any{"id": id, "name": id, "description": "Answers with a fixed text.", "tags": []any{"scripted"}})
		answer := fmt.Sprintf("%s (skill %s) answers.", name, id)
		run = append(run, host.Skill{ID: id, Run: func(ctx context.Context, req *server.Request, events *server.Events) error {
			return events.Complete(server.AgentMessage(answer))
		}})
	}
	card["skills"] = cardSkills
	if len(schemes) > 0 {
		declared := map[string]any{}
		for _, s := range schemes {
			declared[s] = map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "Bearer"}}
		}
		card["securitySchemes"] = declared
	}
	doc, err := json.Marshal(card)
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("llmtest: %w", err)
	}
	a, err := host.Start(host.Config{
		CardJSON: doc,
		Bindings: []host.Binding{{Protocol: "JSONRPC", Address: addr, Path: "/"}},
		Skills:   run,
		Verifiers: auth.Verifiers{Token: func(_ context.Context, _, token string) (auth.Principal, error) {
			return auth.Principal{Subject: "llmtest-caller"}, nil
		}},
		Listen: func(string, string) (net.Listener, error) { return l, nil },
	})
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("llmtest: %w", err)
	}
	return &Agent{URL: "http://" + addr, agent: a}, nil
}
