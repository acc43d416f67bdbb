package host

import (
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/internal/version"
	"github.com/a2agen/a2agen/server"
)

// settings are Main's flags, each also read from its environment variable,
// parsed and checked: what Main applies to the program's Config. Every
// setting has one flag and one field of Config it lands in.
type settings struct {
	tlsCert, tlsKey, clientCA string
	requireClientCert         bool
	listen                    listenFlag
	store                     string
	grace, delay              time.Duration
	longPollHold              time.Duration // 0: answer at once
	grpcReflection            bool
	requestLog                bool
	protocolVersions          string // comma-separated; "" keeps Config.ProtocolVersions
	version                   bool
	limits                    Limits // one flag per field (limits_flags.go)

	given   map[string]bool // the flags on the command line
	fromEnv map[string]bool // the flags set by their variable
}

// parseSettings reads args, then the environment for the flags args does
// not set, and checks the result against cfg. Its errors are exitErrors.
func parseSettings(name string, cfg Config, args []string, stdout, stderr io.Writer) (*settings, error) {
	s := &settings{listen: listenFlag{}, limits: cfg.Limits.withDefaults()}
	flags := s.flagSet(name, cfg)
	flags.SetOutput(stderr)
	if err := flags.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, &exitError{code: 0}
		}
		return nil, &exitError{code: 2} // the flag package said why
	}
	if s.version {
		fmt.Fprint(stdout, version.Line(name))
		return nil, &exitError{code: 0}
	}
	if flags.NArg() > 0 {
		return nil, &exitError{code: 2, line: fmt.Sprintf("%s takes no arguments, got %q; see %s -help", name, flags.Args(), name)}
	}
	s.given = map[string]bool{}
	flags.Visit(func(f *flag.Flag) { s.given[f.Name] = true })
	var err error
	if s.fromEnv, err = applyEnv(flags, s.given); err != nil {
		return nil, exitf(2, name, "%v", err)
	}
	return s, s.check(name, cfg)
}

// flagSet declares Main's flags, bound to s, their defaults from cfg.
func (s *settings) flagSet(name string, cfg Config) *flag.FlagSet {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.StringVar(&s.tlsCert, "tls-cert", "", "PEM certificate (chain) to serve TLS with")
	flags.StringVar(&s.tlsKey, "tls-key", "", "PEM private key of -tls-cert")
	flags.StringVar(&s.clientCA, "client-ca", "", "PEM CA certificates client certificates are verified against (mtls)")
	flags.BoolVar(&s.requireClientCert, "require-client-cert", false, "refuse TLS connections without a client certificate verified against -client-ca (health probes need one too)")
	flags.Var(s.listen, "listen", "listen on TO instead of the agent.yaml address FROM (`FROM=TO`, repeatable; in the variable, separated by commas)")
	flags.StringVar(&s.store, "store", DefaultStore, "`URL` of the task store: memory, sqlite:PATH for a SQLite file (created when missing; a relative PATH starts at the working directory), or postgres://…")
	grace := cfg.ShutdownGrace
	if grace == 0 {
		grace = DefaultShutdownGrace
	}
	flags.DurationVar(&s.grace, "shutdown-grace", max(grace, 0), "how long running tasks may go on after SIGTERM or SIGINT before they are canceled (0: cancel at once)")
	flags.DurationVar(&s.delay, "shutdown-delay", cfg.ShutdownDelay, "how long the agent keeps serving after SIGTERM or SIGINT, answering /readyz with 503, before it stops accepting calls")
	flags.BoolVar(&s.grpcReflection, "grpc-reflection", cfg.GRPCReflection, "serve gRPC server reflection (grpc.reflection.v1) for tools like grpcurl")
	flags.BoolVar(&s.version, versionFlag, false, "print what the program was built from (its module version, commit, Go version and a2agen) and exit")
	flags.StringVar(&s.protocolVersions, "protocol-versions", strings.Join(cfg.ProtocolVersions, ","), "`VERSIONS` of A2A to serve, comma-separated: 1.0 (the default), or 1.0,1.1 to serve the A2A 1.1 draft beside it")
	flags.DurationVar(&s.longPollHold, "long-poll-hold", longPollHoldFlag(cfg.LongPollHold), "how long a GetTask with currentGeneration (an A2A 1.1 long-poll) waits for the task to change before it is answered with the task as it is (at most 10m; 0: answer at once)")
	flags.BoolVar(&s.requestLog, "request-log", true, "log one line per call (binding, operation, tenant, task, outcome, duration); traces and metrics follow the OTEL_* variables")
	limitFlags(flags, &s.limits)
	if cfg.Flags != nil {
		cfg.Flags(flags)
	}
	flags.Usage = func() { usage(flags, name, cfg) }
	return flags
}

