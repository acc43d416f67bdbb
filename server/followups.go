package server

import a2av1 "github.com/a2agen/a2agen/a2a/v1"

// Follow-ups: how client messages for a task whose execution runs reach
// it — on Request.FollowUps, never twice, whether they come directly, by
// a signal from another instance or by reconciliation.

// followUpBuffer is how many follow-up messages wait on Request.FollowUps
// before further ones are queued for the next turn instead.
const followUpBuffer = 16

// startWith records the run's first message as given, and the messages of
// the history before it as none of the run's business.
func (r *run) startWith(req *Request) {
	h := req.History
	r.base = len(h)
	for i := len(h) - 1; i >= 0; i-- {
		if h[i] == req.Message {
			r.base = i + 1
			break
		}
	}
	r.scanned = r.base
	r.markGiven(req.Message)
}

func (r *run) markGiven(msg *a2av1.Message) {
	id := msg.GetMessageId()
	if id == "" {
		return
	}
	r.given.add(id)
}

// idSet is a set of message ids that holds its first one without a map: most
// runs are given one message.
type idSet struct {
	first string
	more  map[string]struct{}
}

func (s *idSet) add(id string) {
	switch {
	case s.first == "" || s.first == id:
		s.first = id
	default:
		if s.more == nil {
			s.more = make(map[string]struct{})
		}
		s.more[id] = struct{}{}
	}
}

func (s *idSet) has(id string) bool {
	if id == s.first && id != "" {
		return true
	}
	_, ok := s.more[id]
	return ok
}

// deliverLocked hands a follow-up message to the running execution; the
// caller holds the task's lock.
func (r *run) deliverLocked(msg *a2av1.Message) {
	r.markGiven(msg)
	select {
	case r.followUpChan(true) <- msg:
	default:
		r.overflow = append(r.overflow, msg)
	}
}

// pendingLocked is how many follow-up messages wait for the execution to
// take them; the caller holds the task's lock.
func (r *run) pendingLocked() int { return len(r.followUpChan(false)) + len(r.overflow) }

// followUpChan is the channel of follow-up messages (Request.FollowUps),
// made when create is set and it does not exist yet: most runs never get
// one, nor look at it. A nil channel holds nothing and gives nothing.
func (r *run) followUpChan(create bool) chan *a2av1.Message {
	r.fuMu.Lock()
	defer r.fuMu.Unlock()
	if r.followUps == nil && create {
		r.followUps = newFollowUps()
	}
	return r.followUps
}

func newFollowUps() chan *a2av1.Message { return make(chan *a2av1.Message, followUpBuffer) }

// offerLocked hands message i of the task's history hist to the running
// execution unless it has had it already (or it precedes the run's first
// message); the caller holds the task's lock.
func (r *run) offerLocked(hist []*a2av1.Message, i int) {
	msg := hist[i]
	if i < r.base {
		return
	}
	if r.given.has(msg.GetMessageId()) {
		return
	}
	r.deliverLocked(msg)
}

// catchUpLocked offers the execution the client messages that joined the
// task's history (hist, as stored) since the last look; the caller holds
// the task's lock.
func (r *run) catchUpLocked(hist []*a2av1.Message) {
	for i := max(r.scanned, r.base); i < len(hist); i++ {
		if hist[i].GetRole() == a2av1.Role_ROLE_USER {
			r.offerLocked(hist, i)
		}
	}
	r.scanned = max(r.scanned, len(hist))
}

// followUpWaitingLocked reports whether a follow-up waits for the execution
// to take it; the caller holds the task's lock.
func (r *run) followUpWaitingLocked() bool {
	return len(r.followUpChan(false)) > 0 || len(r.overflow) > 0
}

// takeFollowUpsLocked removes and returns the follow-ups not yet taken.
func (r *run) takeFollowUpsLocked() []*a2av1.Message {
	var out []*a2av1.Message
	ch := r.followUpChan(false)
	for {
		select {
		case m := <-ch:
			out = append(out, m)
		default:
			out = append(out, r.overflow...)
			r.overflow = nil
			return out
		}
	}
}
