// Command loadbench measures a2agen's default server (examples/echo) and the
// official Go SDK's server (interop/sdkpeer, same echo contract) side by
// side under closed-loop load, on loopback. a2agen runs once per task store
// named by -stores: "memory" (--store memory), "sqlite" (--store
// sqlite:FILE, a fresh file per cell with the store's default, durable
// settings) and "postgres" (--store postgres://…?schema=NAME on the server
// -postgres names, a fresh schema per cell, dropped after it; PostgreSQL's
// own durability settings are left as they are); the SDK keeps its tasks
// in memory. With -ceiling (the default) interop/ceilingpeer runs too: a
// hand-written net/http + protojson server (a grpc-go service for gRPC)
// that does only the wire work of each answer, so that a2agen's rates also
// read as a fraction of that bound.
//
// For each binding (JSON-RPC, HTTP+JSON, gRPC), workload (SendMessage
// "hello", SendStreamingMessage "stream 10") and concurrency (1, 16, 64) it
// runs the servers in turn for a fixed duration each, reversing their
// order every other round, and prints Markdown tables: requests per second,
// p50 and p99 latency per server and the ratio of each a2agen store to the
// SDK; the servers' CPU time per request (read from /proc); and for
// "stream 10" the events delivered per second and the CPU time per event.
// A streaming request counts once, from sending to the end of its 13th
// event.
//
// The load client is neutral: for the HTTP bindings it posts the same
// hand-built bytes to both servers with net/http, for gRPC it calls
// grpc.ClientConn.Invoke/NewStream with a2agen's message types (the SDK
// server runs in another process, so the types never meet in one binary).
//
// Run it from the interop module (it builds both servers first):
//
//	cd interop && go run ./loadbench -duration 3s
//	cd interop && go run ./loadbench -bindings JSONRPC -concurrency 16   # the headline cells
//	cd interop && go run ./loadbench -stores memory,sqlite,postgres -postgres postgres://postgres@127.0.0.1:5432/test
//
// or "make bench-interop" at the repository root.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2agen/a2agen/interop/internal/benchresult"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

// config holds the flags.
type config struct {
	duration      time.Duration
	warmup        time.Duration
	concurrency   []int
	bindings      []string
	workloads     []string
	rounds        int
	repo          string
	echoArgs      []string
	serverProcs   int
	chunkInterval time.Duration
	stores        []string // a2agen's task stores: "memory", "sqlite", "postgres"
	ceiling       bool     // also run interop/ceilingpeer, the bound of the wire work
	client        string   // load client of the HTTP bindings: "go" (net/http) or "wrk"
	wrk           *wrkClient
	sqliteDir     string // where each cell's SQLite database is created
	postgresURL   string // -postgres: the server each cell's schema is created on
	postgres      *pgServer
	jsonFile      string // -json: where the run's figures go as JSON
}

// storeNames are the stores -stores accepts.
var storeNames = []string{"memory", "sqlite", "postgres"}

