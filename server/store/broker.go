package store

import (
	"context"
	"sync"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// DefaultSubscriberBuffer is how many events a subscriber may lag behind
// before it is dropped with ErrSlowSubscriber.
const DefaultSubscriberBuffer = 128

// Broker is the in-process feed of task events: the part of a store that
// hands the events of each write to the task's subscribers. A store calls
// Publish after each write is durable, in write order per task, and serves
// Subscribe through Broker.Subscribe with a function that reads the task.
// It never blocks a publisher: a subscriber whose buffer is full is dropped
// with ErrSlowSubscriber.
//
// A subscription starts atomically after a snapshot without holding any
// lock across the read: the subscriber is registered first, events published
// while the snapshot is read are held back, and once the snapshot's version
// is known only the later ones are passed on.
type Broker struct {
	buffer int

	mu     sync.RWMutex
	topics map[topicKey]*topic
	closed bool
}

type topicKey struct{ tenant, id string }

// topic is the subscribers of one task; mu orders publishing and
// subscriber changes so that every subscriber sees the same sequence.
type topic struct {
	mu   sync.Mutex
	subs map[*brokerSub]struct{}
}

// NewBroker returns a broker whose subscribers may lag buffer events behind
// (buffer < 1: DefaultSubscriberBuffer).
func NewBroker(buffer int) *Broker {
	if buffer < 1 {
		buffer = DefaultSubscriberBuffer
	}
	return &Broker{buffer: buffer, topics: make(map[topicKey]*topic)}
}

// Publish hands the events of one write (at version) to the task's
// subscribers; terminal says the write made the task terminal, which ends
// every subscription after the events.
func (b *Broker) Publish(tenant, id string, version int64, events []*a2av1.StreamResponse, terminal bool) {
	b.mu.RLock()
	t := b.topics[topicKey{tenant, id}]
	b.mu.RUnlock()
	if t == nil {
		return
	}
	t.mu.Lock()
	for s := range t.subs {
		if !s.armed {
			s.held = append(s.held, heldWrite{version, events, terminal})
			continue
		}
		if version <= s.floor {
			// Written before the subscriber's snapshot was read, published
			// after: the snapshot has it already.
			continue
		}
		if err := s.sendLocked(version, events); err != nil {
			delete(t.subs, s)
			s.endLocked(err)
			continue
		}
		if terminal {
			delete(t.subs, s)
			s.endLocked(nil)
		}
	}
	empty := len(t.subs) == 0
	t.mu.Unlock()
	if empty {
		b.releaseTopic(topicKey{tenant, id}, t)
	}
}

// Subscribe registers a subscriber of the task, reads its current record
// with read, and returns the record and a subscription to the events
// published after it. A terminal record yields an ended subscription.
// read's error is returned as is. A FollowOutcome subscriber has room for
// OutcomeSubscriberBuffer events, any other for the broker's buffer.
func (b *Broker) Subscribe(ctx context.Context, tenant, id string, f Follow, read func(context.Context) (Record, error)) (Record, Subscription, error) {
	buffer := b.buffer
	if f == FollowOutcome {
		buffer = OutcomeSubscriberBuffer
	}
	key := topicKey{tenant, id}
	s := &brokerSub{b: b, key: key, ch: make(chan Event, buffer), budget: NewBudget(ctx)}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return Record{}, nil, ErrClosed
	}
	t := b.topics[key]
	if t == nil {
		t = &topic{subs: make(map[*brokerSub]struct{})}
		b.topics[key] = t
	}
	s.t = t
	t.mu.Lock()
	t.subs[s] = struct{}{}
	t.mu.Unlock()
	b.mu.Unlock()

	rec, err := read(ctx)
	if err != nil {
		s.Close()
		return Record{}, nil, err
	}
	t.mu.Lock()
	s.armed, s.floor = true, rec.Version
	held := s.held
	s.held = nil
	switch {
	case s.ended:
	case IsTerminal(rec.Task.GetStatus().GetState()):
		delete(t.subs, s)
		s.endLocked(nil)
	default:
		for _, w := range held {
			if w.version <= rec.Version {
				continue
			}
			if err := s.sendLocked(w.version, w.events); err != nil {
				delete(t.subs, s)
				s.endLocked(err)
				break
			}
			if w.terminal {
				delete(t.subs, s)
				s.endLocked(nil)
				break
			}
		}
	}
	t.mu.Unlock()
	b.release(s)
	if ctx.Done() != nil && !s.isEnded() {
		s.stop = context.AfterFunc(ctx, func() { s.end(ctx.Err()) })
	}
	return rec, s, nil
}

