package host

import (
	"log/slog"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storeurl"
)

// retentionFields are the fields of Limits that bound what the task store
// keeps. They reach the store Main opens; a program with its own
// Config.Store sets them on it.
var retentionFields = []string{
	"TerminalTaskTTL", "MaxTerminalTasks", "InterruptedTaskTTL",
	"MaxTerminalTasksPerOwner", "MaxInterruptedTasksPerOwner", "MaxBytesPerOwner",
}

// storeFlags are the flags of Main that configure the store it opens: -store
// and the retention fields' flags.
func storeFlags() []string {
	names := []string{"store"}
	for _, f := range retentionFields {
		names = append(names, LimitFlagName(f))
	}
	return names
}

// storeOptions are the options of the store Main opens: l's retention
// bounds (negative, as Limits has it for no bound, is 0 there).
func (l Limits) storeOptions(logger *slog.Logger) storeurl.Options {
	l = l.withDefaults()
	return storeurl.Options{
		Logger: logger,
		Retention: store.Retention{
			TerminalTaskTTL:             off(l.TerminalTaskTTL),
			MaxTerminalTasks:            max(l.MaxTerminalTasks, 0),
			InterruptedTaskTTL:          off(l.InterruptedTaskTTL),
			MaxTerminalTasksPerOwner:    max(l.MaxTerminalTasksPerOwner, 0),
			MaxInterruptedTasksPerOwner: max(l.MaxInterruptedTasksPerOwner, 0),
			MaxBytesPerOwner:            max(l.MaxBytesPerOwner, 0),
		},
	}
}
