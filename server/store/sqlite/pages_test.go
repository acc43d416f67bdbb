package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// walTrees returns the tables and indexes (by name) whose pages the WAL
// frames after frame from hold, and the number of frames in the WAL.
// Checkpoints must be off.
func walTrees(t *testing.T, s *Store, from int) (map[string]int, int) {
	t.Helper()
	const frame = 24 + 4096
	b, err := os.ReadFile(s.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	n := max(len(b)-32, 0) / frame
	owner := map[uint32]string{}
	rows, err := s.rdb.Query(`SELECT name, pageno FROM dbstat`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var p uint32
		if err := rows.Scan(&name, &p); err != nil {
			t.Fatal(err)
		}
		owner[p] = name
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	trees := map[string]int{}
	for i := from; i < n; i++ {
		p := binary.BigEndian.Uint32(b[32+i*frame:])
		name, ok := owner[p]
		switch {
		case p == 1:
			name = "header" // the database size changed
		case !ok:
			name = fmt.Sprintf("free page %d", p)
		}
		trees[name]++
	}
	return trees, n
}

// TestWritesTouchOnlyTheirIndexes: each kind of write rewrites the pages
// of the indexes whose entries it changes and no others (an UPDATE that
// assigns an indexed column rewrites the index even when the value stays
// the same; the statements avoid that). With a per-owner cap, a write
// that ends a task also counts it against its owner (owner_counts,
// tasks_owner_ended: owner_counts.go); without one, it does not.
func TestWritesTouchOnlyTheirIndexes(t *testing.T) {
	t.Run("no cap", func(t *testing.T) {
		writesTouchOnlyTheirIndexes(t, openTemp(t, withoutCheckpoints()))
	})
	t.Run("cap per owner", func(t *testing.T) {
		writesTouchOnlyTheirIndexes(t, openTemp(t, withoutCheckpoints(), WithRetention(store.Retention{MaxTerminalTasksPerOwner: 1 << 30})),
			"owner_counts", "tasks_owner_ended")
	})
}

// writesTouchOnlyTheirIndexes runs TestWritesTouchOnlyTheirIndexes on s,
// whose writes that end a task also rewrite the pages of counted.
func writesTouchOnlyTheirIndexes(t *testing.T, s *Store, counted ...string) {
	ctx := context.Background()
	const n = 200
	runner := "h/1/a"
	lease := base.Add(time.Hour)
	id := func(i int) string { return fmt.Sprintf("%016x", uint64(i+1)*0x9e3779b97f4a7c15) }
	versions := make([]int64, n)
	task := func(i int, state a2av1.TaskState, at time.Duration, artifacts int) *a2av1.Task {
		t := newTask(id(i), state, at)
		for a := range artifacts {
			t.Artifacts = append(t.Artifacts, &a2av1.Artifact{ArtifactId: fmt.Sprint(a),
				Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}})
		}
		return t
	}
	_, from := walTrees(t, s, 0)
	step := func(name string, write func(i int), want ...string) {
		t.Helper()
		for i := range n {
			write(i)
		}
		trees, end := walTrees(t, s, from)
		from = end
		t.Logf("%-28s %5.2f WAL pages per write: %v", name, float64(sum(trees))/n, trees)
		got := slices.Sorted(maps.Keys(trees))
		got = slices.DeleteFunc(got, func(k string) bool { return k == "header" || k == "tasks" })
		if !slices.Equal(got, want) {
			t.Errorf("%s rewrote the pages of %v; want only the table and %v", name, got, want)
		}
	}
	step("create", func(i int) {
		create(t, s, store.Creation{Record: store.Record{Task: task(i, submitted, 0, 0), Runner: runner, LeaseUntil: lease}})
		versions[i] = 1
	}, "context_counts", "sqlite_autoindex_tasks_1", "task_counts", "tasks_by_context", "tasks_by_runner", "tasks_by_time")
	step("artifact (same status)", func(i int) {
		versions[i] = update(t, s, store.Update{Task: task(i, submitted, 0, 1), Expect: versions[i]})
	})
	step("status", func(i int) {
		versions[i] = update(t, s, store.Update{Task: task(i, working, time.Second, 1), Expect: versions[i]})
	}, "tasks_by_context", "tasks_by_time")
	step("status, same runner's lease", func(i int) {
		versions[i] = update(t, s, store.Update{Task: task(i, working, 2*time.Second, 1), Expect: versions[i], Runner: runner, LeaseUntil: lease.Add(time.Minute)})
	}, "tasks_by_context", "tasks_by_time")
	step("renew leases", func(i int) {
		if i == 0 {
			if err := s.RenewRuns(ctx, runner, lease.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	})
	step("complete", func(i int) {
		versions[i] = update(t, s, store.Update{Task: task(i, completed, 3*time.Second, 2), Expect: versions[i]})
	}, slices.Sorted(slices.Values(append(counted, "tasks_by_context", "tasks_by_end", "tasks_by_runner", "tasks_by_time")))...)
}

func sum(m map[string]int) (n int) {
	for _, v := range m {
		n += v
	}
	return n
}

// TestWALStaysBounded: under a steady load the checkpointer copies the WAL
// into the database and the WAL starts over, so it stays short.
func TestWALStaysBounded(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	const workers, tasks = 16, 400
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := range tasks {
				id := fmt.Sprintf("%016x", uint64(g*tasks+i+1)*0x9e3779b97f4a7c15)
				rec, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(id, working, 0)}})
				if err == nil {
					_, err = s.UpdateTask(ctx, store.Update{Task: newTask(id, completed, time.Second), Expect: rec.Version})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	pages := fi.Size() / (24 + 4096)
	n := s.ckpt.checkpoints.Load()
	t.Logf("%d tasks: %d checkpoints, %d restarts by the writer, WAL file of %d pages", workers*tasks, n, s.ckpt.restarts.Load(), pages)
	if n < 5 {
		t.Fatalf("%d checkpoints", n)
	}
	if pages > 2*walRestartAt {
		t.Fatalf("the WAL grew to %d pages", pages)
	}
}

// TestWALRestartNeverWaits: while a reader holds an old snapshot, the
// checkpoints cannot copy the whole WAL and it grows past walRestartAt;
// the writer's attempts to restart it give up at once instead of holding
// up the writes, and once the reader is done the WAL starts over.
func TestWALRestartNeverWaits(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM tasks`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	// Each creation appends a few pages; batches share some.
	var slowest time.Duration
	write := func(from, to int) {
		for i := from; i < to; i++ {
			start := time.Now()
			create(t, s, store.Creation{Record: store.Record{Task: newTask(fmt.Sprintf("%016x", uint64(i+1)*0x9e3779b97f4a7c15), completed, 0)}})
			slowest = max(slowest, time.Since(start))
		}
	}
	i := 0
	for ; s.ckpt.walPages.Load() <= walRestartAt+checkpointEvery/2; i += 100 {
		if i > 100000 {
			t.Fatalf("the WAL did not grow past %d pages (%d)", walRestartAt, s.ckpt.walPages.Load())
		}
		write(i, i+100)
	}
	write(i, i+200) // attempts to restart, all refused by the reader
	if r := s.ckpt.restarts.Load(); r != 0 {
		t.Fatalf("%d restarts of the WAL while a reader used it", r)
	}
	if slowest > time.Second {
		t.Fatalf("a write took %v while the writer tried to restart the WAL", slowest)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for i += 200; s.ckpt.restarts.Load() == 0; i += 10 {
		if time.Now().After(deadline) {
			t.Fatalf("the WAL was not restarted after the reader finished (%d pages)", s.ckpt.walPages.Load())
		}
		write(i, i+10)
	}
	t.Logf("%d tasks; slowest write %v; WAL restarted", i, slowest)
}
