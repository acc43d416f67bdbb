package server_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store/sqlite"
)

func openSQLite(t testing.TB) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestWritesPerSimpleTask counts the database writes of a simple task
// (SendMessage "hello" → COMPLETED with one artifact): at most 4 (today 3:
// create, artifact, complete), each its own operation in the writer's group
// commits. Reads are not writes.
func TestWritesPerSimpleTask(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		st := openSQLite(t)
		e := newEnv(t, b, nil, nil, server.WithStore(st))
		sendTask(t, e.c, "hello") // warm-up: connections, caches
		before := st.Stats()
		const tasks = 20
		for range tasks {
			if task := sendTask(t, e.c, "hello"); task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
				t.Fatalf("task %v, want COMPLETED", task.GetStatus().GetState())
			}
		}
		// The lease renewal ticker writes too, but only while tasks run and
		// not within the test's first seconds.
		after := st.Stats()
		writes := after.Writes - before.Writes
		perTask := float64(writes) / tasks
		t.Logf("%d writes in %d transactions for %d tasks: %.2f writes per task", writes, after.Transactions-before.Transactions, tasks, perTask)
		if perTask > 4 {
			t.Fatalf("%.2f database writes per simple task, want at most 4", perTask)
		}
	})
}

// TestTasksSurviveAReopenedStore: a task, its push config and its history
// written through the server are all there when a new server opens the same
// database file (an orderly restart; crash restarts are tested with real
// processes in examples/echo).
func TestTasksSurviveAReopenedStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, bindings[0], nil, nil, server.WithStore(st))
	done := sendTask(t, e.c, "stream 3")
	waiting := sendTask(t, e.c, "input")
	cfg, err := e.c.CreateTaskPushNotificationConfig(ctxT(t), &a2av1.TaskPushNotificationConfig{TaskId: waiting.GetId(), Url: "https://hooks.example/a2a", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2 := func() *sqlite.Store {
		s, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}()
	e2 := newEnv(t, bindings[0], nil, nil, server.WithStore(st2))
	for _, want := range []*a2av1.Task{done, waiting} {
		got, err := e2.c.GetTask(ctxT(t), &a2av1.GetTaskRequest{Id: want.GetId()})
		if err != nil {
			t.Fatalf("GetTask(%s) after reopening: %v", want.GetId(), err)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("task %s after reopening:\n%v\nwant the same as before:\n%v", want.GetId(), got, want)
		}
	}
	gotCfg, err := e2.c.GetTaskPushNotificationConfig(ctxT(t), &a2av1.GetTaskPushNotificationConfigRequest{TaskId: waiting.GetId(), Id: cfg.GetId()})
	if err != nil || gotCfg.GetUrl() != cfg.GetUrl() {
		t.Fatalf("push config after reopening: %v, %v", gotCfg, err)
	}
	list, err := e2.c.ListTasks(ctxT(t), &a2av1.ListTasksRequest{})
	if err != nil || list.GetTotalSize() != 2 {
		t.Fatalf("ListTasks after reopening: %d tasks, %v; want 2", list.GetTotalSize(), err)
	}
	// The waiting task continues where it stopped.
	resp, err := e2.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: followUp("more", waiting.GetId())})
	if err != nil || resp.GetTask().GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("follow-up after reopening: %v, %v; want COMPLETED", resp.GetTask().GetStatus().GetState(), err)
	}
}

// BenchmarkSendMessageSQLiteSerial is BenchmarkSendMessageSQLite with one
// client: what one send costs with no other to share its commits, which
// callgrind counts the same in every run (8 clients on one processor are
// not scheduled quite alike from run to run, and batch differently).
func BenchmarkSendMessageSQLiteSerial(b *testing.B) {
	st := openSQLite(b)
	e := newEnv(b, bindings[0], &echo.Agent{ChunkInterval: -1}, nil, server.WithLogger(discardLogger()), server.WithStore(st))
	ctx := context.Background()
	req := &a2av1.SendMessageRequest{Message: userMsg("hello")}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		req.Message.MessageId = benchMessageID() // a new send, not a retry
		if _, err := e.c.SendMessage(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSendMessageSQLite is BenchmarkSendMessage's parallel JSON-RPC
// case on the SQLite store (default, durable settings), to compare with the
// memory store's and to profile what durability costs:
//
//	go test -run '^$' -bench SendMessageSQLite -benchmem ./server/
func BenchmarkSendMessageSQLite(b *testing.B) {
	st := openSQLite(b)
	e := newEnv(b, bindings[0], &echo.Agent{ChunkInterval: -1}, nil, server.WithLogger(discardLogger()), server.WithStore(st))
	ctx := context.Background()
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	cpu := startCPU()
	defer cpu.report(b)
	before := st.Stats()
	b.RunParallel(func(pb *testing.PB) {
		req := &a2av1.SendMessageRequest{Message: userMsg("hello")}
		for pb.Next() {
			req.Message.MessageId = benchMessageID() // a new send, not a retry
			if _, err := e.c.SendMessage(ctx, req); err != nil {
				b.Error(err)
				return
			}
		}
	})
	after := st.Stats()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	if tx := after.Transactions - before.Transactions; tx > 0 {
		b.ReportMetric(float64(after.Writes-before.Writes)/float64(tx), "writes/tx")
	}
}
