package inspect

import "sync"

// Event is what the page receives on /api/events: one wire entry, or one
// push delivery the receiver got.
type Event struct {
	Kind     string     `json:"kind"` // "wire" or "delivery"
	Wire     *WireEntry `json:"wire,omitempty"`
	Delivery *Delivery  `json:"delivery,omitempty"`
}

// maxRecent is how many events a page that connects (or reloads) is shown
// from before it connected.
const maxRecent = 1000

// hub hands every event to the open pages and keeps the recent ones, in
// memory only.
type hub struct {
	mu     sync.Mutex
	recent []Event
	subs   map[chan Event]struct{}
}

func newHub() *hub { return &hub{subs: map[chan Event]struct{}{}} }

// publish sends ev to every subscriber; a page that does not keep up loses
// events rather than holding the agent's calls back.
func (h *hub) publish(ev Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recent = append(h.recent, ev)
	if len(h.recent) > maxRecent {
		h.recent = append(h.recent[:0:0], h.recent[len(h.recent)-maxRecent:]...)
	}
	for ch := range h.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// subscribe returns the recent events and a channel of the next ones;
// cancel ends the subscription.
func (h *hub) subscribe() (recent []Event, ch <-chan Event, cancel func()) {
	c := make(chan Event, 256)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[c] = struct{}{}
	return append([]Event(nil), h.recent...), c, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.subs, c)
	}
}
