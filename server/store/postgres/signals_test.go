package postgres

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// receive waits for the next signal on ch.
func receive(t *testing.T, ch <-chan store.Signal, who string) store.Signal {
	t.Helper()
	select {
	case sig, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the signal channel was closed", who)
		}
		return sig
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no signal within 10s", who)
	}
	return store.Signal{}
}

// none checks that nothing arrives on ch for a while.
func none(t *testing.T, ch <-chan store.Signal, who string, d time.Duration) {
	t.Helper()
	select {
	case sig, ok := <-ch:
		t.Fatalf("%s: got %+v (open %v), want nothing", who, sig, ok)
	case <-time.After(d):
	}
}

// TestSignalsBetweenReplicas: a signal sent through A reaches the receiver
// of its runner on B, whatever its ids hold, in the order sent, and no
// other runner's receiver.
func TestSignalsBetweenReplicas(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	url := testURL(t)
	schema := testSchema(t, url)
	a, b := openSchema(t, url, schema), openSchema(t, url, schema)
	ctx := context.Background()

	onB, stopB := b.ReceiveSignals("host/1/n1/1")
	defer stopB()
	otherOnB, stopOther := b.ReceiveSignals("host/1/n1/2")
	defer stopOther()
	onA, stopA := a.ReceiveSignals("host/2/n2/1")
	defer stopA()

	sigs := []store.Signal{
		{Kind: store.SignalCancel, Tenant: "", TaskID: "t1"},
		{Kind: store.SignalFollowUp, Tenant: "tenant with spaces", TaskID: "t 2", MessageID: "m 1"},
		{Kind: store.SignalFollowUp, Tenant: "a%20b+c", TaskID: "é€🙂", MessageID: "nul\x00and\nnewline"},
		{Kind: store.SignalCancel, Tenant: strings.Repeat("x", 2000), TaskID: strings.Repeat("y", 2000)},
		{Kind: store.SignalKind(99), TaskID: "from a newer binary"},
	}
	for _, sig := range sigs {
		if err := a.SendSignal(ctx, "host/1/n1/1", sig); err != nil {
			t.Fatalf("SendSignal(%+v): %v", sig, err)
		}
	}
	for i, want := range sigs {
		if got := receive(t, onB, "B's receiver"); got != want {
			t.Fatalf("signal %d: got %+v, want %+v", i, got, want)
		}
	}
	none(t, otherOnB, "the receiver of another runner on B", 200*time.Millisecond)
	none(t, onA, "the receiver on A", 0)

	// Back from B to A; and through A to a runner of A itself (delivered
	// without a notification).
	want := store.Signal{Kind: store.SignalCancel, Tenant: "T", TaskID: "back"}
	if err := b.SendSignal(ctx, "host/2/n2/1", want); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, onA, "A's receiver"); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	want.TaskID = "local"
	if err := a.SendSignal(ctx, "host/2/n2/1", want); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, onA, "A's receiver"); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}

	// A runner nobody listens for: sent, heard by nobody.
	if err := a.SendSignal(ctx, "host/9/gone/1", want); err != nil {
		t.Fatal(err)
	}
	none(t, onB, "B's receiver", 200*time.Millisecond)
}

// TestSignalLimits: ids too long for a notification are an error (nothing
// sent); stop closes the channel; Close closes the others, and later calls
// are refused or get a closed channel.
func TestSignalLimits(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	url := testURL(t)
	schema := testSchema(t, url)
	a, b := openSchema(t, url, schema), openSchema(t, url, schema)
	ctx := context.Background()

	onB, stopB := b.ReceiveSignals("r")
	huge := store.Signal{Kind: store.SignalFollowUp, TaskID: "t", MessageID: strings.Repeat("é", 2000)} // 12,000 bytes escaped
	if err := a.SendSignal(ctx, "r", huge); err == nil || !strings.Contains(err.Error(), "more than a notification carries") {
		t.Fatalf("SendSignal with a 12,000-byte payload: %v, want an error saying it is too large", err)
	}
	none(t, onB, "B's receiver", 200*time.Millisecond)

	stopB()
	stopB() // idempotent
	if _, ok := <-onB; ok {
		t.Fatal("the channel is open after stop")
	}
	if err := a.SendSignal(ctx, "r", store.Signal{Kind: store.SignalCancel, TaskID: "t"}); err != nil {
		t.Fatal(err)
	}

	second, stop2 := b.ReceiveSignals("r2") // not "r": the signal just sent may still come
	defer stop2()
	b.Close()
	if _, ok := <-second; ok {
		t.Fatal("a receiver's channel is open after Close")
	}
	late, stopLate := b.ReceiveSignals("r")
	stopLate()
	if _, ok := <-late; ok {
		t.Fatal("ReceiveSignals after Close returned an open channel")
	}
	if err := b.SendSignal(ctx, "r", store.Signal{Kind: store.SignalCancel, TaskID: "t"}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("SendSignal after Close: %v, want ErrClosed", err)
	}
}

