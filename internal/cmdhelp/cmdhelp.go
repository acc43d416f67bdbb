// Package cmdhelp holds what the project's cobra commands (a2a,
// a2a-scaffold) share in their help: examples for cobra's own help and
// completion commands.
package cmdhelp

import (
	"fmt"

	"github.com/spf13/cobra"
)

// AddBuiltinExamples creates cobra's help and completion commands now,
// rather than at execution, to give them examples like every other command
// of root, whose name is the program's; help's example asks about the
// subcommand topic. Call it after SetOut: cobra's completion commands
// capture the writer.
func AddBuiltinExamples(root *cobra.Command, topic string) {
	name := root.Name()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = fmt.Sprintf("  %s help %s", name, topic)
		case "completion":
			c.Example = fmt.Sprintf("  %[1]s completion bash > /etc/bash_completion.d/%[1]s\n"+
				"  %[1]s completion zsh > \"${fpath[1]}/_%[1]s\"", name)
			for _, shell := range c.Commands() {
				shell.Example = fmt.Sprintf("  source <(%s completion %s)", name, shell.Name())
				if shell.Name() == "powershell" {
					shell.Example = fmt.Sprintf("  %s completion powershell | Out-String | Invoke-Expression", name)
				}
			}
		}
	}
}
