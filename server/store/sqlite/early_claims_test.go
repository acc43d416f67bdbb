package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/a2agen/a2agen/server/store"
)

// claimAsync claims key for taskID in a goroutine and returns where its
// outcome arrives.
func claimAsync(s *Store, key, taskID string) <-chan error {
	out := make(chan error, 1)
	go func() {
		k := store.SendKey{Tenant: "t", Owner: "alice", Key: key, TaskID: taskID, Fingerprint: "fp", Claimed: base, Until: base.Add(time.Hour)}
		held, claimed, err := s.ClaimSendKey(context.Background(), k, "")
		if err == nil && (!claimed || held.TaskID != taskID) {
			err = errors.New("not claimed: held by " + held.TaskID)
		}
		out <- err
	}()
	return out
}

// storedClaim is the task the stored claim of key names ("" for none).
func storedClaim(t *testing.T, s *Store, key string) string {
	t.Helper()
	var task string
	err := s.rdb.QueryRow(`SELECT task_id FROM send_keys WHERE tenant = 't' AND owner = 'alice' AND key = ?1`, key).Scan(&task)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatal(err)
	}
	return task
}

// TestClaimAnsweredBeforeARollback: a claim answered before its
// transaction rolled back (another write of the batch failed with a
// database error) is written by the next transaction, as answered, and
// holds against a later claim of its key.
func TestClaimAnsweredBeforeARollback(t *testing.T) {
	s := openTemp(t)
	release := blockWriter(t, s)
	claimed := claimAsync(s, "k", "task-1")
	waitQueued(t, s, 1)
	failed := make(chan error, 1)
	go func() { failed <- s.submit(context.Background(), &funcOp{sql: "INSERT INTO no_such_table VALUES (1)"}) }()
	waitQueued(t, s, 2)
	release()
	if err := <-claimed; err != nil {
		t.Fatalf("ClaimSendKey: %v", err)
	}
	if err := <-failed; err == nil {
		t.Fatal("the failing write succeeded")
	}
	execWriter(t, s, "SELECT 1") // a transaction after the rollback's
	if got := storedClaim(t, s, "k"); got != "task-1" {
		t.Fatalf("claim of k stored for %q, want task-1", got)
	}
	if err := <-claimAsync(s, "k", "task-2"); err == nil || err.Error() != "not claimed: held by task-1" {
		t.Fatalf("a second claim of k: %v; want it held by task-1", err)
	}
	if n := s.Stats().RolledBack; n < 1 {
		t.Fatalf("%d transactions rolled back", n)
	}
}

// TestClaimAnsweredBeforeAFailedCommit: a claim answered before its
// transaction failed to commit is written by the next transaction; the
// writes of the failed one that were not answered fail.
func TestClaimAnsweredBeforeAFailedCommit(t *testing.T) {
	s := openTemp(t)
	release := blockWriter(t, s)
	claimed := claimAsync(s, "k", "task-1")
	waitQueued(t, s, 1)
	failed := make(chan error, 1)
	fault := errors.New("the disk is on fire")
	go func() {
		failed <- s.submit(context.Background(), &funcOp{fn: func() {
			s.w.commitFault = func() error { s.w.commitFault = nil; return fault }
		}})
	}()
	waitQueued(t, s, 2)
	release()
	if err := <-claimed; err != nil {
		t.Fatalf("ClaimSendKey: %v", err)
	}
	if err := <-failed; !errors.Is(err, fault) {
		t.Fatalf("the write in the failed commit: %v, want %v", err, fault)
	}
	if got := storedClaim(t, s, "k"); got != "" {
		t.Fatalf("claim of k stored for %q before a transaction after the failed one", got)
	}
	execWriter(t, s, "SELECT 1")
	if got := storedClaim(t, s, "k"); got != "task-1" {
		t.Fatalf("claim of k stored for %q, want task-1", got)
	}
}