// TestSignalsNeverBlockTheListener: a receiver that does not read loses
// the signals beyond its buffer (each drop logged), while the listener
// goes on: B's subscribers still get A's events and a reading receiver
// still gets its signals.
func TestSignalsNeverBlockTheListener(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	url := testURL(t)
	schema := testSchema(t, url)
	var logs syncBuffer
	a := openSchema(t, url, schema)
	b := openSchema(t, url, schema, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	ctx := context.Background()

	stuck, stopStuck := b.ReceiveSignals("stuck")
	defer stopStuck()
	reading, stopReading := b.ReceiveSignals("reading")
	defer stopReading()
	const extra = 10
	for i := range signalBuffer + extra {
		if err := a.SendSignal(ctx, "stuck", store.Signal{Kind: store.SignalCancel, TaskID: "t", MessageID: string(rune('a' + i%26))}); err != nil {
			t.Fatal(err)
		}
	}
	create(t, a, store.Creation{Record: store.Record{Tenant: "T", Task: newTask("t", working, 0)}})
	_, sub, err := b.Subscribe(ctx, "T", "t", store.FollowEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	want := store.Signal{Kind: store.SignalFollowUp, TaskID: "t", MessageID: "m"}
	if err := a.SendSignal(ctx, "reading", want); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, reading, "the reading receiver"); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	done := newTask("t", completed, time.Millisecond)
	update(t, a, store.Update{Tenant: "T", Task: done, Expect: 1, Events: []*a2av1.StreamResponse{statusEvent(done)}})
	evs := collect(t, sub)
	if len(evs) != 1 || evs[0].Response.GetStatusUpdate().GetStatus().GetState() != completed || sub.Err() != nil {
		t.Fatalf("B's subscriber got %v (%v), want the COMPLETED event", evs, sub.Err())
	}
	for i := range signalBuffer {
		if got := receive(t, stuck, "the stuck receiver"); got.MessageID != string(rune('a'+i%26)) {
			t.Fatalf("buffered signal %d: %+v", i, got)
		}
	}
	none(t, stuck, "the stuck receiver (beyond its buffer)", 100*time.Millisecond)
	if n := strings.Count(logs.String(), "dropped a signal"); n != extra {
		t.Errorf("%d drops logged, want %d:\n%s", n, extra, logs.String())
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use (a log's output).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSignalPayload: the payload round trip, and malformed payloads.
func TestSignalPayload(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	sig := store.Signal{Kind: store.SignalFollowUp, Tenant: "a b", TaskID: "x+y%z", MessageID: "\x00 é"}
	p := signalPayload("0a1b2c3d", "host name/1/n/2", sig)
	if strings.ContainsAny(p[1:], "\x00\n") || strings.Count(p, " ") != 5 || !strings.HasPrefix(p, "s0a1b2c3d 2 ") {
		t.Fatalf("payload %q", p)
	}
	runner, got, ok := parseSignal(p[1:])
	if !ok || runner != "host name/1/n/2" || got != sig {
		t.Fatalf("parseSignal(%q) = %q, %+v, %v", p[1:], runner, got, ok)
	}
	for _, bad := range []string{"", "o 1 r t i", "o 1 r t i m x", "o x r t i m", "o 1 %zz t i m"} {
		if _, _, ok := parseSignal(bad); ok {
			t.Errorf("parseSignal(%q) accepted", bad)
		}
	}
}
