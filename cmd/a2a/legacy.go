package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The command names of a2a before the a2a-cli specification, kept hidden
// for one release: each runs its new command and says so on stderr.
// ("a2a card URL" is handled by the card command itself.)

// deprecated writes the deprecation line of an old command name.
func deprecated(w io.Writer, old, now string) {
	fmt.Fprintf(w, "a2a: warning: '%s' is deprecated and will be removed in the next release; use 'a2a %s'\n", old, now)
}

// legacyCommands are get, list, cancel, subscribe and push, hidden.
func (a *app) legacyCommands() []*cobra.Command {
	alias := func(c *cobra.Command, old, now string, before func(*cobra.Command)) *cobra.Command {
		c.Use = old + c.Use[len(c.Name()):]
		c.Hidden = true
		run := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			deprecated(a.env.stderr, old, now)
			if before != nil {
				before(cmd)
			}
			return run(cmd, args)
		}
		return c
	}
	push := a.pushCommand()
	push.Use, push.Hidden = "push", true
	for _, sub := range push.Commands() {
		run, name := sub.RunE, sub.Name()
		sub.RunE = func(cmd *cobra.Command, args []string) error {
			deprecated(a.env.stderr, "push "+name, "task push-config "+name)
			return run(cmd, args)
		}
	}
	return []*cobra.Command{
		alias(a.getCommand(), "get", "task get", nil),
		alias(a.listCommand(), "list", "task list", nil),
		alias(a.cancelCommand(), "cancel", "task cancel", nil),
		alias(a.subscribeCommand(), "subscribe", "task subscribe --stream", func(cmd *cobra.Command) {
			_ = cmd.Flags().Set("stream", "true") // the old command printed every event
		}),
		push,
	}
}

// legacyFlags are the flag names before the specification, hidden, with
// what replaces each.
var legacyFlags = map[string]string{
	"binding": "--transport", "auth": "--bearer", "header": "--svc-param K:V",
	"task": "--task-id", "context": "--context-id", "state": "--status", "file-url": "--file URL",
}

// warnLegacyFlags writes a deprecation line for each old flag name used.
func (a *app) warnLegacyFlags(cmd *cobra.Command) {
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if now, ok := legacyFlags[f.Name]; ok && f.Hidden {
			fmt.Fprintf(a.env.stderr, "a2a: warning: --%s is deprecated and will be removed in the next release; use %s\n", f.Name, now)
		}
	})
}
