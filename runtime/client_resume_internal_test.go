package runtime

import (
	"context"
	"errors"
	"io"
	"iter"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// scriptedOpener is a streamOpener whose calls play, in turn, the scripts
// given: each yields its events, then its error if any.
type scriptedOpener struct {
	scripts []openScript
	opened  int
}

type openScript struct {
	events []proto.Message
	err    error
}

func (o *scriptedOpener) streamOnce(context.Context, *Operation, proto.Message, func() proto.Message) iter.Seq2[proto.Message, error] {
	s := o.scripts[min(o.opened, len(o.scripts)-1)]
	o.opened++
	return func(yield func(proto.Message, error) bool) {
		for _, m := range s.events {
			if !yield(m, nil) {
				return
			}
		}
		if s.err != nil {
			yield(nil, s.err)
		}
	}
}

// TestStreamSendAgainBeforeFirstEvent: the stream loop of the transports
// (resumable) sends a send's stream again when its connection broke before
// the first event, also with resumption off, and only then: not after an
// event, not for a stream that is not a send's, not beyond the retries.
func TestStreamSendAgainBeforeFirstEvent(t *testing.T) {
	send := &Operation{Name: "SendStreamingMessage", ServerStreaming: true}
	subscribe := &Operation{Name: "SubscribeToTask", ServerStreaming: true}
	ev := wrapperspb.String("event")
	cut := io.ErrUnexpectedEOF
	agentErr := NewError(CodeInternal, "no")
	for _, tc := range []struct {
		name       string
		op         *Operation
		retries    int
		scripts    []openScript
		wantEvents int
		wantErr    error
		wantOpened int
	}{
		{"cut before the first event", send, 2, []openScript{{err: cut}, {events: []proto.Message{ev, ev}}}, 2, nil, 2},
		{"cut every time", send, 2, []openScript{{err: cut}}, 0, cut, 3},
		{"no retries", send, 0, []openScript{{err: cut}, {events: []proto.Message{ev}}}, 0, cut, 1},
		{"cut after an event", send, 2, []openScript{{events: []proto.Message{ev}, err: cut}, {events: []proto.Message{ev}}}, 1, cut, 1},
		{"not a send", subscribe, 2, []openScript{{err: cut}, {events: []proto.Message{ev}}}, 0, cut, 1},
		{"the agent's error", send, 2, []openScript{{err: agentErr}, {events: []proto.Message{ev}}}, 0, agentErr, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &clientConfig{}
			WithStreamResume(0)(cfg) // what is tested is the resend, not the resumption
			open := &scriptedOpener{scripts: tc.scripts}
			ctx := withSend(context.Background(), "key-1", tc.retries)
			events := 0
			var err error
			for m, e := range cfg.resumable(ctx, tc.op, ev, nil, open) {
				if e != nil {
					err = e
					break
				}
				if m != ev {
					t.Fatalf("event %v, want %v", m, ev)
				}
				events++
			}
			if events != tc.wantEvents || open.opened != tc.wantOpened {
				t.Errorf("%d events in %d calls, want %d in %d", events, open.opened, tc.wantEvents, tc.wantOpened)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
		})
	}
}
