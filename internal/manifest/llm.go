package manifest

import "time"

// The sections of a model-backed agent: the model endpoint (modelProvider),
// skills answered by the model (a skill's llm), the project's Go functions
// the model may call (tools) and other A2A agents whose skills it may call
// (remoteAgents). Package host/llm runs them; a2a-scaffold generates the
// wiring.

// ModelProvider is the OpenAI-compatible chat-completions endpoint of the
// agent's LLM skills (host/llm.Provider). Each field is also a flag and an
// A2A_LLM_ variable of the agent, which win.
type ModelProvider struct {
	// BaseURL is the endpoint up to the version (http://localhost:11434/v1).
	BaseURL string
	// Model is the model name.
	Model string
	// APIKeyEnv names the variable holding the API key ("" for the
	// default, OPENAI_API_KEY).
	APIKeyEnv string
	// Timeout bounds one attempt of a request (0 for the default).
	Timeout time.Duration
	// MaxRetries is how often a failed request is retried (nil for the
	// default; 0 for never).
	MaxRetries *int
	Pos        Position
}

// LLMSkill is a skill answered by the model instead of Go code.
type LLMSkill struct {
	// Instructions are the system prompt.
	Instructions string
	// Temperature, when not nil, is from 0 to 2.
	Temperature *float64
	// MaxTokens bounds each answer (0: the endpoint's default).
	MaxTokens int
	// MemoryBytes bounds the conversation sent to the model (0: host/llm's
	// default).
	MemoryBytes int
	// Tools are names of the manifest's tools the model may call.
	Tools []string
	// RemoteAgents are names of the manifest's remoteAgents whose skills the
	// model may call.
	RemoteAgents []string
	Pos          Position
}

// Tool is a Go function of the project the model may call.
type Tool struct {
	// Name is what the model calls it (letters, digits, '_' and '-').
	Name        string
	Description string
	// Input is the JSON Schema of its arguments; nil: none.
	Input *Data
	Pos   Position
}

// RemoteAgent is another A2A agent whose skills become tools.
type RemoteAgent struct {
	// Name identifies it in llm.remoteAgents and names its flag
	// (-remote-<name>-url).
	Name string
	// URL is its base URL (its card is at /.well-known/agent-card.json).
	URL string
	// Skills are the ids of the skills offered as tools; empty: all.
	Skills []string
	// Credentials are sent with every call.
	Credentials []RemoteCredential
	Pos         Position
}

// RemoteCredential is the secret of one security scheme of a remote
// agent's card, read from an environment variable at every call.
type RemoteCredential struct {
	// Scheme is the name of the scheme in the remote card.
	Scheme string
	// Env names the variable holding the secret.
	Env string
}

// HasLLMSkills reports whether a skill of the public or the extended card
// is answered by the model.
func (m *Manifest) HasLLMSkills() bool {
	for _, s := range m.allSkills() {
		if s.LLM != nil {
			return true
		}
	}
	return false
}

func (m *Manifest) allSkills() []Skill {
	if m.ExtendedCard == nil {
		return m.Skills
	}
	return append(append([]Skill(nil), m.Skills...), m.ExtendedCard.Skills...)
}