// source names where a flag's value came from, for error messages.
func (s *settings) source(flagName string) string {
	if s.fromEnv[flagName] {
		return "$" + EnvName(flagName)
	}
	return "-" + flagName
}

// check refuses settings that contradict each other or cfg (exit code 2).
func (s *settings) check(name string, cfg Config) error {
	for _, problem := range []func(Config) string{s.listenProblem, s.durationProblem, s.storeProblem, s.versionsProblem, s.clientCertProblem} {
		if p := problem(cfg); p != "" {
			return exitf(2, name, "%s", p)
		}
	}
	return nil
}

// listenProblem is what is wrong with -listen for the program's bindings.
func (s *settings) listenProblem(cfg Config) string {
	if err := s.listen.check(cfg.Bindings); err != nil {
		return fmt.Sprintf("%s: %v", s.source("listen"), err)
	}
	return ""
}

// durationProblem is what is wrong with the durations: a negative one, or
// a long-poll hold given longer than a long-poll can be held.
func (s *settings) durationProblem(Config) string {
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"shutdown-grace", s.grace}, {"shutdown-delay", s.delay}, {"long-poll-hold", s.longPollHold}} {
		if f.v < 0 {
			return fmt.Sprintf("%s must not be negative (0 means none)", s.source(f.name))
		}
	}
	if s.longPollHold > server.MaxLongPollHold && (s.given["long-poll-hold"] || s.fromEnv["long-poll-hold"]) { // Config's own: Start says
		return fmt.Sprintf("%s is %v, longer than a long-poll can be held (%v): lower it (0 answers at once)", s.source("long-poll-hold"), s.longPollHold, server.MaxLongPollHold)
	}
	return ""
}

// storeProblem refuses the store and retention flags to a program that
// keeps its tasks in its own store (cfg.Store).
func (s *settings) storeProblem(cfg Config) string {
	if cfg.Store == nil {
		return ""
	}
	for _, n := range storeFlags() {
		switch {
		case s.given[n]:
			return "-store and the task retention flags (-terminal-task-ttl, -max-terminal-tasks, -interrupted-task-ttl, the per-owner maximums) do not apply: the program keeps its tasks in its own store"
		case s.fromEnv[n]:
			return fmt.Sprintf("$%s does not apply: the program keeps its tasks in its own store", EnvName(n))
		}
	}
	return ""
}

// versionsProblem is what is wrong with -protocol-versions.
func (s *settings) versionsProblem(Config) string {
	if _, err := servedVersions(s.versions()); err != nil {
		return fmt.Sprintf("%s: %v", s.source("protocol-versions"), strings.TrimPrefix(err.Error(), "host: "))
	}
	return ""
}

// clientCertProblem refuses -require-client-cert without client CAs to
// verify the certificates against.
func (s *settings) clientCertProblem(cfg Config) string {
	if s.requireClientCert && s.clientCA == "" && (cfg.TLS == nil || cfg.TLS.ClientCAs == nil) {
		return fmt.Sprintf("%s needs TLS with client CAs to verify the certificates against (-tls-cert, -tls-key, -client-ca)", s.source("require-client-cert"))
	}
	return ""
}

// apply returns cfg with the settings in it. Only reading the TLS files can
// fail here (exit code 1).
func (s *settings) apply(cfg Config) (Config, error) {
	if s.tlsCert != "" || s.tlsKey != "" || s.clientCA != "" {
		tlsConfig, err := auth.ServerTLSConfig(s.tlsCert, s.tlsKey, s.clientCA)
		if err != nil {
			return cfg, fmt.Errorf("%w%s", err, envNote(s.fromEnv, "tls-cert", "tls-key", "client-ca"))
		}
		cfg.TLS = tlsConfig
	}
	if s.requireClientCert {
		cfg.TLS = cfg.TLS.Clone()
		cfg.TLS.ClientAuth = tls.RequireAndVerifyClientCert
	}
	cfg.ProtocolVersions = s.versions()
	cfg.LongPollHold = longPollHoldConfig(s.longPollHold)
	cfg.Listen = s.listen.wrap(cfg.Listen)
	cfg.Limits = s.limits
	cfg.ShutdownGrace, cfg.ShutdownDelay, cfg.GRPCReflection = s.grace, s.delay, s.grpcReflection
	if s.grace == 0 {
		cfg.ShutdownGrace = -1 // none (Config's zero is the default)
	}
	return cfg, nil
}

// versions are the versions -protocol-versions names (nil for none).
func (s *settings) versions() []string {
	var out []string
	for _, v := range strings.Split(s.protocolVersions, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
