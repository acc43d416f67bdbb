// Command testtimes says where the time of a test run went: it reads the
// output of go test -json and prints the slowest top-level tests and
// packages with their elapsed seconds (make test-times).
//
//	go test -count=1 -json ./... | go run ./internal/cmd/testtimes -top 20
//	go run ./internal/cmd/testtimes -top 20 before.json
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("testtimes", flag.ContinueOnError)
	fs.SetOutput(stdout)
	top := fs.Int("top", 20, "how many tests and packages to list (0: all)")
	prefix := fs.String("trim", "github.com/a2agen/a2agen", "package path prefix to leave out of the listing")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: testtimes [-top N] [-trim PREFIX] [FILE.json ...]

Reads go test -json output (the files, or standard input) and lists the
slowest top-level tests and packages by elapsed seconds.

Examples:
  go test -count=1 -json ./... | go run ./internal/cmd/testtimes
  go run ./internal/cmd/testtimes -top 0 run.json

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	var ts times
	if fs.NArg() == 0 {
		if err := ts.read(stdin); err != nil {
			return fmt.Errorf("standard input: %w", err)
		}
	}
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = ts.read(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return ts.report(stdout, *top, *prefix)
}
