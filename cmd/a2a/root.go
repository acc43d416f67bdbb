package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2agen/a2agen/internal/binding"
	"github.com/a2agen/a2agen/internal/cmdhelp"
	"github.com/a2agen/a2agen/internal/version"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// Exit codes, by outcome; documented in the root command's help.
const (
	exitOK        = 0
	exitFail      = 1 // anything else: bad input files, a card that fails a check, output errors
	exitUsage     = 2 // the command line is wrong
	exitA2A       = 3 // the agent answered with an A2A error
	exitTransport = 4 // the agent could not be reached or answered outside the protocol
	exitTaskEnded = 5 // the task ended FAILED, REJECTED or CANCELED
)

// Environment variables.
const (
	envAgentURL = "A2A_AGENT_URL" // the agent URL when a command is given none
	envToken    = "A2A_TOKEN"     // a bearer token, sent when --auth is not given
	envAuth     = "A2A_AUTH"      // a whole Authorization value, as --auth
)

const exitCodesHelp = `Exit codes:
  0  success
  1  other failures (unreadable files, a card signature that does not verify…)
  2  usage error (unknown flag, missing argument)
  3  the agent answered with an A2A error (TaskNotFound, InvalidParams…)
  4  transport error: the agent or its card could not be reached, TLS,
     timeouts, answers that are not A2A
  5  the task ended FAILED, REJECTED or CANCELED

Environment:
  ` + envAgentURL + `  agent URL used when a command is given none (an argument
                 starting with http:// or https:// is always the URL)
  ` + envToken + `      bearer token: sends "Authorization: Bearer $` + envToken + `" unless --auth is given
  ` + envAuth + `       a whole Authorization value ("Bearer …", "Basic …"), as --auth`

// environment is what a run reads and writes besides its arguments.
type environment struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	terminal       bool // stdout is a terminal
}

// usageError marks command-line mistakes (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// transportError marks failures to reach the agent (exit 4).
type transportError struct{ err error }

func (e transportError) Error() string { return e.err.Error() }
func (e transportError) Unwrap() error { return e.err }

// taskEndedError reports a task that ended FAILED, REJECTED or CANCELED
// (exit 5); its output was already printed.
type taskEndedError struct{ id, state string }

func (e taskEndedError) Error() string { return fmt.Sprintf("task %s ended %s", e.id, e.state) }

// callError classifies the error of a client call: A2A errors as they are,
// anything else as a transport error.
func callError(err error) error {
	if err == nil {
		return nil
	}
	var e *runtime.Error
	if errors.As(err, &e) {
		return err
	}
	return transportError{err}
}

// exitCode maps the error of a command to its exit code.
func exitCode(err error) int {
	var (
		usage usageError
		ended taskEndedError
		a2a   *runtime.Error
		tr    transportError
		sig   *agentcard.SignatureError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage):
		return exitUsage
	case errors.As(err, &ended):
		return exitTaskEnded
	case errors.As(err, &sig):
		return exitFail
	case errors.As(err, &a2a):
		return exitA2A
	case errors.As(err, &tr), errors.Is(err, context.DeadlineExceeded):
		return exitTransport
	}
	return exitFail
}

// run executes the command line and returns the exit code.
func run(ctx context.Context, args []string, env environment) int {
	app := &app{env: env}
	root := app.rootCommand()
	root.SetArgs(args)
	root.SetIn(env.stdin)
	root.SetOut(env.stdout)
	root.SetErr(env.stderr)
	cmdhelp.AddBuiltinExamples(root, "send")
	err := root.ExecuteContext(ctx)
	code := exitCode(err)
	switch {
	case err == nil:
	case code == exitUsage:
		fmt.Fprintf(env.stderr, "a2a: %v\nRun 'a2a --help' for usage.\n", err)
	case code == exitTaskEnded:
		fmt.Fprintf(env.stderr, "a2a: %v\n", err)
	default:
		// Runtime errors name the package already ("a2a: …").
		fmt.Fprintf(env.stderr, "a2a: %s\n", strings.TrimPrefix(describeError(err), "a2a: "))
	}
	return code
}

// describeError adds to an A2A error what its code says, so that people
// see TaskNotFound rather than only a message.
func describeError(err error) string {
	var e *runtime.Error
	if errors.As(err, &e) {
		s := e.Error()
		md := e.Metadata()
		for _, k := range slices.Sorted(maps.Keys(md)) {
			s += fmt.Sprintf("\n  %s: %s", k, md[k])
		}
		for _, v := range e.FieldViolations() {
			s += fmt.Sprintf("\n  field %s: %s", v.Field, v.Description)
		}
		return s
	}
	return err.Error()
}

