package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/a2agen/a2agen/internal/cmdhelp"
)

// TestEveryCommandHasHelpWithExamples walks the command tree: every
// command has a short description and examples, and --help prints them;
// the root's help documents the exit codes and environment variables.
func TestEveryCommandHasHelpWithExamples(t *testing.T) {
	a := &app{env: environment{getenv: func(string) string { return "" }}}
	root := a.rootCommand()
	root.SetOut(&bytes.Buffer{})
	cmdhelp.AddBuiltinExamples(root, "send")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Short == "" || c.Example == "" {
			t.Errorf("%s: Short %q, Example %q; want both", c.CommandPath(), c.Short, c.Example)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)

	r := a2a(t, nil, "--help")
	for _, want := range []string{"Exit codes", "5  --timeout expired", "A2ACLI_AGENT_CARD", "A2ACLI_BEARER", "Examples:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("a2a --help lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, args := range [][]string{{"send", "--help"}, {"task", "push-config", "create", "--help"}, {"webhook", "listen", "--help"}} {
		if r := a2a(t, nil, args...); r.code != exitOK || !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("a2a %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stdout)
		}
	}
	if r := a2a(t, nil, "completion", "bash"); r.code != exitOK || !strings.Contains(r.stdout, "bash completion") {
		t.Errorf("completion bash: exit %d, %.80q", r.code, r.stdout)
	}
	for _, args := range [][]string{{"task"}, {"task", "push-config"}, {"config"}} {
		if r := a2a(t, nil, args...); r.code != exitUsage {
			t.Errorf("%s without a command: exit %d", strings.Join(args, " "), r.code)
		}
	}
}
