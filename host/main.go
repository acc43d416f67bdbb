package host

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/a2agen/a2agen/auth"
)

// Main is the whole command-line life of an agent program: it reads the
// flags -tls-cert and -tls-key (serve every address over TLS) and -client-ca
// (verify client certificates against those CAs, for mtls schemes), starts
// the agent of cfg, prints the card URL and one line per binding, serves until
// ctx is done, shuts down, and returns the process's exit code (2 for bad
// flags, 1 for any other failure). name is the program name in usage text.
// Addresses, paths and everything else come from cfg.
//
// Scaffolded projects call it from their generated runMain, so that the
// serving logic is the library's, not a copy in every project.
func Main(ctx context.Context, name string, cfg Config, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	tlsCert := flags.String("tls-cert", "", "PEM certificate (chain) to serve TLS with")
	tlsKey := flags.String("tls-key", "", "PEM private key of -tls-cert")
	clientCA := flags.String("client-ca", "", "PEM CA certificates client certificates are verified against (mtls)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *tlsCert != "" || *tlsKey != "" || *clientCA != "" {
		tlsConfig, err := auth.ServerTLSConfig(*tlsCert, *tlsKey, *clientCA)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		cfg.TLS = tlsConfig
	}
	agent, err := Start(cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	for _, b := range cfg.Bindings {
		if u := agent.CardURL(b); u != "" {
			fmt.Fprintf(stdout, "%-9s %s\n", "card", u)
			break
		}
	}
	for _, b := range cfg.Bindings {
		fmt.Fprintf(stdout, "%-9s %s\n", b.Protocol, agent.URL(b))
	}
	if err := agent.Wait(ctx); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
