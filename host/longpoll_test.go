package host_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// askForInput is a skill that leaves its task waiting for input: a task
// that does not change again by itself.
func askForInput(_ context.Context, _ *server.Request, ev *server.Events) error {
	return ev.InputRequired(server.AgentMessage("more?"))
}

// TestMainLongPollHold: the long-poll hold reaches the server from
// Config.LongPollHold, $A2A_LONG_POLL_HOLD and -long-poll-hold, with the
// precedence of the other flags. A long-poll of a task waiting for input
// is answered with the task as it is once the hold ends; JSON-RPC carries
// no deadline to the server, so under a hold of 10 minutes the caller's own
// short deadline ends the call first, and under the default (30 s) the
// caller's 20 s would too.
func TestMainLongPollHold(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config time.Duration // Config.LongPollHold
		env    string        // A2A_LONG_POLL_HOLD
		args   []string
		held   bool // held past the caller's deadline
	}{
		{"config", 50 * time.Millisecond, "", nil, false},
		{"config of none", -1, "", nil, false},
		{"config held", server.MaxLongPollHold, "", nil, true},
		{"variable over config", server.MaxLongPollHold, "50ms", nil, false},
		{"flag over variable", 0, "10m", []string{"-long-poll-hold", "0"}, false},
		{"flag held", 0, "", []string{"-long-poll-hold=10m"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("A2A_LONG_POLL_HOLD", tc.env)
			cfg, addr := plainConfig(t)
			cfg.CardJSON = versionsCard(t, addr)
			cfg.Skills = []host.Skill{{ID: "a", Run: askForInput}}
			cfg.LongPollHold = tc.config
			_, stop := runMain(t, cfg, append([]string{"-protocol-versions", "1.0,1.1"}, tc.args...), 1)
			defer stop()

			c := a2av1.NewA2AServiceJSONRPCClient("http://"+addr+"/", runtime.WithProtocolVersion("1.1"))
			resp, err := c.SendMessage(context.Background(), message("hi", ""))
			if err != nil {
				t.Fatal(err)
			}
			waiting := resp.GetTask()
			if waiting.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_INPUT_REQUIRED || waiting.GetGeneration() == 0 {
				t.Fatalf("the task to long-poll: %v; want one waiting for input, with a generation", waiting)
			}
			wait := 20 * time.Second
			if tc.held {
				wait = 300 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			task, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: waiting.GetId(), CurrentGeneration: &waiting.Generation})
			switch {
			case tc.held && !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("long-poll under a 10 min hold: %v, %v; want it held past the caller's deadline of %v", task, err, wait)
			case !tc.held && (err != nil || task.GetGeneration() != waiting.GetGeneration()):
				t.Errorf("long-poll: %v, %v; want the task as it is (generation %d) once the hold ended", task, err, waiting.GetGeneration())
			}
		})
	}
}

// TestMainLongPollHoldErrors: a hold that is negative, longer than the
// server holds a call or not a duration ends Main with exit 2 naming the
// flag or variable and what to give; a Config with too long a hold does
// not start.
func TestMainLongPollHoldErrors(t *testing.T) {
	t.Setenv("A2A_LONG_POLL_HOLD", "")
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"-long-poll-hold", "11m"}, "agent: -long-poll-hold is 11m0s, longer than a long-poll can be held (10m0s): lower it (0 answers at once)"},
		{"", []string{"-long-poll-hold", "-1s"}, "agent: -long-poll-hold must not be negative (0 means none)"},
		{"1h", nil, "agent: $A2A_LONG_POLL_HOLD is 1h0m0s, longer than a long-poll can be held (10m0s)"},
		{"soon", nil, `agent: $A2A_LONG_POLL_HOLD="soon": invalid value for -long-poll-hold: parse error`},
	} {
		t.Setenv("A2A_LONG_POLL_HOLD", tc.env)
		cfg, _ := plainConfig(t)
		var stdout, stderr syncBuffer
		code := host.Main(context.Background(), "agent", cfg, append([]string{"-store", "memory"}, tc.args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q %q: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.env, tc.args, code, stderr.String(), tc.want)
		}
	}

	cfg, _ := plainConfig(t)
	cfg.LongPollHold = server.MaxLongPollHold + time.Minute
	a, err := host.Start(cfg)
	if err == nil {
		_ = a.Shutdown(context.Background())
		t.Fatal("an agent with an 11 min long-poll hold started")
	}
	if want := "host: Config.LongPollHold is 11m0s, longer than a long-poll can be held (server.MaxLongPollHold, 10m0s): lower it"; !strings.Contains(err.Error(), want) {
		t.Errorf("Start: %v, want %q", err, want)
	}
}
