package postgres

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/a2agen/a2agen/server/store"
)

// Signals between replicas (store.Processes). A signal is a NOTIFY on the
// store's channel, the one its writes are announced on, so that one
// listening connection per replica hears both. Its payload is
//
//	s<origin> <kind> <runner> <tenant> <task id> <message id>
//
// with every field after the kind query-escaped (url.QueryEscape: no
// spaces, no NUL bytes, plain ASCII), so that any id is carried safely;
// a payload longer than maxPayload (PostgreSQL refuses 8000 bytes) is not
// sent. Every replica hears every signal and hands it to the receivers of
// its runner, if it has any; the others ignore it.
//
// Signals are best effort, as store.Processes allows: one sent while the
// addressed replica's listener is reconnecting is lost, and so is one that
// finds its receiver's buffer full. The server makes up for lost signals by
// comparing its running executions with the stored tasks periodically.

// signalBuffer is how many signals wait for a receiver before further ones
// are dropped.
const signalBuffer = 256

// Shared implements store.Processes: replicas share a PostgreSQL store.
func (s *Store) Shared() bool { return true }

// signals are the receivers registered with ReceiveSignals.
type signals struct {
	s *Store

	mu     sync.Mutex
	closed bool
	byID   map[string]map[*receiver]struct{} // runner → receivers
}

type receiver struct {
	ch     chan store.Signal
	closed bool // guarded by signals.mu
}

func newSignals(s *Store) *signals {
	return &signals{s: s, byID: make(map[string]map[*receiver]struct{})}
}

// SendSignal implements store.Processes: it notifies every replica of the
// store's database; the one whose server instance is runner passes sig on
// to it. A runner that receives its signals from this store gets them
// directly. An error means the signal was not sent (a database failure, a
// payload too large for a notification, a closed store).
func (s *Store) SendSignal(ctx context.Context, runner string, sig store.Signal) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if s.sigs.deliver(runner, sig) {
		return nil
	}
	payload := signalPayload(s.origin, runner, sig)
	if len(payload) > maxPayload {
		return fmt.Errorf("postgres store %s: signal for task %q: its escaped ids take %d bytes, more than a notification carries (%d)",
			s.name, sig.TaskID, len(payload), maxPayload)
	}
	if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, s.opts.channel, payload); err != nil {
		return s.dbErr("sending a signal", err)
	}
	return nil
}

// ReceiveSignals implements store.Processes: the signals any replica sends
// to runner arrive on the channel until stop is called or the store
// closes; then it is closed. The channel holds signalBuffer signals; when
// it is full, further signals are dropped (and logged) rather than hold up
// the listener.
func (s *Store) ReceiveSignals(runner string) (<-chan store.Signal, func()) {
	return s.sigs.add(runner)
}

func (g *signals) add(runner string) (<-chan store.Signal, func()) {
	r := &receiver{ch: make(chan store.Signal, signalBuffer)}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		close(r.ch)
		return r.ch, func() {}
	}
	set := g.byID[runner]
	if set == nil {
		set = make(map[*receiver]struct{})
		g.byID[runner] = set
	}
	set[r] = struct{}{}
	return r.ch, func() { g.remove(runner, r) }
}

func (g *signals) remove(runner string, r *receiver) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	close(r.ch)
	if set := g.byID[runner]; set != nil {
		delete(set, r)
		if len(set) == 0 {
			delete(g.byID, runner)
		}
	}
}

// deliver hands sig to the receivers of runner without blocking; false
// when runner has none here.
func (g *signals) deliver(runner string, sig store.Signal) bool {
	g.mu.Lock()
	set := g.byID[runner]
	if len(set) == 0 {
		g.mu.Unlock()
		return false
	}
	dropped := 0
	for r := range set {
		select {
		case r.ch <- sig:
		default:
			dropped++
		}
	}
	g.mu.Unlock()
	if dropped > 0 {
		g.s.opts.logger.Warn("postgres store: dropped a signal: its receiver is not keeping up",
			"store", g.s.name, "runner", runner, "kind", int(sig.Kind), "tenant", sig.Tenant, "task", sig.TaskID)
	}
	return true
}

// close closes every receiver's channel; later ones start closed.
func (g *signals) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for _, set := range g.byID {
		for r := range set {
			r.closed = true
			close(r.ch)
		}
	}
	g.byID = nil
}

// received handles a signal notification (the payload after its kind 's').
func (g *signals) received(payload string) {
	runner, sig, ok := parseSignal(payload)
	if !ok {
		g.s.opts.logger.Warn("postgres store: malformed signal notification", "store", g.s.name,
			"channel", g.s.opts.channel, "payload", payload)
		return
	}
	g.deliver(runner, sig)
}

// signalPayload is the notification of sig for runner.
func signalPayload(origin, runner string, sig store.Signal) string {
	var b strings.Builder
	b.WriteByte('s')
	b.WriteString(origin)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(int(sig.Kind)))
	for _, f := range [...]string{runner, sig.Tenant, sig.TaskID, sig.MessageID} {
		b.WriteByte(' ')
		b.WriteString(url.QueryEscape(f))
	}
	return b.String()
}

// parseSignal reads a signal notification after its kind byte: the origin
// (ignored: a replica's own signals reach its receivers like any other),
// the signal kind and the four escaped fields.
func parseSignal(payload string) (runner string, sig store.Signal, ok bool) {
	f := strings.Split(payload, " ")
	if len(f) != 6 {
		return "", sig, false
	}
	kind, err := strconv.Atoi(f[1])
	if err != nil {
		return "", sig, false
	}
	var fields [4]string
	for i := range fields {
		if fields[i], err = url.QueryUnescape(f[2+i]); err != nil {
			return "", sig, false
		}
	}
	return fields[0], store.Signal{Kind: store.SignalKind(kind), Tenant: fields[1], TaskID: fields[2], MessageID: fields[3]}, true
}
