// Command ceilingpeer serves the ceiling of the load benchmark
// (github.com/a2agen/a2agen/internal/ceiling): the least work an A2A server
// must do to answer the benchmark's requests, written by hand with nothing
// else in it. interop/loadbench runs it next to a2agen's examples/echo and
// the SDK's server so that their rates read as a fraction of what the wire
// work alone allows on the same machine: net/http with encoding/json and
// protojson for JSON-RPC (on /a2a/jsonrpc) and HTTP+JSON (under /a2a/rest),
// a hand-written grpc-go service for gRPC; see the package for what each
// answer holds.
//
// It prints its endpoints like interop/sdkpeer ("card URL", "jsonrpc URL",
// "rest URL", "grpc host:port") and exits on SIGTERM, an interrupt or the
// end of its standard input.
//
//	ceilingpeer -http 127.0.0.1:0 -grpc 127.0.0.1:0
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	goruntime "runtime"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/a2agen/a2agen/internal/ceiling"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ceilingpeer:", err)
		os.Exit(1)
	}
}

const (
	jsonrpcPath = "/a2a/jsonrpc"
	restPath    = "/a2a/rest"
	cardPath    = "/.well-known/agent-card.json"
)

func run() error {
	httpAddr := flag.String("http", "127.0.0.1:0", "address for JSON-RPC and HTTP+JSON (port 0: any free port)")
	grpcAddr := flag.String("grpc", "127.0.0.1:0", "address for gRPC (\"\": none)")
	flag.Parse()

	httpLn, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return err
	}
	base := "http://" + httpLn.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+cardPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"ceiling","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":%q,"protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`,
			base+jsonrpcPath, base+restPath)
	})
	mux.HandleFunc("POST "+jsonrpcPath, ceiling.ServeJSONRPC)
	mux.HandleFunc("POST "+restPath+"/message:send", ceiling.ServeSend)
	mux.HandleFunc("POST "+restPath+"/message:stream", ceiling.ServeStream)
	httpSrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	errc := make(chan error, 2)
	go func() { errc <- httpSrv.Serve(httpLn) }()
	var grpcSrv *grpc.Server
	var grpcLn net.Listener
	if *grpcAddr != "" {
		if grpcLn, err = net.Listen("tcp", *grpcAddr); err != nil {
			return err
		}
		// Stream workers, as host.Limits.GRPCServerOptions gives agents
		// (examples/echo among them): the same grpc-go on both sides.
		grpcSrv = grpc.NewServer(grpc.NumStreamWorkers(uint32(goruntime.GOMAXPROCS(0))))
		ceiling.RegisterGRPC(grpcSrv)
		go func() { errc <- grpcSrv.Serve(grpcLn) }()
	}

	fmt.Printf("card %s%s\n", base, cardPath)
	fmt.Printf("jsonrpc %s%s\n", base, jsonrpcPath)
	fmt.Printf("rest %s%s\n", base, restPath)
	if grpcLn != nil {
		fmt.Printf("grpc %s\n", grpcLn.Addr())
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	stdinClosed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdinClosed)
	}()
	var serveErr error
	select {
	case <-stop:
	case <-stdinClosed:
	case serveErr = <-errc:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = httpSrv.Shutdown(ctx)
	if grpcSrv != nil {
		grpcSrv.Stop()
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return fmt.Errorf("serving: %w", serveErr)
	}
	return nil
}
