package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/a2agen/a2agen/interop/internal/peerproc"
	"github.com/a2agen/a2agen/server/store/postgres"
)

// binaries are the server programs, built once per run of the tool.
type binaries struct {
	sdkpeer, ceiling, echo string
}

// buildServers compiles sdkpeer and ceilingpeer (this module) and
// examples/echo (the main module at repo) into a temporary directory that
// cleanup removes.
func buildServers(ctx context.Context, repo string) (binaries, func(), error) {
	dir, err := os.MkdirTemp("", "a2agen-loadbench-")
	if err != nil {
		return binaries{}, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	bins := binaries{sdkpeer: filepath.Join(dir, "sdkpeer"), ceiling: filepath.Join(dir, "ceilingpeer"), echo: filepath.Join(dir, "echo")}
	if _, err := os.Stat("sdkpeer"); err != nil {
		cleanup()
		return binaries{}, nil, fmt.Errorf("run loadbench from the interop module directory (./sdkpeer not found): %w", err)
	}
	if err := peerproc.Build(ctx, ".", bins.sdkpeer, "./sdkpeer"); err != nil {
		cleanup()
		return binaries{}, nil, err
	}
	if err := peerproc.Build(ctx, ".", bins.ceiling, "./ceilingpeer"); err != nil {
		cleanup()
		return binaries{}, nil, err
	}
	if err := peerproc.Build(ctx, repo, bins.echo, "./examples/echo"); err != nil {
		cleanup()
		return binaries{}, nil, fmt.Errorf("building examples/echo (-repo %s): %w", repo, err)
	}
	return bins, cleanup, nil
}

// variant is one server under test: a2agen's examples/echo on one task
// store, the ceiling (interop/ceilingpeer) or the SDK peer.
type variant struct {
	name  string // column label: "memory", "sqlite", "postgres", "ceiling" or "SDK"
	store string // examples/echo's store kind ("memory", "sqlite", "postgres"); "" for the others
}

// ceilingName is the ceiling's column label.
const ceilingName = "ceiling"

func (v variant) isSDK() bool     { return v.store == "" && v.name == "SDK" }
func (v variant) isCeiling() bool { return v.store == "" && v.name == ceilingName }

// variants lists the servers of every cell: the a2agen stores of -stores
// in their order, the ceiling (with -ceiling), then the SDK.
func (c config) variants() []variant {
	var vs []variant
	for _, st := range c.stores {
		vs = append(vs, variant{name: st, store: st})
	}
	if c.ceiling {
		vs = append(vs, variant{name: ceilingName})
	}
	return append(vs, variant{name: "SDK"})
}

// server is one running server under test.
type server struct {
	variant
	proc    *peerproc.Process
	appName string // postgres: the application_name of its database connections
}

var (
	wantEndpoints     = []string{"card", "jsonrpc", "rest", "grpc"}
	wantEchoEndpoints = []string{"card", "jsonrpc", "rest", "grpc", "store"}
)

// cellStores are where a cell's durable stores keep their data: the
// directory of its SQLite database and the store URL of its PostgreSQL
// schema, each new for the cell.
type cellStores struct {
	sqliteDir   string
	postgresURL string
	pgAppName   string // the application_name in postgresURL
}

// startServers starts a fresh server of every variant, so that every cell of
// the table begins with empty task stores: a new examples/echo process per
// a2agen store, its SQLite database a new file in cs.sqliteDir, its
// PostgreSQL tables in the new schema of cs.postgresURL, and a new SDK
// peer. On error, the servers already started are stopped.
func startServers(cfg config, bins binaries, cs cellStores) ([]*server, error) {
	var env []string
	if cfg.serverProcs > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(cfg.serverProcs))
	}
	var servers []*server
	fail := func(err error) ([]*server, error) {
		stopAll(servers)
		return nil, err
	}
	for _, v := range cfg.variants() {
		var (
			p   *peerproc.Process
			err error
		)
		switch {
		case v.isCeiling():
			if p, err = peerproc.Start(bins.ceiling, []string{"-http", "127.0.0.1:0", "-grpc", "127.0.0.1:0"}, env, wantEndpoints, 30*time.Second); err != nil {
				return fail(fmt.Errorf("ceilingpeer: %w", err))
			}
		case v.isSDK():
			sdkArgs := []string{"serve", "-http", "127.0.0.1:0", "-grpc", "127.0.0.1:0", "-log", "off", "-chunk-interval", cfg.chunkInterval.String()}
			if p, err = peerproc.Start(bins.sdkpeer, sdkArgs, env, wantEndpoints, 30*time.Second); err != nil {
				return fail(fmt.Errorf("sdkpeer: %w", err))
			}
		default:
			if p, err = startEcho(cfg, bins, env, v, cs); err != nil {
				return fail(fmt.Errorf("examples/echo --store %s: %w", v.store, err))
			}
		}
		srv := &server{variant: v, proc: p}
		if v.store == "postgres" {
			srv.appName = cs.pgAppName
		}
		servers = append(servers, srv)
	}
	return servers, nil
}

// startEcho starts examples/echo on the variant's store and checks, from the
// store line it prints, that it opened that store.
func startEcho(cfg config, bins binaries, env []string, v variant, cs cellStores) (*peerproc.Process, error) {
	storeURL := "memory"
	switch v.store {
	case "sqlite":
		// A fresh file with the store's default, durable settings
		// (WAL, synchronous=normal).
		// The URL decodes percent-escapes and ends the path at "?".
		storeURL = "sqlite:" + strings.NewReplacer("%", "%25", "?", "%3F").Replace(filepath.Join(cs.sqliteDir, "echo.db"))
	case "postgres":
		// A fresh, empty schema, the server's settings as they are.
		storeURL = cs.postgresURL
	}
	// examples/echo reads a zero -chunk-interval as its default and a
	// negative one as "no pause"; sdkpeer takes zero as "no pause".
	echoInterval := cfg.chunkInterval
	if echoInterval <= 0 {
		echoInterval = -1
	}
	args := append([]string{"-http", "127.0.0.1:0", "-grpc", "127.0.0.1:0", "-chunk-interval", echoInterval.String()}, cfg.echoArgs...)
	args = append(args, "-store", storeURL)
	p, err := peerproc.Start(bins.echo, args, env, wantEchoEndpoints, 30*time.Second)
	if err != nil {
		return nil, err
	}
	// echo prints the URL with any password redacted.
	want := storeURL
	if v.store == "postgres" {
		want = postgres.Describe(storeURL)
	}
	if got := p.Endpoints["store"]; got != want {
		p.Stop(5 * time.Second)
		return nil, fmt.Errorf("examples/echo reports store %q, want %q", got, want)
	}
	return p, nil
}

func (s *server) stop() { s.proc.Stop(5 * time.Second) }

func stopAll(servers []*server) {
	for _, s := range servers {
		s.stop()
	}
}

// cpuTime is the user+system CPU time the process pid has used so far, from
// /proc/<pid>/stat (Linux; in USER_HZ ticks, 100 per second on every Linux
// ABI Go supports). ok is false where /proc cannot be read.
func cpuTime(pid int) (d time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * (time.Second / 100), true
}

// fsType names the file system holding dir, from /proc/self/mounts (the
// longest mount point that contains it), or "" when unknown.
func fsType(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return ""
	}
	best, typ := -1, ""
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mp := strings.ReplaceAll(f[1], `\040`, " ")
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > best {
			best, typ = len(mp), f[2]
		}
	}
	return typ
}
