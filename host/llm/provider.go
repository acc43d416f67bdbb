package llm

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Defaults of a Provider's zero fields.
const (
	DefaultAPIKeyEnv  = "OPENAI_API_KEY"
	DefaultTimeout    = 2 * time.Minute
	DefaultMaxRetries = 2
)

// Provider is the model endpoint of an agent's LLM skills. Its fields are
// agent.yaml's modelProvider section; Flags lets the operator override them.
// It must not be copied after first use.
type Provider struct {
	// BaseURL is the endpoint's base, up to and including the version
	// ("https://api.openai.com/v1", "http://localhost:11434/v1" for Ollama).
	BaseURL string
	// Model is the model name the endpoint knows ("gpt-4o-mini", "llama3.2").
	Model string
	// APIKeyEnv names the environment variable holding the API key
	// (DefaultAPIKeyEnv when empty). A missing variable sends no key, which
	// local servers such as Ollama accept.
	APIKeyEnv string
	// Timeout bounds each attempt of a model request, its streamed answer
	// included (DefaultTimeout when zero, none when negative).
	Timeout time.Duration
	// MaxRetries is how often a request answered 408, 409, 429 or 5xx, or
	// that could not connect, is tried again before any token arrived
	// (DefaultMaxRetries when zero, none when negative). The wait follows the
	// answer's Retry-After, else a backoff from half a second.
	MaxRetries int
	// HTTPClient, when set, carries the requests (tests, proxies).
	HTTPClient *http.Client

	once   sync.Once
	client openai.Client
	err    error
}

// Flags adds the provider's flags to fs, defaulting to its fields; host.Main
// calls it through host.Config.Flags, so that each also reads its A2A_
// variable (A2A_LLM_BASE_URL, A2A_LLM_MODEL, ...). Call it before the first
// request.
func (p *Provider) Flags(fs *flag.FlagSet) {
	fs.StringVar(&p.BaseURL, "llm-base-url", p.BaseURL, "`URL` of the OpenAI-compatible chat-completions endpoint of the LLM skills, up to the version (http://localhost:11434/v1 for Ollama)")
	fs.StringVar(&p.Model, "llm-model", p.Model, "model the LLM skills ask")
	fs.StringVar(&p.APIKeyEnv, "llm-api-key-env", p.apiKeyEnv(), "environment variable holding the model endpoint's API key (unset: no key)")
	fs.DurationVar(&p.Timeout, "llm-timeout", p.timeout(), "how long one attempt of a model request may take, its streamed answer included (0: no limit)")
	fs.IntVar(&p.MaxRetries, "llm-max-retries", p.maxRetries(), "how often a model request answered 429, 5xx or timed out is tried again (0: never)")
}

func (p *Provider) apiKeyEnv() string {
	if p.APIKeyEnv == "" {
		return DefaultAPIKeyEnv
	}
	return p.APIKeyEnv
}

func (p *Provider) timeout() time.Duration { return orDefault(p.Timeout, DefaultTimeout) }

func (p *Provider) maxRetries() int { return orDefault(p.MaxRetries, DefaultMaxRetries) }

// orDefault reads a setting where 0 means the default and a negative
// value means none (0).
func orDefault[T ~int | ~int64](v, def T) T {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return def
	}
	return v
}

// ErrNotConfigured says that the provider lacks a base URL or a model.
var ErrNotConfigured = errors.New("llm: no model endpoint configured")

// chat returns the client, made on first use from the fields as the flags
// left them.
func (p *Provider) chat() (*openai.Client, error) {
	p.once.Do(func() {
		var missing []string
		if strings.TrimSpace(p.BaseURL) == "" {
			missing = append(missing, "a base URL (modelProvider.baseUrl in agent.yaml, -llm-base-url, $A2A_LLM_BASE_URL)")
		}
		if strings.TrimSpace(p.Model) == "" {
			missing = append(missing, "a model (modelProvider.model in agent.yaml, -llm-model, $A2A_LLM_MODEL)")
		}
		if len(missing) > 0 {
			p.err = fmt.Errorf("%w: set %s", ErrNotConfigured, strings.Join(missing, " and "))
			return
		}
		// The options are all explicit: the client's defaults would read
		// OPENAI_BASE_URL and OPENAI_API_KEY behind the operator's back.
		opts := []option.RequestOption{
			option.WithBaseURL(p.BaseURL),
			option.WithMaxRetries(p.maxRetries()),
			option.WithAPIKey(os.Getenv(p.apiKeyEnv())),
		}
		if t := p.timeout(); t > 0 {
			opts = append(opts, option.WithRequestTimeout(t))
		}
		if p.HTTPClient != nil {
			opts = append(opts, option.WithHTTPClient(p.HTTPClient))
		}
		p.client = openai.NewClient(opts...)
	})
	return &p.client, p.err
}
