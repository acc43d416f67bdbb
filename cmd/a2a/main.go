// Command a2a is a command-line client for any A2A (Agent2Agent) agent, on
// every binding: JSON-RPC, HTTP+JSON and gRPC, following the official
// a2a-cli specification (v0.2). It reads the agent card,
// sends messages (streaming the answer live), reads, lists, cancels and
// follows tasks, manages push-notification configs, and receives push
// notifications on a local webhook.
//
//	a2a card get -a http://localhost:8080
//	a2a send -a http://localhost:8080 hello
//	a2a send -a http://localhost:8080 --stream "stream 5"
//	a2a task list -a http://localhost:8080 --context-id CTX
//	a2a webhook listen 127.0.0.1:9000 --token s3cret
//
// Install it with `go install github.com/a2agen/a2agen/cmd/a2a@latest`. See
// `a2a --help` (exit codes, environment variables) and docs/cli.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], environment{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, terminal: isTerminal(os.Stdout), stdinTerminal: isTerminal(os.Stdin),
	})
	stop()
	os.Exit(code)
}

// isTerminal reports whether f is a character device (a terminal): chat
// prompts only when both stdin and stdout are.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