// release drops the topic of s when it has no subscriber left.
func (b *Broker) release(s *brokerSub) {
	s.t.mu.Lock()
	empty := len(s.t.subs) == 0
	s.t.mu.Unlock()
	if empty {
		b.releaseTopic(s.key, s.t)
	}
}

// releaseTopic removes t from the broker if it is still empty (a subscriber
// may have joined since it was seen empty).
func (b *Broker) releaseTopic(key topicKey, t *topic) {
	b.mu.Lock()
	t.mu.Lock()
	if len(t.subs) == 0 && b.topics[key] == t {
		delete(b.topics, key)
	}
	t.mu.Unlock()
	b.mu.Unlock()
}

// Subscribers returns how many live subscriptions the broker holds.
func (b *Broker) Subscribers() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := 0
	for _, t := range b.topics {
		t.mu.Lock()
		n += len(t.subs)
		t.mu.Unlock()
	}
	return n
}

// Close ends every subscription with ErrClosed; later Subscribe calls fail
// with ErrClosed.
func (b *Broker) Close() {
	b.mu.Lock()
	b.closed = true
	topics := b.topics
	b.topics = make(map[topicKey]*topic)
	b.mu.Unlock()
	for _, t := range topics {
		t.mu.Lock()
		for s := range t.subs {
			delete(t.subs, s)
			s.endLocked(ErrClosed)
		}
		t.mu.Unlock()
	}
}

// heldWrite is a write published while a subscriber was reading its
// snapshot.
type heldWrite struct {
	version  int64
	events   []*a2av1.StreamResponse
	terminal bool
}

// brokerSub is one subscription. Its fields other than b, key and ch are
// guarded by t.mu.
type brokerSub struct {
	b   *Broker
	key topicKey
	t   *topic
	ch  chan Event

	budget *Budget // nil: no byte budget

	armed bool        // the snapshot is known; events go to ch
	floor int64       // the snapshot's version; earlier writes are skipped
	held  []heldWrite // published before armed
	ended bool
	err   error
	stop  func() bool // stops the context callback
}

func (s *brokerSub) Events() <-chan Event { return s.ch }

// Written returns nil: the broker passes on events, not the snapshots
// written with them.
func (s *brokerSub) Written(int64) *a2av1.Task { return nil }

func (s *brokerSub) Err() error {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	return s.err
}

func (s *brokerSub) Close() {
	s.end(nil)
	if s.stop != nil {
		s.stop()
	}
}

func (s *brokerSub) isEnded() bool {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	return s.ended
}

// end ends the subscription with err (unless it already ended) and drops an
// empty topic.
func (s *brokerSub) end(err error) {
	s.t.mu.Lock()
	if s.ended {
		s.t.mu.Unlock()
		return
	}
	delete(s.t.subs, s)
	s.endLocked(err)
	s.t.mu.Unlock()
	s.b.release(s)
}

// sendLocked queues the events without blocking: ErrSlowSubscriber when
// the buffer is full, ErrSubscriberBytes when the byte budget is.
func (s *brokerSub) sendLocked(version int64, events []*a2av1.StreamResponse) error {
	for _, ev := range events {
		e := Event{Version: version, Response: ev}
		if s.budget != nil {
			var ok bool
			if e, ok = s.budget.Admit(e, EventSize(ev)); !ok {
				return ErrSubscriberBytes
			}
		}
		select {
		case s.ch <- e:
		default:
			e.Taken()
			return ErrSlowSubscriber
		}
	}
	return nil
}

// endLocked marks the subscription ended and closes its channel; the caller
// holds t.mu and has removed it from t.subs.
func (s *brokerSub) endLocked(err error) {
	if s.ended {
		return
	}
	s.ended = true
	s.err = err
	s.held = nil
	close(s.ch)
}
