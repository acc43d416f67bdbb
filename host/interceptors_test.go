package host_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
)

// callRecorder is an interceptor that notes, per call, the binding, the
// operation, the caller's subject, the number of stream events and the
// outcome.
type callRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *callRecorder) add(ctx context.Context, call *runtime.CallInfo, events int, err error) {
	who := "anonymous"
	if id, ok := runtime.IdentityFromContext(ctx); ok {
		who = id.Subject
	}
	outcome := "ok"
	var e *runtime.Error
	if errors.As(err, &e) {
		outcome = e.Code().String()
	} else if err != nil {
		outcome = err.Error()
	}
	line := fmt.Sprintf("%s %s %s %s", call.Binding, call.Operation.Name, who, outcome)
	if events >= 0 {
		line += fmt.Sprintf(" events=%d", events)
	}
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
}

func (r *callRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.lines
	r.lines = nil
	return out
}

func (r *callRecorder) interceptor() runtime.Interceptor {
	return runtime.InterceptorFuncs{
		Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
				resp, err := next(ctx, call, req)
				r.add(ctx, call, -1, err)
				return resp, err
			}
		},
		Stream: func(next runtime.StreamFunc) runtime.StreamFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
				n := 0
				err := next(ctx, call, req, func(m proto.Message) error {
					n++
					return send(m)
				})
				r.add(ctx, call, n, err)
				return err
			}
		},
	}
}

// TestConfigInterceptorsOnEveryBinding: the interceptors of
// host.Config.Interceptors (hosting.go in a scaffolded project) wrap every
// call of the agent on JSON-RPC, HTTP+JSON and gRPC, unary and streaming,
// see the caller the card's security schemes identified, and see the calls
// refused before the skill (here an anonymous caller).
func TestConfigInterceptorsOnEveryBinding(t *testing.T) {
	card := &a2av1.AgentCard{
		Name: "intercepted", Description: "d", Version: "1",
		Capabilities:      &a2av1.AgentCapabilities{Streaming: proto.Bool(true)},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "bearer"}}},
		},
		SecurityRequirements: []*a2av1.SecurityRequirement{req("bearer")},
		Skills:               []*a2av1.AgentSkill{{Id: "a", Name: "A", Description: "a", Tags: []string{"t"}}},
	}
	cardJSON, err := runtime.MarshalJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	rec := &callRecorder{}
	a := hosttest.Start(t, host.Config{
		CardJSON: cardJSON, Bindings: bindings,
		Skills:       []host.Skill{{ID: "a", Run: completeWith}},
		Interceptors: []runtime.Interceptor{rec.interceptor()},
	})
	ctx := context.Background()
	for _, b := range bindings {
		t.Run(b.Protocol.String(), func(t *testing.T) {
			rec.take()
			c := a.ClientWith(t, b, runtime.WithHeader("Authorization", "Bearer "+hosttest.Token))
			if _, err := c.SendMessage(ctx, message("hi", "a")); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, err := range c.SendStreamingMessage(ctx, message("hi", "a")) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if _, err := a.ClientWith(t, b).SendMessage(ctx, message("hi", "a")); !errors.Is(err, runtime.ErrUnauthenticated) {
				t.Fatalf("anonymous SendMessage: %v, want Unauthenticated", err)
			}
			bn := string(b.Protocol)
			want := []string{
				bn + " SendMessage " + hosttest.Subject + " ok",
				fmt.Sprintf("%s SendStreamingMessage %s ok events=%d", bn, hosttest.Subject, n),
				bn + " SendMessage anonymous Unauthenticated",
			}
			if got := rec.take(); !slices.Equal(got, want) {
				t.Errorf("the interceptor saw\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}
