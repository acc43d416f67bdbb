//go:build linux

package main

import (
	"context"
	"fmt"
	"iter"
	"os"
	"strconv"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// TestFigures measures the memory figures of docs/performance.md on a real
// echo process: RSS per finished task in the memory store (blocking
// SendMessage, tasks kept), then per idle stream (SubscribeToTask on a task
// that works for minutes, over JSON-RPC, one HTTP connection each). It is a measurement, not a check: it runs only
// with A2AGEN_FIGURES=1 (A2AGEN_FIGURES_STREAMS, A2AGEN_FIGURES_TASKS set the
// counts; defaults 2000 and 50000).
func TestFigures(t *testing.T) {
	if os.Getenv("A2AGEN_FIGURES") != "1" {
		t.Skip("a measurement: set A2AGEN_FIGURES=1")
	}
	count := func(env string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(env)); err == nil && n > 0 {
			return n
		}
		return def
	}
	streams, tasks := count("A2AGEN_FIGURES_STREAMS", 2000), count("A2AGEN_FIGURES_TASKS", 50000)
	bin := proctest.Build(t, ".", ".")
	p := proctest.Start(t, bin, proctest.Options{Args: []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--max-terminal-tasks", "0", "--terminal-task-ttl", "0"}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	settle := func() int64 {
		time.Sleep(2 * time.Second) // let the GC return what it freed
		rss, _ := procMemory(t, p.Pid())
		return rss
	}
	c := p.Client(t, runtime.BindingJSONRPC)
	base := settle()
	for i := range tasks {
		if _, err := c.SendMessage(ctx, &a2av1.SendMessageRequest{Message: proctest.UserMessage(fmt.Sprintf("task %d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	withTasks := settle()
	perTask := float64(withTasks-base) / float64(tasks)
	task := proctest.SendTask(ctx, t, c, "slow 600000", &a2av1.SendMessageConfiguration{ReturnImmediately: true})
	before := settle()
	var stops []context.CancelFunc
	for i := range streams {
		sctx, stop := context.WithCancel(ctx)
		stops = append(stops, stop)
		// A client of its own: a connection per stream.
		cl := a2av1.NewA2AServiceJSONRPCClient(p.Endpoints[runtime.BindingJSONRPC])
		next, stopIter := iter.Pull2(cl.SubscribeToTask(sctx, &a2av1.SubscribeToTaskRequest{Id: task.GetId()}))
		if _, err, ok := next(); !ok || err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		defer stopIter()
	}
	withStreams := settle()
	perStream := float64(withStreams-before) / float64(streams)
	for _, s := range stops {
		s()
	}
	t.Logf("idle streams: %d, RSS %d → %d MiB: %.1f KiB per stream (%.0f streams per GiB)", streams, before>>20, withStreams>>20, perStream/1024, float64(1<<30)/perStream)
	t.Logf("finished tasks (memory store): %d, RSS %d → %d MiB: %.2f KiB per task (%.0f tasks per GiB)", tasks, base>>20, withTasks>>20, perTask/1024, float64(1<<30)/perTask)
}
