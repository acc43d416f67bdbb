package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/a2agen/a2agen/interop/internal/peerproc"
)

// binaries are the two servers, built once per run of the tool.
type binaries struct {
	sdkpeer, echo string
}

// buildServers compiles sdkpeer (this module) and examples/echo (the main
// module at repo) into a temporary directory that cleanup removes.
func buildServers(ctx context.Context, repo string) (binaries, func(), error) {
	dir, err := os.MkdirTemp("", "a2agen-loadbench-")
	if err != nil {
		return binaries{}, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	bins := binaries{sdkpeer: filepath.Join(dir, "sdkpeer"), echo: filepath.Join(dir, "echo")}
	if _, err := os.Stat("sdkpeer"); err != nil {
		cleanup()
		return binaries{}, nil, fmt.Errorf("run loadbench from the interop module directory (./sdkpeer not found): %w", err)
	}
	if err := peerproc.Build(ctx, ".", bins.sdkpeer, "./sdkpeer"); err != nil {
		cleanup()
		return binaries{}, nil, err
	}
	if err := peerproc.Build(ctx, repo, bins.echo, "./examples/echo"); err != nil {
		cleanup()
		return binaries{}, nil, fmt.Errorf("building examples/echo (-repo %s): %w", repo, err)
	}
	return bins, cleanup, nil
}

// server is one of the two servers under test.
type server struct {
	label string // "a2agen" or "SDK"
	proc  *peerproc.Process
}

var wantEndpoints = []string{"card", "jsonrpc", "rest", "grpc"}

// startBoth starts a fresh a2agen echo and a fresh SDK peer, so that every
// cell of the table begins with empty task stores on both sides.
func startBoth(cfg config, bins binaries) (ours, theirs *server, err error) {
	var env []string
	if cfg.serverProcs > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(cfg.serverProcs))
	}
	// examples/echo reads a zero -chunk-interval as its default and a
	// negative one as "no pause"; sdkpeer takes zero as "no pause".
	echoInterval := cfg.chunkInterval
	if echoInterval <= 0 {
		echoInterval = -1
	}
	echoArgs := append([]string{"-http", "127.0.0.1:0", "-grpc", "127.0.0.1:0", "-chunk-interval", echoInterval.String()}, cfg.echoArgs...)
	p, err := peerproc.Start(bins.echo, echoArgs, env, wantEndpoints, 30*time.Second)
	if err != nil {
		return nil, nil, fmt.Errorf("examples/echo: %w", err)
	}
	ours = &server{label: "a2agen", proc: p}
	sdkArgs := []string{"serve", "-http", "127.0.0.1:0", "-grpc", "127.0.0.1:0", "-log", "off", "-chunk-interval", cfg.chunkInterval.String()}
	p, err = peerproc.Start(bins.sdkpeer, sdkArgs, env, wantEndpoints, 30*time.Second)
	if err != nil {
		ours.stop()
		return nil, nil, fmt.Errorf("sdkpeer: %w", err)
	}
	return ours, &server{label: "SDK", proc: p}, nil
}

func (s *server) stop() { s.proc.Stop(5 * time.Second) }