// app holds the global flags and the environment of one run.
type app struct {
	env environment

	binding    string
	tenant     string
	auth       string
	headers    []string
	version    string
	extensions []string
	timeout    time.Duration
	output     string
	verbose    bool
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "a2a",
		Short: "Talk to any A2A agent from the terminal",
		Long: `a2a is a client for A2A (Agent2Agent) agents on every binding: JSON-RPC,
HTTP+JSON and gRPC. Give it the agent's URL — where its agent card is served
(URL/.well-known/agent-card.json) — and it picks the interface the card
prefers (or the --binding you name), with the card's tenant and protocol
version.

Output is short text for people; -o json prints the A2A v1.0 messages as
ProtoJSON, one object per line (one per event for streams), for scripts.

` + exitCodesHelp,
		Example: `  a2a card http://localhost:8080
  a2a send http://localhost:8080 "hello there"
  a2a send --stream http://localhost:8080 stream 5
  a2a send http://localhost:8080 --task TASK --context CTX "more input"
  a2a list http://localhost:8080 --context CTX
  a2a get http://localhost:8080 TASK -o json
  export A2A_AGENT_URL=http://localhost:8080; a2a send hello`,
		Version:       version.Read().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.checkGlobals()
		},
	}
	root.SetVersionTemplate("a2a {{.Version}}\nA2A protocol " + a2av1.A2AServiceDesc.ProtocolVersion() + "\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	f := root.PersistentFlags()
	f.StringVar(&a.binding, "binding", "", "binding to use: "+strings.Join(binding.Options(), ", ")+" (or the card's JSONRPC, HTTP+JSON, GRPC; default: the card's first supported interface)")
	f.StringVar(&a.tenant, "tenant", "", "tenant to put in every request (default: the chosen interface's tenant)")
	f.StringVar(&a.auth, "auth", "", `Authorization value to send, e.g. "Bearer TOKEN" (default: $`+envAuth+`, or "Bearer $`+envToken+`")`)
	f.StringArrayVar(&a.headers, "header", nil, "extra request header `K=V` (repeatable; gRPC metadata on gRPC)")
	f.StringVar(&a.version, "a2a-version", "", "A2A-Version to send (default: the chosen interface's protocol version)")
	f.StringArrayVar(&a.extensions, "extension", nil, "extension `URI` to request in A2A-Extensions (repeatable)")
	f.DurationVar(&a.timeout, "timeout", 0, "limit for the whole command, e.g. 30s (default: 60s, and none for streams and webhook listen)")
	f.StringVarP(&a.output, "output", "o", "text", "output format: text, json or yaml")
	f.BoolVarP(&a.verbose, "verbose", "v", false, "log requests and responses on stderr (credentials masked)")
	_ = root.RegisterFlagCompletionFunc("binding", cobra.FixedCompletions(binding.Options(), cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))

	root.AddCommand(a.cardCommand(), a.sendCommand(), a.getCommand(), a.listCommand(), a.cancelCommand(),
		a.subscribeCommand(), a.pushCommand(), a.webhookCommand())
	return root
}

// checkGlobals validates the global flags before any command runs.
func (a *app) checkGlobals() error {
	switch a.output {
	case "text", "json", "yaml":
	default:
		return usagef("-o %q: want text, json or yaml", a.output)
	}
	if _, err := bindingName(a.binding); err != nil {
		return err
	}
	for _, h := range a.headers {
		if k, _, ok := strings.Cut(h, "="); !ok || strings.TrimSpace(k) == "" {
			return usagef("--header %q: want K=V", h)
		}
	}
	if a.version != "" {
		if _, ok := runtime.ParseVersion(a.version); !ok {
			return usagef("--a2a-version %q: want Major.Minor, e.g. 1.0", a.version)
		}
	}
	if a.timeout < 0 {
		return usagef("--timeout %v: must not be negative", a.timeout)
	}
	return nil
}

// bindingName maps the --binding value to the binding, "" when not given.
func bindingName(b string) (runtime.Binding, error) {
	if b == "" {
		return "", nil
	}
	p, err := runtime.ParseBinding(b)
	if err != nil {
		return "", usagef("--binding %q: want %s", b, binding.Accepted)
	}
	return p, nil
}

// defaultTimeout bounds commands that make a few unary calls.
const defaultTimeout = 60 * time.Second

// commandContext applies --timeout: the default for unary commands, none
// for streams unless given.
func (a *app) commandContext(ctx context.Context, streaming bool) (context.Context, context.CancelFunc) {
	d := a.timeout
	if d == 0 && !streaming {
		d = defaultTimeout
	}
	if d == 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
