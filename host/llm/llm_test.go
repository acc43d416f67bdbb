package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/host/llm"
	"github.com/a2agen/a2agen/host/llm/llmtest"
)

const card = `{
  "name": "Chat", "description": "answers with a model", "version": "1.0.0",
  "supportedInterfaces": [
    {"url": "http://127.0.0.1:1/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    {"url": "http://127.0.0.1:1/a2a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
    {"url": "127.0.0.1:2", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
  ],
  "capabilities": {"streaming": true},
  "defaultInputModes": ["text/plain", "application/json"], "defaultOutputModes": ["text/plain", "application/json"],
  "skills": [
    {"id": "chat", "name": "Chat", "description": "talks", "tags": ["chat"]}
  ]
}`

var bindings = []host.Binding{
	{Protocol: "JSONRPC", Address: "127.0.0.1:1", Path: "/a2a"},
	{Protocol: "HTTP+JSON", Address: "127.0.0.1:1", Path: "/a2a/rest"},
	{Protocol: "GRPC", Address: "127.0.0.1:2"},
}

// start runs an agent whose one skill, chat, is s answered by the scripted
// model m.
func start(t *testing.T, m *llmtest.Server, s llm.Skill) *hosttest.Agent {
	t.Helper()
	t.Setenv("LLMTEST_KEY", "sk-test")
	p := &llm.Provider{BaseURL: m.URL, Model: "scripted", APIKeyEnv: "LLMTEST_KEY", MaxRetries: 2}
	s.ID = "chat"
	return hosttest.Start(t, host.Config{CardJSON: []byte(card), Bindings: bindings, Skills: []host.Skill{{ID: "chat", Run: p.Skill(s)}}})
}