func run() error {
	var cfg config
	var conc, binds, works, echoArgs, stores string
	flag.DurationVar(&cfg.duration, "duration", 3*time.Second, "measured duration of each run")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "unmeasured load before each run")
	flag.StringVar(&conc, "concurrency", "1,16,64", "comma-separated numbers of closed-loop workers")
	flag.StringVar(&binds, "bindings", "JSONRPC,HTTP+JSON,GRPC", "comma-separated bindings")
	flag.StringVar(&works, "workloads", "hello,stream10", "comma-separated workloads: hello (SendMessage), stream10 (SendStreamingMessage \"stream 10\")")
	flag.IntVar(&cfg.rounds, "rounds", 2, "alternations ours/theirs per cell; the first server alternates between rounds")
	flag.StringVar(&cfg.repo, "repo", "..", "repository root, where examples/echo lives")
	flag.StringVar(&echoArgs, "echo-args", "", "extra flags for examples/echo, space-separated")
	flag.IntVar(&cfg.serverProcs, "server-procs", 0, "GOMAXPROCS of the servers (0: Go's default)")
	flag.DurationVar(&cfg.chunkInterval, "chunk-interval", 0, "pause between the chunks of \"stream 10\" on all servers (0: none, so that server work is measured, not sleeping)")
	flag.StringVar(&stores, "stores", "memory,sqlite", "comma-separated task stores of a2agen's server, each measured next to the SDK: memory, sqlite (a fresh SQLite file per cell, default durable settings), postgres (a fresh schema per cell on the server -postgres names)")
	flag.BoolVar(&cfg.ceiling, "ceiling", true, "also run interop/ceilingpeer, a hand-written net/http + protojson (and grpc-go) server doing only the wire work of each answer, and print each a2agen store's rate as a fraction of it")
	flag.StringVar(&cfg.client, "client", "go", "load client of JSON-RPC and HTTP+JSON: go (net/http in this process, one kept-alive connection per worker) or wrk (Debian's wrk, a C client, one thread, -concurrency connections; whole seconds; gRPC keeps the Go client)")
	flag.StringVar(&cfg.sqliteDir, "sqlite-dir", os.TempDir(), "directory in which each cell's SQLite database is created (and removed after the cell)")
	flag.StringVar(&cfg.jsonFile, "json", "", "also write the run's figures, machine and command to `FILE` as JSON (interop/internal/benchresult; `make charts` draws docs/perf's charts from such files)")
	flag.StringVar(&cfg.postgresURL, "postgres", "", "`URL` of the PostgreSQL server for -stores postgres, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable (default: $"+postgresEnv+"); "+
		"each cell creates a schema with a random name in its database and drops it afterwards; the server's durability settings (synchronous_commit, fsync) are used as they are")
	flag.Parse()

	var err error
	if cfg.concurrency, err = parseInts(conc); err != nil {
		return fmt.Errorf("-concurrency: %w", err)
	}
	cfg.bindings = splitList(binds)
	for _, b := range cfg.bindings {
		if b != "JSONRPC" && b != "HTTP+JSON" && b != "GRPC" {
			return fmt.Errorf("-bindings: unknown binding %q (want JSONRPC, HTTP+JSON, GRPC)", b)
		}
	}
	cfg.workloads = splitList(works)
	for _, w := range cfg.workloads {
		if _, ok := workloads[w]; !ok {
			return fmt.Errorf("-workloads: unknown workload %q (want hello, stream10)", w)
		}
	}
	if cfg.rounds < 1 || cfg.duration <= 0 {
		return fmt.Errorf("-rounds must be at least 1 and -duration positive")
	}
	cfg.stores = splitList(stores)
	if len(cfg.stores) == 0 {
		return fmt.Errorf("-stores: name at least one of %s", strings.Join(storeNames, ", "))
	}
	for i, st := range cfg.stores {
		if !slices.Contains(storeNames, st) {
			return fmt.Errorf("-stores: unknown store %q (want %s)", st, strings.Join(storeNames, ", "))
		}
		if slices.Contains(cfg.stores[:i], st) {
			return fmt.Errorf("-stores: %q given twice", st)
		}
	}
	if slices.Contains(cfg.stores, "sqlite") {
		if cfg.sqliteDir, err = filepath.Abs(cfg.sqliteDir); err != nil {
			return fmt.Errorf("-sqlite-dir: %w", err)
		}
		if fi, err := os.Stat(cfg.sqliteDir); err != nil || !fi.IsDir() {
			return fmt.Errorf("-sqlite-dir %s is not a directory", cfg.sqliteDir)
		}
	}
	if cfg.postgresURL == "" {
		cfg.postgresURL = os.Getenv(postgresEnv)
	}
	if slices.Contains(cfg.stores, "postgres") && cfg.postgresURL == "" {
		return fmt.Errorf("-stores postgres: no PostgreSQL server: give its URL with -postgres URL or in $%s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", postgresEnv)
	}
	if cfg.jsonFile != "" {
		if fi, err := os.Stat(filepath.Dir(cfg.jsonFile)); err != nil || !fi.IsDir() {
			return fmt.Errorf("-json %s: its directory does not exist", cfg.jsonFile)
		}
	}
	cfg.echoArgs = strings.Fields(echoArgs)
	for _, a := range cfg.echoArgs {
		if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); name == "store" && strings.HasPrefix(a, "-") {
			return fmt.Errorf("-echo-args: %s: the store is chosen by -stores", a)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if slices.Contains(cfg.stores, "postgres") {
		if cfg.postgres, err = openPostgres(ctx, cfg.postgresURL); err != nil {
			return err
		}
	}

	bins, cleanup, err := buildServers(ctx, cfg.repo)
	if err != nil {
		return err
	}
	defer cleanup()
	switch cfg.client {
	case "go":
	case "wrk":
		if cfg.wrk, err = newWrkClient(filepath.Dir(bins.echo)); err != nil {
			return err
		}
	default:
		return fmt.Errorf("-client: unknown load client %q (want go or wrk)", cfg.client)
	}

	fmt.Fprintf(os.Stderr, "loadbench: %s, %d CPUs, GOMAXPROCS %d (load client)\n", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	start, loadStart := time.Now(), loadAverage()
	var rows []row
	for _, b := range cfg.bindings {
		for _, w := range cfg.workloads {
			r, err := benchCell(ctx, cfg, bins, b, w)
			if err != nil {
				return err
			}
			rows = append(rows, r...)
		}
	}
	printTable(os.Stdout, cfg, rows)
	if cfg.jsonFile != "" {
		if err := benchresult.Write(cfg.jsonFile, runRecord(cfg, rows, start, loadStart, loadAverage(), os.Args[1:])); err != nil {
			return fmt.Errorf("-json: %w", err)
		}
	}
	return nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// cpuModel is the first "model name" of /proc/cpuinfo, or the GOARCH.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}
