// Package llmtest is a scripted OpenAI-compatible chat-completions server
// on loopback, for tests of LLM skills (and demos) that must not depend on
// a real model or the network: each request gets the next scripted Step —
// tokens streamed as server-sent events, tool calls, an HTTP error with
// Retry-After, or an answer held until the client goes away — and every
// request is recorded for the test to inspect.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
)

// Step is the answer to one request.
type Step struct {
	// Tokens are streamed one content delta each.
	Tokens []string
	// Calls are streamed after the tokens, each in two pieces (name, then
	// arguments), as providers do.
	Calls []Call
	// Status, when not 0 or 200, answers that HTTP status with an OpenAI
	// error body saying Message, and no stream.
	Status int
	// Message is the error's message.
	Message string
	// RetryAfter, when set, is the Retry-After header of an error.
	RetryAfter string
	// Hold, when set, stops the stream after the first token until it is
	// closed or the client goes away (cancel tests).
	Hold chan struct{}
	// Holding, when set, is closed when the stream reaches Hold.
	Holding chan struct{}
	// Gone, when set, is closed when the client went away during Hold.
	Gone chan struct{}
}

// Call is one tool call of a Step.
type Call struct {
	Name      string
	Arguments string // JSON
}

// Request is what a client sent, decoded.
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Stream      bool      `json:"stream"`
	Temperature *float64  `json:"temperature"`
	MaxTokens   int       `json:"max_tokens"`
	Tools       []struct {
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string         `json:"name"`
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	// Header is the request's HTTP header (Authorization, traceparent).
	Header http.Header `json:"-"`
}

// Message is one message of a Request.
type Message struct {
	Role       string `json:"role"`
	Content    any    `json:"content"` // a string, or parts
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// Text is the message's content as text.
func (m Message) Text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any:
		var s string
		for _, p := range c {
			if pm, ok := p.(map[string]any); ok {
				if t, ok := pm["text"].(string); ok {
					s += t
				}
			}
		}
		return s
	}
	return ""
}

// ToolNames are the names of the request's tools.
func (r Request) ToolNames() []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// Server is a running scripted server.
type Server struct {
	// URL is the base URL to give a provider (http://127.0.0.1:PORT/v1).
	URL string
	// Reply, when set, answers requests beyond the script.
	Reply func(Request) Step

	srv      *http.Server
	mu       sync.Mutex
	script   []Step
	requests []Request
}

// Start runs a server answering requests with steps, in order, and stops
// it when the test ends. A request beyond the script fails the test unless
// Reply is set.
func Start(t testing.TB, steps ...Step) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0", steps...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Listen runs a server on address (loopback: "127.0.0.1:0") answering with
// steps; Close stops it.
func Listen(address string, steps ...Step) (*Server, error) {
	l, err := net.Listen("tcp", address)
	if err != nil {
		return nil, fmt.Errorf("llmtest: %w", err)
	}
	s := &Server{URL: "http://" + l.Addr().String() + "/v1", script: steps}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serve)
	s.srv = &http.Server{Handler: mux}
	go s.srv.Serve(l)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Add appends steps to the script.
func (s *Server) Add(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, steps...)
}

// Requests returns the requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "", "the body is not a chat-completions request: "+err.Error())
		return
	}
	req.Header = r.Header.Clone()
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var step Step
	switch {
	case len(s.script) > 0:
		step, s.script = s.script[0], s.script[1:]
	case s.Reply != nil:
		step = s.Reply(req)
	default:
		s.mu.Unlock()
		writeError(w, http.StatusInternalServerError, "", "llmtest: no scripted step left for this request")
		return
	}
	s.mu.Unlock()
	if step.Status != 0 && step.Status != http.StatusOK {
		writeError(w, step.Status, step.RetryAfter, step.Message)
		return
	}
	stream(w, r, req, step)
}

func writeError(w http.ResponseWriter, status int, retryAfter, message string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": message, "type": http.StatusText(status), "code": strconv.Itoa(status), "param": nil,
	}})
}

// stream answers step as chat.completion.chunk events.
func stream(w http.ResponseWriter, r *http.Request, req Request, step Step) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(delta map[string]any, finish any) {
		chunk := map[string]any{
			"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil)
	for i, tok := range step.Tokens {
		send(map[string]any{"content": tok}, nil)
		if i == 0 && step.Hold != nil {
			if step.Holding != nil {
				close(step.Holding)
			}
			select {
			case <-step.Hold:
			case <-r.Context().Done():
				if step.Gone != nil {
					close(step.Gone)
				}
				return
			}
		}
	}
	for i, c := range step.Calls {
		send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)
		send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c.Arguments}}}}, nil)
	}
	finish := "stop"
	if len(step.Calls) > 0 {
		finish = "tool_calls"
	}
	send(map[string]any{}, finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
}
