package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// scaffoldLine is an a2a-scaffold command line in the docs: its words up
// to the end of the backquoted span, the table cell or the line (a
// comment after # ends it).
var scaffoldLine = regexp.MustCompile(`a2a-scaffold ((?:[a-z]+ ?)+)([^` + "`" + `|#]*)`)

// TestDocsNameRealFlags: every a2a-scaffold command line of README.md and
// docs/*.md names a command that exists and only flags of that command.
func TestDocsNameRealFlags(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	root := newRootCommand()
	lines := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			for _, m := range scaffoldLine.FindAllStringSubmatch(line, -1) {
				cmd, rest := commandOf(root, strings.Fields(m[1]))
				if cmd == root {
					continue // prose: "a2a-scaffold writes …"
				}
				lines++
				args := append(rest, strings.Fields(m[2])...)
				for _, a := range args {
					name, ok := strings.CutPrefix(a, "--")
					if !ok {
						continue
					}
					name, _, _ = strings.Cut(strings.Trim(name, "[]"), "=")
					if cmd.Flags().Lookup(name) == nil && cmd.InheritedFlags().Lookup(name) == nil && name != "help" {
						t.Errorf("%s:%d: %s has no flag --%s", filepath.Base(f), n+1, cmd.CommandPath(), name)
					}
				}
			}
		}
	}
	if lines < 10 {
		t.Fatalf("found %d a2a-scaffold command lines; is the pattern still right?", lines)
	}
}

// commandOf walks words down the command tree and returns the deepest
// command they name and the words left.
func commandOf(root *cobra.Command, words []string) (*cobra.Command, []string) {
	c := root
	for i, w := range words {
		var next *cobra.Command
		for _, sub := range c.Commands() {
			if sub.Name() == w {
				next = sub
			}
		}
		if next == nil {
			return c, words[i:]
		}
		c = next
	}
	return c, nil
}
