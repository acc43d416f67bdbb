package host_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// plainConfig is an agent with one skill that completes every task, on a
// free loopback port.
func plainConfig(t *testing.T) (host.Config, string) {
	addr := freeAddr(t)
	return host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: addr, Path: "/"}}}, addr
}

// TestMainStoreErrors: a store that cannot be opened ends Main with exit 1
// and one line naming the store (password redacted) and the reason; the
// agent never starts.
func TestMainStoreErrors(t *testing.T) {
	t.Setenv(host.StoreEnv, "")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := plainConfig(t)
	for _, tc := range []struct {
		store, want string
	}{
		{"bogus:x", `agent: store bogus:x: unknown store scheme "bogus"; use memory, sqlite:PATH`},
		{"data/agent.db", "agent: store data/agent.db: no scheme: for a SQLite file write sqlite:data/agent.db"},
		{"", "agent: store: no store URL given"},
		{"sqlite:a.db?mode=ro", `agent: store sqlite:a.db?mode=ro: unknown parameter "mode"`},
		{"postgres://u:secret@127.0.0.1:1/tasks?connect_timeout=5", "agent: store postgres://u:xxxxx@127.0.0.1:1/tasks?connect_timeout=5: cannot connect: "},
		{"sqlite:" + file + "/agent.db", "agent: store sqlite:" + file + "/agent.db: "},
	} {
		var stdout, stderr syncBuffer
		code := host.Main(context.Background(), "agent", cfg, []string{"-store", tc.store}, &stdout, &stderr)
		if code != 1 || !strings.HasPrefix(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("-store %q: exit %d, stderr:\n%s\nwant exit 1 and one line starting %q", tc.store, code, stderr.String(), tc.want)
		}
		if strings.Contains(stderr.String(), "secret") {
			t.Errorf("-store %q: stderr shows the password: %s", tc.store, stderr.String())
		}
		if stdout.String() != "" {
			t.Errorf("-store %q: stdout %q, want nothing (the agent must not start)", tc.store, stdout.String())
		}
	}
}

// TestMainStoreFromEnv: without -store, A2A_STORE names the store; a bad
// value is reported as coming from there.
func TestMainStoreFromEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "env", "agent.db")
	t.Setenv(host.StoreEnv, "sqlite:"+path)
	cfg, _ := plainConfig(t)
	out, stop := startMain(t, cfg, nil, 3)
	if !strings.HasSuffix(out, "store     sqlite:"+path+"\n") {
		t.Errorf("stdout %q does not end with the store from %s", out, host.StoreEnv)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the store of %s was not created: %v", host.StoreEnv, err)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}

	t.Setenv(host.StoreEnv, "nonsense")
	var stdout, stderr syncBuffer
	if code := host.Main(context.Background(), "agent", cfg, nil, &stdout, &stderr); code != 1 ||
		!strings.HasPrefix(stderr.String(), "agent: store nonsense: unknown store;") || !strings.HasSuffix(stderr.String(), "(from $A2A_STORE)\n") {
		t.Errorf("A2A_STORE=nonsense: exit %d, stderr %q; want 1 and the store error from $A2A_STORE", code, stderr.String())
	}
}

// TestMainStoreFlagBeatsEnv: -store wins over A2A_STORE (which here could
// not be opened).
func TestMainStoreFlagBeatsEnv(t *testing.T) {
	t.Setenv(host.StoreEnv, "nonsense")
	cfg, _ := plainConfig(t)
	out, stop := startMain(t, cfg, []string{"-store", "memory"}, 3)
	if !strings.HasSuffix(out, "store     memory\n") {
		t.Errorf("stdout %q, want the store of -store", out)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

// TestMainDefaultStore: with neither -store nor A2A_STORE, a first start
// creates data/agent.db in the working directory, and a task finished
// before a restart is still there after it.
func TestMainDefaultStore(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv(host.StoreEnv, "")
	cfg, addr := plainConfig(t)
	ctx := context.Background()
	c := a2av1.NewA2AServiceJSONRPCClient("http://" + addr + "/")

	out, stop := startMain(t, cfg, nil, 3)
	if !strings.HasSuffix(out, "store     "+host.DefaultStore+"\n") {
		t.Errorf("stdout %q, want the default store", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "agent.db")); err != nil {
		t.Errorf("first start: %v", err)
	}
	resp, err := c.SendMessage(ctx, message("keep me", ""))
	if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("SendMessage = %v, %v; want a completed task", resp, err)
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}

	_, stop = startMain(t, cfg, nil, 3)
	defer stop()
	// The client's kept-alive connection died with the first process (the
	// client uses http.DefaultClient).
	http.DefaultClient.CloseIdleConnections()
	got, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: resp.GetTask().GetId()})
	if err != nil {
		t.Fatalf("GetTask after a restart: %v", err)
	}
	if got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || got.GetStatus().GetMessage().GetParts()[0].GetText() != "keep me" {
		t.Errorf("GetTask after a restart = %v, want the completed task", got)
	}
}

// TestMainProgramStore: a program that sets Config.Store keeps it: Main
// opens no store, refuses the store flags and leaves the store open.
func TestMainProgramStore(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(host.StoreEnv, "")
	cfg, addr := plainConfig(t)
	st := store.NewMemory()
	defer st.Close()
	cfg.Store = st
	for _, args := range [][]string{{"-store", "memory"}, {"-terminal-task-ttl", "1h"}, {"-max-terminal-tasks", "5"}} {
		var stdout, stderr syncBuffer
		if code := host.Main(context.Background(), "agent", cfg, args, &stdout, &stderr); code != 2 ||
			!strings.Contains(stderr.String(), "do not apply: the program keeps its tasks in its own store") {
			t.Errorf("%q with Config.Store: exit %d, stderr %q; want 2", args, code, stderr.String())
		}
	}

	out, stop := startMain(t, cfg, nil, 3)
	if !strings.HasSuffix(out, "store     provided by the program\n") {
		t.Errorf("stdout %q, want the program's store", out)
	}
	ctx := context.Background()
	resp, err := a2av1.NewA2AServiceJSONRPCClient("http://"+addr+"/").SendMessage(ctx, message("mine", ""))
	if err != nil {
		t.Fatal(err)
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	if _, err := st.Task(ctx, "", resp.GetTask().GetId()); err != nil {
		t.Errorf("the program's store after Main: %v, want the task (and the store still open)", err)
	}
	if _, err := os.Stat("data"); !os.IsNotExist(err) {
		t.Errorf("Main created data/ although the program has its own store (%v)", err)
	}
}
