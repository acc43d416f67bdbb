package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2agen/a2agen/internal/binding"
	"github.com/a2agen/a2agen/internal/cmdhelp"
	"github.com/a2agen/a2agen/internal/inspect"
	"github.com/a2agen/a2agen/internal/version"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

const exitCodesHelp = `Exit codes (the a2a-cli specification's):
  0  the command did its job, whatever the task's outcome: a task that
     ended FAILED or REJECTED, or waits for input, exits 0 (the state is in
     the output, and a warning on stderr names it)
  1  failure: the agent answered an A2A error, or anything else
  2  usage error (unknown flag, missing argument)
  3  the agent or its card could not be reached or resolved
  4  authentication required and not supplied, or rejected
  5  --timeout expired before the task reached a terminal state
Errors name the A2A error (TaskNotFoundError…) or an A2ACLI_ERR_* code,
with a hint; with -o json they are one {"error": {…}} document on stdout.

Environment:
  A2ACLI_<FLAG>  the value of --<flag> when the flag is not given, e.g.
                 A2ACLI_AGENT_CARD, A2ACLI_BEARER, A2ACLI_API_KEY,
                 A2ACLI_OUTPUT (not --stream); also read from .env files
                 (a2a config show lists them with their sources)`

// environment is what a run reads and writes besides its arguments.
type environment struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	terminal       bool   // stdout is a terminal
	stdinTerminal  bool   // stdin is a terminal
	workdir        string // where the local .env search starts ("": the working directory)
}

// run executes the command line and returns the exit code.
func run(ctx context.Context, args []string, env environment) int {
	app := &app{env: env, output: "text"}
	root := app.rootCommand()
	root.SetArgs(args)
	root.SetIn(env.stdin)
	root.SetOut(env.stdout)
	root.SetErr(env.stderr)
	cmdhelp.AddBuiltinExamples(root, "send")
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	f := classify(err, app.credentialsGiven())
	app.report(f)
	return f.exit
}

// app holds the global flags and the environment of one run.
type app struct {
	env environment

	agentCard    string
	transports   []string
	tenant       string
	bearer       string
	apiKey       string
	auth         string // legacy --auth: a whole Authorization value
	svcParams    []string
	headers      []string // legacy --header K=V
	version      string
	extensions   []string
	timeout      time.Duration
	pollInterval time.Duration
	output       string
	verbose      bool
	debug        bool
	insecure     bool
	cacert       string
	clientCert   string
	clientKey    string
	configFile   string

	// sources records where each option's value came from (config show).
	sources map[string]string
	// secrets are the credential values of this run, masked in every
	// diagnostic line.
	secrets []string
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "a2a",
		Short: "Talk to any A2A agent from the terminal",
		Long: `a2a is a client for A2A (Agent2Agent) agents on every binding: JSON-RPC,
HTTP+JSON and gRPC, following the a2a-cli specification (v0.2). Name the
agent with --agent-card (-a): a host or origin (the well-known card path is
appended), the card's full URL, or a card file; a2a reads the card and uses
the first interface it supports (or the first --transport you prefer), with
the card's tenant and protocol version.

Output is labeled text, one "Label: value" per line; -o json prints the A2A
v1.0 messages as ProtoJSON: one document per command, or JSON Lines with
--stream.

Defaults (each overridable by its flag, an A2ACLI_* environment variable or a
.env file; 'a2a config show' shows the effective values): the card's
transport order; send waits for a terminal or interrupted state (--async
does not); text output; concise detail (--verbose); the interface's
protocol version, never below 1.0; TLS verification on (--insecure).

` + exitCodesHelp,
		Example: `  a2a card get -a http://localhost:8080
  a2a send -a http://localhost:8080 "hello there"
  a2a send -a http://localhost:8080 --stream "stream 5"
  a2a send -a http://localhost:8080 --task-id TASK "more input"
  a2a task list -a http://localhost:8080 --context-id CTX
  a2a task get -a http://localhost:8080 TASK -o json
  export A2ACLI_AGENT_CARD=http://localhost:8080; a2a send hello`,
		Version:       version.Read().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.warnLegacyFlags(cmd)
			if err := a.loadConfig(cmd); err != nil {
				return err
			}
			return a.checkGlobals()
		},
	}
	root.SetVersionTemplate("a2a {{.Version}}\nA2A protocol " + a2av1.A2AServiceDesc.ProtocolVersion() + "\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.Flags().BoolP("version", "v", false, "print the tool's version and exit")
	f := root.PersistentFlags()
	f.StringVarP(&a.agentCard, "agent-card", "a", "", "the agent: a host or origin (the well-known card path is appended), the card's `URL`, or a card file (file://… or a path)")
	f.StringArrayVar(&a.transports, "transport", nil, "preferred `binding`, repeatable, highest first: "+strings.Join(binding.Options(), ", ")+" (default: the card's order)")
	f.StringVar(&a.tenant, "tenant", "", "tenant to put in every request (default: the chosen interface's tenant)")
	f.StringVar(&a.bearer, "bearer", "", "bearer `TOKEN`, sent as the card's HTTP bearer, OAuth 2.0 or OpenID Connect scheme asks (env A2ACLI_BEARER; a flag is visible in the process table and shell history: prefer the variable)")
	f.StringVar(&a.apiKey, "api-key", "", "API `KEY`, sent where the card's API key scheme says: header, query parameter or cookie (env A2ACLI_API_KEY; prefer the variable, as for --bearer)")
	f.StringArrayVar(&a.svcParams, "svc-param", nil, "A2A service parameter `K:V`, sent as an HTTP header or gRPC metadata (repeatable)")
	f.StringVar(&a.version, "a2a-version", "", "A2A protocol `version` to signal (default: the chosen interface's, never below 1.0; 0.3 opts in to an agent's legacy interface)")
	f.StringArrayVar(&a.extensions, "extension", nil, "extension `URI` to request in A2A-Extensions (repeatable)")
	f.DurationVar(&a.timeout, "timeout", 0, "give up after this long, e.g. 30s (default: 60s for a single call, no limit while waiting for a task or following a stream)")
	f.DurationVar(&a.pollInterval, "poll-interval", 2*time.Second, "how often to re-read a task while waiting for it")
	f.StringVarP(&a.output, "output", "o", "text", "output format: text or json")
	f.BoolVar(&a.verbose, "verbose", false, "show everything exchanged: history, every part, metadata")
	f.BoolVar(&a.debug, "debug", false, "log every request and response on stderr, credentials always masked")
	f.BoolVar(&a.insecure, "insecure", false, "do not verify the agent's TLS certificate (development only; warns)")
	f.StringVar(&a.cacert, "cacert", "", "trust the CA certificates of the PEM `FILE` too (a self-signed agent)")
	f.StringVar(&a.clientCert, "cert", "", "client certificate PEM `FILE` for mutual TLS (with --key)")
	f.StringVar(&a.clientKey, "key", "", "private key PEM `FILE` of --cert")
	f.StringVar(&a.configFile, "config", "", "load settings from this .env `FILE` instead of the local .env")
	// The names of the tool before the specification: kept for one
	// release, hidden from help.
	f.StringArrayVar(&a.transports, "binding", nil, "deprecated: --transport")
	f.StringVar(&a.auth, "auth", "", `deprecated: a whole Authorization value, e.g. "Bearer TOKEN"`)
	f.StringArrayVar(&a.headers, "header", nil, "deprecated: --svc-param K:V")
	for _, name := range []string{"binding", "auth", "header"} {
		_ = f.MarkHidden(name)
	}
	_ = root.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions(binding.Options(), cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))

	root.AddCommand(a.cardCommand(), a.sendCommand(), a.taskCommand(), a.configCommand(),
		a.authCommand(), a.chatCommand(), a.conformanceCommand(), a.demoServerCommand(), a.webhookCommand())
	root.AddCommand(a.legacyCommands()...)
	root.AddCommand(inspect.Command()) // a2a inspect: internal/inspect, docs/inspect.md
	return root
}