func send(t *testing.T, a *hosttest.Agent, req *a2av1.SendMessageRequest) *a2av1.SendMessageResponse {
	t.Helper()
	resp, err := a.Client(t, bindings[0], a.Card(), "chat").SendMessage(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestTokensStreamAsArtifactChunks: on every binding the model's tokens
// arrive as chunks of one artifact, the first not appending, the others
// appending, only the last marked lastChunk; the request carries the
// skill's instructions, temperature, max tokens, model and API key.
func TestTokensStreamAsArtifactChunks(t *testing.T) {
	m := llmtest.Start(t)
	temp := 0.25
	a := start(t, m, llm.Skill{Instructions: "Be brief.", Temperature: &temp, MaxTokens: 100})
	for _, b := range bindings {
		t.Run(b.Protocol.String(), func(t *testing.T) {
			m.Add(llmtest.Step{Tokens: []string{"Hel", "lo", " world"}})
			client := a.Client(t, b, a.Card(), "chat")
			var chunks []*a2av1.TaskArtifactUpdateEvent
			var last a2av1.TaskState
			for ev, err := range client.SendStreamingMessage(context.Background(), hosttest.Message("hi", "chat")) {
				if err != nil {
					t.Fatal(err)
				}
				if u := ev.GetArtifactUpdate(); u != nil {
					chunks = append(chunks, u)
				}
				last = ev.State()
			}
			if last != a2av1.TaskState_TASK_STATE_COMPLETED {
				t.Errorf("the stream ended %s, want COMPLETED", last)
			}
			var text strings.Builder
			for i, c := range chunks {
				text.WriteString(c.GetArtifact().Text())
				if c.GetAppend() != (i > 0) || c.GetLastChunk() != (i == len(chunks)-1) {
					t.Errorf("chunk %d: append %v lastChunk %v", i, c.GetAppend(), c.GetLastChunk())
				}
				if c.GetArtifact().GetArtifactId() != chunks[0].GetArtifact().GetArtifactId() {
					t.Errorf("chunk %d is of another artifact", i)
				}
			}
			if len(chunks) != 3 || text.String() != "Hello world" {
				t.Errorf("%d chunks saying %q, want 3 saying \"Hello world\"", len(chunks), text.String())
			}
		})
	}
	reqs := m.Requests()
	r := reqs[len(reqs)-1]
	if r.Model != "scripted" || !r.Stream || r.Temperature == nil || *r.Temperature != 0.25 || r.MaxTokens != 100 {
		t.Errorf("request: model %q stream %v temperature %v max_tokens %d", r.Model, r.Stream, r.Temperature, r.MaxTokens)
	}
	if len(r.Messages) < 2 || r.Messages[0].Role != "system" || r.Messages[0].Text() != "Be brief." || r.Messages[len(r.Messages)-1].Text() != "hi" {
		t.Errorf("messages %+v, want the instructions then the user's", r.Messages)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q, want the key of $LLMTEST_KEY", got)
	}
	if names := r.ToolNames(); len(names) != 1 || names[0] != llm.AskUserTool {
		t.Errorf("tools %v, want ask_user", names)
	}
}

// TestMemoryAcrossTasks: a second task of the same context sends the model
// the first task's question and answer before the new message; another
// context does not.
func TestMemoryAcrossTasks(t *testing.T) {
	m := llmtest.Start(t, llmtest.Step{Tokens: []string{"Lisbon is lovely."}}, llmtest.Step{Tokens: []string{"3 days."}}, llmtest.Step{Tokens: []string{"?"}})
	a := start(t, m, llm.Skill{})
	first := send(t, a, hosttest.Message("Tell me about Lisbon", "chat"))
	second := hosttest.Message("How long should I stay?", "chat")
	second.Message.ContextId = first.ContextID()
	if resp := send(t, a, second); resp.State() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("second task %s: %s", resp.State(), resp.Text())
	}
	send(t, a, hosttest.Message("Something else", "chat"))
	reqs := m.Requests()
	got := texts(reqs[1].Messages)
	want := []string{"user: Tell me about Lisbon", "assistant: Lisbon is lovely.", "user: How long should I stay?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("second request's conversation %q, want %q", got, want)
	}
	if got := texts(reqs[2].Messages); len(got) != 1 {
		t.Errorf("another context's conversation %q, want only its message", got)
	}
}

// TestMemoryBudget: the oldest turns are dropped beyond MemoryBytes, the
// message being answered stays.
func TestMemoryBudget(t *testing.T) {
	m := llmtest.Start(t, llmtest.Step{Tokens: []string{strings.Repeat("a", 40)}}, llmtest.Step{Tokens: []string{"ok"}})
	a := start(t, m, llm.Skill{MemoryBytes: 50})
	first := send(t, a, hosttest.Message(strings.Repeat("q", 40), "chat"))
	second := hosttest.Message("now", "chat")
	second.Message.ContextId = first.ContextID()
	send(t, a, second)
	if got := texts(m.Requests()[1].Messages); len(got) != 1 || got[0] != "user: now" {
		t.Errorf("conversation %q, want only the new message within 50 bytes", got)
	}
}

// TestAskUser: the model's ask_user call makes the task INPUT_REQUIRED with
// its question; the answer continues the task, the model seeing question
// and answer, and the task completes.
func TestAskUser(t *testing.T) {
	m := llmtest.Start(t,
		llmtest.Step{Calls: []llmtest.Call{{Name: "ask_user", Arguments: `{"question":"Which city?"}`}}},
		llmtest.Step{Tokens: []string{"Porto it is."}})
	a := start(t, m, llm.Skill{})
	resp := send(t, a, hosttest.Message("Plan a trip", "chat"))
	if resp.State() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED || resp.GetTask().GetStatus().GetMessage().Text() != "Which city?" {
		t.Fatalf("first turn %s %q, want INPUT_REQUIRED asking \"Which city?\"", resp.State(), resp.GetTask().GetStatus().GetMessage().Text())
	}
	answer := hosttest.Message("Porto", "chat")
	answer.Message.TaskId, answer.Message.ContextId = resp.TaskID(), resp.ContextID()
	resp = send(t, a, answer)
	if resp.State() != a2av1.TaskState_TASK_STATE_COMPLETED || !strings.Contains(resp.GetTask().GetArtifacts()[0].Text(), "Porto it is.") {
		t.Fatalf("second turn %s %q", resp.State(), resp.Text())
	}
	got := texts(m.Requests()[1].Messages)
	want := []string{"user: Plan a trip", "assistant: Which city?", "user: Porto"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("second request's conversation %q, want %q", got, want)
	}
}

// TestCancelMidGeneration: canceling the task while the model streams
// cancels the model request and leaves the task CANCELED.
func TestCancelMidGeneration(t *testing.T) {
	hold, holding, gone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	defer close(hold)
	m := llmtest.Start(t, llmtest.Step{Tokens: []string{"Once", " upon"}, Hold: hold, Holding: holding, Gone: gone})
	a := start(t, m, llm.Skill{})
	client := a.Client(t, bindings[1], a.Card(), "chat")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var taskID string
	for ev, err := range client.SendStreamingMessage(ctx, hosttest.Message("tell a story", "chat")) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.State() == a2av1.TaskState_TASK_STATE_WORKING {
			taskID = ev.TaskID()
			break
		}
	}
	<-holding // the model is generating
	task, err := client.CancelTask(context.Background(), &a2av1.CancelTaskRequest{Id: taskID})
	if err != nil {
		t.Fatal(err)
	}
	if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_CANCELED {
		t.Errorf("task %s after cancel", task.GetStatus().GetState())
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the model request was not canceled")
	}
}

