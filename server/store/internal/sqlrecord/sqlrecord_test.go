package sqlrecord

import (
	"errors"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// TestMiss: a write that matched no row is reported as what the stored
// row says — gone (also when only retention makes it so), terminal, or
// behind — and as nothing the store knows when none applies.
func TestMiss(t *testing.T) {
	now := int64(10 * time.Hour)
	cut := Cutoffs{TTL: time.Hour, InterruptedTTL: 2 * time.Hour}
	for _, c := range []struct {
		name string
		st   Stored
		want error
	}{
		{"no row", Stored{}, store.ErrNotFound},
		{"ended past the TTL", Stored{Found: true, Version: 3, Ended: true, EndedAt: now - int64(2*time.Hour)}, store.ErrNotFound},
		{"waiting past its TTL", Stored{Found: true, Version: 3, State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, StatusTime: now - int64(3*time.Hour)}, store.ErrNotFound},
		{"ended", Stored{Found: true, Version: 3, Ended: true, EndedAt: now, State: a2av1.TaskState_TASK_STATE_COMPLETED}, store.ErrTerminal},
		{"other version", Stored{Found: true, Version: 4, State: a2av1.TaskState_TASK_STATE_WORKING}, store.ErrConflict},
		{"waiting within its TTL", Stored{Found: true, Version: 3, State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, StatusTime: now}, nil},
	} {
		err := cut.Miss("t1", c.st, 3, now)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: Miss = %v, want %v", c.name, err, c.want)
		}
	}
	if err := (Cutoffs{}).Miss("t1", Stored{Found: true, Version: 3, Ended: true, EndedAt: 0}, 3, now); !errors.Is(err, store.ErrTerminal) {
		t.Errorf("without a TTL an old terminal task is terminal, not gone: %v", err)
	}
}

// TestList: each optional filter sets its bit and its value; the
// retention cutoffs apply only when configured.
func TestList(t *testing.T) {
	now := int64(5 * time.Hour)
	at := time.Unix(0, int64(time.Hour))
	l := Cutoffs{}.List("T", store.Query{Owner: "o", Limit: 10}, now)
	if l.Shape != 0 || l.Limit != 11 || l.LiveSince != MinNanos || l.WaitingSince != MinNanos {
		t.Errorf("plain listing = %+v, want no filter, limit 11, no cutoffs", l)
	}
	l = Cutoffs{TTL: time.Hour, InterruptedTTL: 2 * time.Hour}.List("T", store.Query{Owner: "o", ContextID: "c",
		State: a2av1.TaskState_TASK_STATE_WORKING, UpdatedAfter: at, After: &store.Cursor{Time: at, ID: "x"}, Limit: 1}, now)
	want := ByContext | ByState | ByUpdatedAfter | ByTTL | ByWaitTTL | ByCursor
	if l.Shape != want || l.UpdatedAfter != int64(time.Hour) || l.CursorTime != int64(time.Hour) || l.CursorID != "x" ||
		l.LiveSince != now-int64(time.Hour) || l.WaitingSince != now-int64(2*time.Hour) {
		t.Errorf("listing with every filter = %+v", l)
	}
}

// TestNanosClamps: times outside int64 nanoseconds are stored at its ends,
// and a zero lease is NULL.
func TestNanosClamps(t *testing.T) {
	if got := Nanos(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)); got != MinNanos {
		t.Errorf("Nanos(year 1) = %d, want MinNanos", got)
	}
	if got := Nanos(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)); got != MaxNanos {
		t.Errorf("Nanos(year 3000) = %d, want MaxNanos", got)
	}
	if _, ok := Lease(time.Time{}); ok {
		t.Error("Lease(zero time) is not NULL")
	}
	if got := TimeOf(Lease(time.Unix(7, 0))); !got.Equal(time.Unix(7, 0)) {
		t.Errorf("TimeOf(Lease(7s)) = %v", got)
	}
}

// TestStale: a runner has stopped when its lease ended, and, with a live
// lease, only when its process is known to be gone; a store that holds its
// file locked knows every other process's runner stopped.
func TestStale(t *testing.T) {
	now := time.Unix(1000, 0)
	self := store.NewRunnerID()
	foreign := "elsewhere.example/1/abcdef/1" // another host: its process cannot be checked
	live := now.Add(time.Minute)
	for _, c := range []struct {
		name      string
		rec       store.Record
		exclusive bool
		want      bool
	}{
		{"no lease", store.Record{Runner: foreign}, false, true},
		{"lease ended", store.Record{Runner: foreign, LeaseUntil: now.Add(-time.Second)}, false, true},
		{"live lease on another host", store.Record{Runner: foreign, LeaseUntil: live}, false, false},
		{"live lease, another process, file locked", store.Record{Runner: foreign, LeaseUntil: live}, true, true},
	} {
		if got := NewStale(self, now, c.exclusive).Stopped(c.rec); got != c.want {
			t.Errorf("%s: Stopped = %v, want %v", c.name, got, c.want)
		}
	}
}
