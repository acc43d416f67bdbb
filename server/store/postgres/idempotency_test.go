package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/store"
)

// TestIdempotentSendAcrossReplicas: two servers, each with a store of its
// own on one schema (two replicas), get the same message (one idempotency
// key) at once, round after round: each round makes one task, and both
// answer with it. The replica that loses the claim answers
// ResourceExhausted while the winner has not created the task yet; the
// caller sends again, as a client retrying would.
func TestIdempotentSendAcrossReplicas(t *testing.T) {
	t.Parallel()
	url := testURL(t)
	schema := testSchema(t, url)
	var replicas [2]*server.Server
	for i := range replicas {
		srv, err := server.New(echo.Card(), &echo.Agent{}, server.WithStore(openSchema(t, url, schema)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
		replicas[i] = srv
	}
	ctx := context.Background()
	const rounds = 20
	for round := range rounds {
		msg := &a2av1.Message{MessageId: fmt.Sprintf("race-%d", round), Role: a2av1.Role_ROLE_USER,
			Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}
		var (
			wg  sync.WaitGroup
			ids [2]string
		)
		start := make(chan struct{})
		for i, srv := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for {
					resp, err := srv.SendMessage(ctx, &a2av1.SendMessageRequest{Message: msg})
					var re *runtime.Error
					if errors.As(err, &re) && re.Code() == runtime.CodeResourceExhausted {
						continue // the other replica is creating the task
					}
					if err != nil {
						t.Errorf("round %d, replica %d: %v", round, i, err)
						return
					}
					ids[i] = resp.GetTask().GetId()
					return
				}
			}()
		}
		close(start)
		wg.Wait()
		if ids[0] == "" || ids[0] != ids[1] {
			t.Fatalf("round %d: the replicas answered tasks %q and %q, want one task", round, ids[0], ids[1])
		}
	}
	page, err := replicas[0].ListTasks(ctx, &a2av1.ListTasksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if page.GetTotalSize() != rounds {
		t.Fatalf("%d tasks after %d rounds of two racing sends, want %d", page.GetTotalSize(), rounds, rounds)
	}
}

// TestSendKeyClaimRace: claims of one key by two stores on one schema,
// many at once: exactly one wins (store.SendKeys across replicas).
func TestSendKeyClaimRace(t *testing.T) {
	t.Parallel()
	url := testURL(t)
	schema := testSchema(t, url)
	a, b := openSchema(t, url, schema), openSchema(t, url, schema)
	now := time.Now()
	const n = 32
	var (
		wg   sync.WaitGroup
		wins atomic.Int32
	)
	start := make(chan struct{})
	for i := range n {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, won, err := s.ClaimSendKey(context.Background(), store.SendKey{Tenant: "t", Owner: "o", Key: "k",
				TaskID: fmt.Sprintf("task-%d", i), Fingerprint: "f", Claimed: now, Until: now.Add(time.Hour)}, "")
			if err != nil {
				t.Errorf("ClaimSendKey: %v", err)
			}
			if won {
				wins.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d of %d racing claims on two replicas won, want 1", wins.Load(), n)
	}
}
