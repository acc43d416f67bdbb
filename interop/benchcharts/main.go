// Command benchcharts draws the SVG charts of docs/performance.md from the
// benchmarks' own machine-readable output, so that re-running a benchmark
// and `make charts` redraws its chart:
//
//   - NAME.json, written by `go run ./loadbench -json NAME.json`
//     (interop/internal/benchresult): NAME-<workload>.svg for each
//     workload, a group of bars per binding and concurrency, a bar per
//     server (a2agen's stores, the ceiling, the SDK): requests per second
//     (events per second for streams) and p99 latency;
//   - NAME.txt, `go test -bench` output: NAME-allocations.svg (NAME.svg when NAME is allocations) from
//     BenchmarkSendMessage and BenchmarkStreamingMessage (./server/,
//     allocs/op per binding), NAME-telemetry.svg (NAME.svg when NAME is telemetry) from
//     BenchmarkTelemetryInterleaved (./a2a/v1/, each setup's
//     <setup>/off-p50 per binding). The medians of -count runs are drawn.
//     "date:", "machine:", "command:" and "note:" lines (the format's
//     configuration lines) become the chart's subtitle.
//
// Usage, from the interop module (what `make charts` runs):
//
//	go run ./benchcharts -out ../docs/perf ../docs/perf/*.json ../docs/perf/*.txt
//
// It writes SVG only (no scripts, no fonts to fetch) with the standard
// library alone.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/a2agen/a2agen/interop/internal/benchresult"
)

func main() {
	out := flag.String("out", ".", "`directory` the SVG files are written to")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: benchcharts [-out DIR] FILE.json|FILE.txt …")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	written, err := drawAll(*out, flag.Args())
	for _, f := range written {
		fmt.Println(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcharts:", err)
		os.Exit(1)
	}
}

// drawAll draws the charts of every file into dir and returns the files it
// wrote. A file it draws no chart from is an error: it was named for a
// reason.
func drawAll(dir string, files []string) ([]string, error) {
	var written []string
	for _, f := range files {
		charts, err := chartsOf(f)
		if err != nil {
			return written, err
		}
		if len(charts) == 0 {
			return written, fmt.Errorf("%s: no benchmark this program draws (loadbench -json output, or go test -bench output of BenchmarkSendMessage, BenchmarkStreamingMessage or BenchmarkTelemetryInterleaved)", f)
		}
		base := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		keys := make([]string, 0, len(charts))
		for k := range charts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			var b bytes.Buffer
			if err := charts[k].render(&b); err != nil {
				return written, err
			}
			name := filepath.Join(dir, base+"-"+k+".svg")
			if k == base { // allocations.txt → allocations.svg
				name = filepath.Join(dir, base+".svg")
			}
			if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
				return written, err
			}
			written = append(written, name)
		}
	}
	return written, nil
}

// chartsOf reads one result file by its extension.
func chartsOf(file string) (map[string]*chart, error) {
	switch filepath.Ext(file) {
	case ".json":
		r, err := benchresult.Read(file)
		if err != nil {
			return nil, err
		}
		return loadbenchCharts(r), nil
	case ".txt":
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		g, err := parseGoBench(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return goBenchCharts(g), nil
	}
	return nil, fmt.Errorf("%s: want a .json file of loadbench -json or a .txt file of go test -bench output", file)
}
