package host_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
)

// TestMainOwnerCapsOnSQLite: the per-owner caps reach the SQLite store Main
// opens, from their flags and from their environment variables alike, and
// behave as docs/limits.md says: one more finished task of an owner (here
// the anonymous callers together) over -max-terminal-tasks-per-owner
// removes its oldest, which then answers TaskNotFound; over
// A2A_MAX_BYTES_PER_OWNER its older tasks go and the newest stays, however
// large.
func TestMainOwnerCapsOnSQLite(t *testing.T) {
	for _, c := range []struct {
		name  string
		args  []string
		env   map[string]string
		sends int // the first is removed, the others kept
	}{
		{"flag", []string{"-max-terminal-tasks-per-owner", "2"}, nil, 3},
		{"env", nil, map[string]string{"A2A_MAX_BYTES_PER_OWNER": "1"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(host.StoreEnv, "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			cfg, addr := plainConfig(t)
			_, stop := startMain(t, cfg, append([]string{"-store", "sqlite:" + filepath.Join(t.TempDir(), "agent.db")}, c.args...), 3)
			defer stop()
			ctx := context.Background()
			client := a2av1.NewA2AServiceJSONRPCClient("http://" + addr + "/")
			var ids []string
			for i := range c.sends {
				resp, err := client.SendMessage(ctx, message(string(rune('a'+i)), ""))
				if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
					t.Fatalf("SendMessage %d = %v, %v; want a completed task", i, resp, err)
				}
				ids = append(ids, resp.GetTask().GetId())
			}
			if _, err := client.GetTask(ctx, &a2av1.GetTaskRequest{Id: ids[0]}); !errors.Is(err, runtime.ErrTaskNotFound) {
				t.Errorf("GetTask of the owner's oldest finished task: %v, want TaskNotFound", err)
			}
			for _, id := range ids[1:] {
				if _, err := client.GetTask(ctx, &a2av1.GetTaskRequest{Id: id}); err != nil {
					t.Errorf("GetTask %s: %v, want it kept", id, err)
				}
			}
		})
	}
}
