package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDocsNameTheFlags: every flag docs/cli.md writes (`--name`, `-o`) is
// a flag of some command of a2a (or of examples/echo, where the page says
// so), and every flag a user can give (not the built-in help) is in
// docs/cli.md.
func TestDocsNameTheFlags(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	a := &app{env: environment{getenv: func(string) string { return "" }}}
	long, short, hidden := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return // the names before the specification: not in the docs
		}
		add := func(f *pflag.Flag) {
			if f.Hidden {
				hidden[f.Name] = true
				return
			}
			long[f.Name] = true
			if f.Shorthand != "" {
				short[f.Shorthand] = true
			}
		}
		c.LocalFlags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCommand())

	// Flags of other programs the page mentions, and where they are.
	others := map[string]string{"allow-private-webhooks": "../../examples/echo/main.go"}
	for name, file := range others {
		src, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(src), `"`+name+`"`) {
			t.Errorf("docs/cli.md names --%s as a flag of %s, which does not define it (%v)", name, file, err)
		}
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`--([a-z][a-z0-9-]*)").FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
		if hidden[m[1]] && !long[m[1]] {
			t.Errorf("docs/cli.md names --%s, a deprecated name; it shows only the specification's names", m[1])
		}
		if !long[m[1]] && m[1] != "help" && others[m[1]] == "" {
			t.Errorf("docs/cli.md names --%s, which no command of a2a has", m[1])
		}
	}
	for _, m := range regexp.MustCompile("`-([a-zA-Z])[ `]").FindAllStringSubmatch(string(doc), -1) {
		if !short[m[1]] {
			t.Errorf("docs/cli.md names -%s, which no command of a2a has", m[1])
		}
	}
	var missing []string
	for name := range long {
		if name != "help" && !named[name] {
			missing = append(missing, "--"+name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("docs/cli.md does not name %s", strings.Join(missing, ", "))
	}
}
