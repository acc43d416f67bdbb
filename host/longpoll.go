package host

import (
	"fmt"
	"time"

	"github.com/a2agen/a2agen/server"
)

// The long-poll hold of an agent (Config.LongPollHold, -long-poll-hold):
// how long the default server holds a GetTask with currentGeneration (A2A
// 1.1) while the task does not change.

// longPollHoldOptions are the server options that carry hold: none for
// zero (the server's default), server.WithLongPollHold otherwise.
func longPollHoldOptions(hold time.Duration) []server.Option {
	if hold == 0 {
		return nil
	}
	return []server.Option{server.WithLongPollHold(hold)}
}

// checkLongPollHold refuses a hold longer than the server holds a call
// (server.MaxLongPollHold), which the server would silently shorten.
func checkLongPollHold(hold time.Duration) error {
	if hold > server.MaxLongPollHold {
		return fmt.Errorf("host: Config.LongPollHold is %v, longer than a long-poll can be held (server.MaxLongPollHold, %v): lower it, or set it negative to answer long-polls at once", hold, server.MaxLongPollHold)
	}
	return nil
}

// longPollHoldFlag is the default of -long-poll-hold for a program whose
// Config says hold: the flag's 0 answers at once, where Config's zero is
// the server's default.
func longPollHoldFlag(hold time.Duration) time.Duration {
	switch {
	case hold == 0:
		return server.DefaultLongPollHold
	case hold < 0:
		return 0
	}
	return hold
}

// longPollHoldConfig is Config.LongPollHold for the flag's value d: its 0
// (answer at once) is Config's negative.
func longPollHoldConfig(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