// checkGlobals validates the global flags before any command runs and
// notes the secrets they carry, which output masks.
func (a *app) checkGlobals() error {
	if err := a.checkGlobalValues(); err != nil {
		return err
	}
	for _, s := range []string{a.bearer, a.apiKey, a.auth} {
		if s != "" {
			a.secrets = append(a.secrets, s)
		}
	}
	a.secrets = append(a.secrets, pairValues(a.svcParams, ":")...)
	a.secrets = append(a.secrets, pairValues(a.headers, "=")...)
	if a.insecure {
		fmt.Fprintln(a.env.stderr, "a2a: WARNING: --insecure: the agent's TLS certificate is not verified; anyone on the path can read and change this exchange, credentials included")
	}
	return nil
}

// checkGlobalValues refuses a global flag's value that cannot be used.
func (a *app) checkGlobalValues() error {
	switch a.output {
	case "text", "json", "yaml":
	default:
		return usagef("-o %q: want text or json", a.output)
	}
	for _, t := range a.transports {
		if _, err := bindingName(t); err != nil {
			return err
		}
	}
	if err := checkPairs("--header", a.headers, "="); err != nil {
		return err
	}
	if err := checkPairs("--svc-param", a.svcParams, ":"); err != nil {
		return err
	}
	if a.version != "" {
		if _, ok := runtime.ParseVersion(a.version); !ok {
			return usagef("--a2a-version %q: want Major.Minor, e.g. 1.0", a.version)
		}
	}
	if a.timeout < 0 {
		return usagef("--timeout %v: must not be negative", a.timeout)
	}
	if a.pollInterval <= 0 {
		return usagef("--poll-interval %v: must be positive", a.pollInterval)
	}
	if (a.clientCert == "") != (a.clientKey == "") {
		return usagef("--cert and --key go together")
	}
	return nil
}

// checkPairs refuses a value of the flag that is not K<sep>V with a key.
func checkPairs(flag string, values []string, sep string) error {
	for _, p := range values {
		if k, _, ok := strings.Cut(p, sep); !ok || strings.TrimSpace(k) == "" {
			return usagef("%s %q: want K%sV", flag, p, sep)
		}
	}
	return nil
}

// pairValues are the non-empty values of K<sep>V pairs.
func pairValues(pairs []string, sep string) []string {
	var out []string
	for _, p := range pairs {
		if _, v, _ := strings.Cut(p, sep); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// credentialsGiven reports whether the caller supplied a credential.
func (a *app) credentialsGiven() bool {
	return a.bearer != "" || a.apiKey != "" || a.authorization() != ""
}

// bindingName maps a --transport value to the binding, "" when not given.
func bindingName(b string) (runtime.Binding, error) {
	if b == "" {
		return "", nil
	}
	p, err := runtime.ParseBinding(b)
	if err != nil {
		return "", usagef("--transport %q: want %s", b, binding.Accepted)
	}
	return p, nil
}

// defaultTimeout bounds commands that make a few unary calls.
const defaultTimeout = 60 * time.Second

// commandContext applies --timeout: the default for unary commands, none
// for commands that wait (streams, send's wait, task get --wait) unless
// given.
func (a *app) commandContext(ctx context.Context, waits bool) (context.Context, context.CancelFunc) {
	d := a.timeout
	if d == 0 && !waits {
		d = defaultTimeout
	}
	if d == 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