// TestProviderErrors: 401 fails at once naming the key's variable; 429
// with Retry-After is retried and then succeeds; 5xx beyond the retries
// fails saying so.
func TestProviderErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		steps    []llmtest.Step
		state    a2av1.TaskState
		says     string
		requests int
	}{
		{"401", []llmtest.Step{{Status: 401, Message: "Incorrect API key provided"}}, a2av1.TaskState_TASK_STATE_FAILED, "refused the API key (HTTP 401: Incorrect API key provided); set $LLMTEST_KEY", 1},
		{"429 then ok", []llmtest.Step{{Status: 429, RetryAfter: "0", Message: "slow down"}, {Tokens: []string{"fine"}}}, a2av1.TaskState_TASK_STATE_COMPLETED, "fine", 2},
		{"429 throughout", []llmtest.Step{{Status: 429, RetryAfter: "0"}, {Status: 429, RetryAfter: "0"}, {Status: 429, RetryAfter: "0", Message: "slow down"}}, a2av1.TaskState_TASK_STATE_FAILED, "is rate limiting this agent (HTTP 429: slow down) and still was after 2 retries", 3},
		{"500", []llmtest.Step{{Status: 500, RetryAfter: "0"}, {Status: 502, RetryAfter: "0"}, {Status: 503, RetryAfter: "0", Message: "overloaded"}}, a2av1.TaskState_TASK_STATE_FAILED, "failed (HTTP 503: overloaded), also after 2 retries", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.Start(t, tc.steps...)
			a := start(t, m, llm.Skill{})
			resp := send(t, a, hosttest.Message("hi", "chat"))
			if resp.State() != tc.state || !strings.Contains(resp.Text(), tc.says) {
				t.Errorf("%s %q, want %s saying %q", resp.State(), resp.Text(), tc.state, tc.says)
			}
			if n := len(m.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}

// TestNotConfigured: a provider without base URL or model fails the task
// saying what to set.
func TestNotConfigured(t *testing.T) {
	p := &llm.Provider{}
	a := hosttest.Start(t, host.Config{CardJSON: []byte(card), Bindings: bindings, Skills: []host.Skill{{ID: "chat", Run: p.Skill(llm.Skill{ID: "chat"})}}})
	resp := send(t, a, hosttest.Message("hi", "chat"))
	if resp.State() != a2av1.TaskState_TASK_STATE_FAILED || !strings.Contains(resp.Text(), "-llm-base-url") || !strings.Contains(resp.Text(), "-llm-model") {
		t.Errorf("%s %q, want FAILED naming -llm-base-url and -llm-model", resp.State(), resp.Text())
	}
}

const outputSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"]}`

// TestStructuredOutput: a skill with an output schema asks for
// response_format json_schema and answers a data artifact; an invalid
// answer is asked for again once, a second invalid one fails the task with
// the validation error.
func TestStructuredOutput(t *testing.T) {
	for _, tc := range []struct {
		name     string
		steps    []llmtest.Step
		state    a2av1.TaskState
		says     string
		requests int
	}{
		{"valid", []llmtest.Step{{Tokens: []string{`{"city":"Oslo",`, `"days":2}`}}}, a2av1.TaskState_TASK_STATE_COMPLETED, "", 1},
		{"invalid then valid", []llmtest.Step{{Tokens: []string{`{"city":"Oslo"}`}}, {Tokens: []string{`{"city":"Oslo","days":2}`}}}, a2av1.TaskState_TASK_STATE_COMPLETED, "", 2},
		{"invalid twice", []llmtest.Step{{Tokens: []string{`{"city":"Oslo"}`}}, {Tokens: []string{`not json`}}}, a2av1.TaskState_TASK_STATE_FAILED, "does not match the output schema, twice: not JSON", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.Start(t, tc.steps...)
			a := start(t, m, llm.Skill{OutputSchema: outputSchema})
			resp := send(t, a, hosttest.Message("2 days in Oslo", "chat"))
			if resp.State() != tc.state || !strings.Contains(resp.Text(), tc.says) {
				t.Fatalf("%s %q, want %s saying %q", resp.State(), resp.Text(), tc.state, tc.says)
			}
			reqs := m.Requests()
			if len(reqs) != tc.requests {
				t.Errorf("%d requests, want %d", len(reqs), tc.requests)
			}
			if rf := reqs[0].ResponseFormat; rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "chat" || rf.JSONSchema.Schema["type"] != "object" {
				t.Errorf("response_format %+v, want json_schema of the output schema", rf)
			}
			if len(reqs) > 1 {
				fix := reqs[1].Messages[len(reqs[1].Messages)-1].Text()
				if !strings.Contains(fix, "data.days: required") {
					t.Errorf("the second request says %q, want the validation error", fix)
				}
			}
			if tc.state != a2av1.TaskState_TASK_STATE_COMPLETED {
				return
			}
			data := hosttest.DataParts(resp)
			if len(data) != 1 {
				t.Fatalf("%d data parts, want 1", len(data))
			}
			want, _ := structpb.NewValue(map[string]any{"city": "Oslo", "days": 2})
			if !strings.EqualFold(data[0].String(), want.String()) {
				t.Errorf("data %v, want %v", data[0], want)
			}
		})
	}
}

// TestLocalTool: a Go function tool the model calls runs with the model's
// arguments, and its result goes back to the model, which then answers.
func TestLocalTool(t *testing.T) {
	m := llmtest.Start(t,
		llmtest.Step{Calls: []llmtest.Call{{Name: "weather", Arguments: `{"city":"Oslo"}`}}},
		llmtest.Step{Tokens: []string{"Cold."}})
	var got string
	weather := llm.Tool{Name: "weather", Description: "the weather of a city",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
		Call: func(ctx context.Context, c llm.ToolCall) (string, error) {
			got = string(c.Arguments)
			return "-5 degrees", nil
		}}
	a := start(t, m, llm.Skill{Tools: []llm.Tool{weather}})
	resp := send(t, a, hosttest.Message("weather in Oslo?", "chat"))
	if resp.State() != a2av1.TaskState_TASK_STATE_COMPLETED || got != `{"city":"Oslo"}` {
		t.Fatalf("%s %q; the tool got %q", resp.State(), resp.Text(), got)
	}
	msgs := m.Requests()[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || last.Text() != "-5 degrees" || msgs[len(msgs)-2].ToolCalls[0].Function.Name != "weather" {
		t.Errorf("second request ends %+v, want the call and the tool's result", msgs[len(msgs)-2:])
	}
}

// TestToolNeedsInput: a tool that needs the user's answer makes the task
// INPUT_REQUIRED with its question.
func TestToolNeedsInput(t *testing.T) {
	m := llmtest.Start(t, llmtest.Step{Calls: []llmtest.Call{{Name: "book", Arguments: `{}`}}})
	book := llm.Tool{Name: "book", Call: func(context.Context, llm.ToolCall) (string, error) {
		return "", &llm.NeedsInputError{Message: a2av1.NewTextMessage("Which date?")}
	}}
	a := start(t, m, llm.Skill{Tools: []llm.Tool{book}})
	resp := send(t, a, hosttest.Message("book it", "chat"))
	if resp.State() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED || resp.GetTask().GetStatus().GetMessage().Text() != "Which date?" {
		t.Errorf("%s %q, want INPUT_REQUIRED asking \"Which date?\"", resp.State(), resp.Text())
	}
	var ni *llm.NeedsInputError
	if !errors.As(error(&llm.NeedsInputError{Message: a2av1.NewTextMessage("x")}), &ni) {
		t.Error("NeedsInputError is not found by errors.As")
	}
}

func texts(msgs []llmtest.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == "system" {
			continue
		}
		out = append(out, m.Role+": "+m.Text())
	}
	return out
}

// TestFlagsInMain: the provider's flags are host.Main's, listed by -help
// with their A2A_ variables.
func TestFlagsInMain(t *testing.T) {
	p := &llm.Provider{BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.2"}
	var stdout, stderr strings.Builder
	code := host.Main(context.Background(), "agent", host.Config{CardJSON: []byte(card), Bindings: bindings, Flags: p.Flags}, []string{"-help"}, &stdout, &stderr)
	help := stdout.String() + stderr.String()
	if code != 0 {
		t.Fatalf("-help: exit %d: %s", code, help)
	}
	for _, want := range []string{"-llm-base-url", "A2A_LLM_BASE_URL", "-llm-model", "A2A_LLM_MODEL", "-llm-api-key-env", "-llm-timeout", "-llm-max-retries", "llama3.2"} {
		if !strings.Contains(help, want) {
			t.Errorf("-help does not name %s", want)
		}
	}
}

// TestTimeout: a model that stops answering past -llm-timeout fails the task
// saying so; what it had streamed stays, its artifact closed.
func TestTimeout(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	m := llmtest.Start(t, llmtest.Step{Tokens: []string{"Once", " upon"}, Hold: hold})
	p := &llm.Provider{BaseURL: m.URL, Model: "scripted", Timeout: 200 * time.Millisecond, MaxRetries: -1}
	a := hosttest.Start(t, host.Config{CardJSON: []byte(card), Bindings: bindings, Skills: []host.Skill{{ID: "chat", Run: p.Skill(llm.Skill{ID: "chat"})}}})
	resp := send(t, a, hosttest.Message("tell a story", "chat"))
	task := resp.GetTask()
	if resp.State() != a2av1.TaskState_TASK_STATE_FAILED || !strings.Contains(task.GetStatus().GetMessage().Text(), "did not answer within 200ms (-llm-timeout), also after 0 retries") {
		t.Errorf("%s %q, want FAILED naming the timeout", resp.State(), task.GetStatus().GetMessage().Text())
	}
	if len(task.GetArtifacts()) != 1 || task.GetArtifacts()[0].Text() != "Once" {
		t.Errorf("artifacts %v, want the streamed \"Once\"", task.GetArtifacts())
	}
	if n := len(m.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retries)", n)
	}
}
