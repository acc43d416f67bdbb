package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/a2agen/a2agen/internal/cmdhelp"
	"github.com/a2agen/a2agen/internal/manifest"
	"github.com/a2agen/a2agen/internal/version"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the input is invalid or a check failed
	exitUsage = 2 // the command line is wrong
)

// usageError marks command-line mistakes, which exit with exitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errReported marks a failure whose details were already printed; only the
// exit code remains to be set.
var errReported = errors.New("reported")

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmdhelp.AddBuiltinExamples(root, "card") // after SetOut: cobra's completion commands capture the writer
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var (
		usage    usageError
		problems manifest.Errors
	)
	switch {
	case errors.Is(err, errReported):
		return exitFail
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "a2a-scaffold: %v\nRun 'a2a-scaffold --help' for usage.\n", usage.err)
		return exitUsage
	case errors.As(err, &problems):
		for _, p := range problems {
			fmt.Fprintln(stderr, p)
		}
		fmt.Fprintf(stderr, "%s: %d problem(s)\n", problems[0].File, len(problems))
		return exitFail
	default:
		fmt.Fprintf(stderr, "a2a-scaffold: %v\n", err)
		return exitFail
	}
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "a2a-scaffold",
		Short: "Create A2A agents from an agent manifest (agent.yaml)",
		Long: `a2a-scaffold works with agent manifests: agent.yaml files that describe an
A2A agent (identity, bindings, skills, security, extensions). It creates
runnable agent projects from them and regenerates those projects when the
manifest changes, validates manifests, prints the agent card they describe,
signs and verifies cards, and writes the A2A proto for protoc users.

The manifest format is documented in docs/manifest.md; its JSON Schema lets
editors complete and check agent.yaml.`,
		Example: `  a2a-scaffold new weather && cd weather && go mod tidy && make run
  a2a-scaffold generate
  a2a-scaffold validate agent.yaml
  a2a-scaffold card agent.yaml --url https://agent.example.com
  a2a-scaffold proto --out proto
  a2a-scaffold completion bash > /etc/bash_completion.d/a2a-scaffold`,
		Version:       version.Read().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("a2a-scaffold {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newNewCommand(), newGenerateCommand(), newValidateCommand(), newCardCommand(), newProtoCommand())
	return root
}

// exactArgs is cobra.ExactArgs with the error marked as a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s takes %s, got %d argument(s)", cmd.CommandPath(), what, len(args))}
		}
		return nil
	}
}

// yamlFiles completes manifest file names.
func yamlFiles(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
}
