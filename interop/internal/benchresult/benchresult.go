// Package benchresult is the machine-readable form of one run of
// interop/loadbench (its -json FILE): when and where it ran, with which
// command, and every cell's figures per server. interop/benchcharts draws
// docs/perf's SVG charts from such files, and docs/perf keeps the runs that
// docs/performance.md reports, so that re-running the bench and
// `make charts` regenerates the charts.
//
// A figure that was not measured (or not kept) is 0 and left out of the
// JSON: a chart or table shows it as missing, never as zero.
package benchresult

import (
	"encoding/json"
	"fmt"
	"os"
)

// Format names this format in Run.Format; a reader refuses another.
const Format = "a2agen-loadbench/1"

// Run is one run of the load bench.
type Run struct {
	Format string `json:"format"`
	// Date is when the run started, RFC 3339 in UTC.
	Date string `json:"date"`
	// Command reproduces the run, from the repository's root.
	Command string  `json:"command"`
	Machine Machine `json:"machine"`
	// Settings says how each cell was measured, in words.
	Settings string `json:"settings,omitempty"`
	// Servers are the servers measured in every cell, in the order of
	// each Cell's Results.
	Servers []Server `json:"servers"`
	Cells   []Cell   `json:"cells"`
	// Note says what the reader must know about the figures, e.g. that
	// they were recorded from a report, not written by the bench.
	Note string `json:"note,omitempty"`
}

// Machine is where a run ran.
type Machine struct {
	CPU  string `json:"cpu"`
	CPUs int    `json:"cpus"`
	Go   string `json:"go"` // go1.26.8 linux/amd64
	// LoadStart and LoadEnd are the 1-minute load averages before and
	// after the run (/proc/loadavg); the bench's own processes make
	// about 2–3 of LoadEnd on a 2-CPU machine.
	LoadStart float64 `json:"load_start,omitempty"`
	LoadEnd   float64 `json:"load_end,omitempty"`
	// Quiet says no other job ran on the machine during the run.
	Quiet bool `json:"quiet"`
}

// Server is one server under test.
type Server struct {
	// Name is the column label: memory, sqlite, postgres (a2agen's
	// examples/echo on that store), ceiling (interop/ceilingpeer) or SDK
	// (the official Go SDK, interop/sdkpeer).
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Cell is one binding, workload and concurrency.
type Cell struct {
	Binding     string `json:"binding"`  // JSONRPC, HTTP+JSON, GRPC
	Workload    string `json:"workload"` // hello, stream10
	Concurrency int    `json:"concurrency"`
	// Events is the number of events each request's stream carries (13
	// for stream10), 0 for unary workloads.
	Events  int      `json:"events,omitempty"`
	Results []Result `json:"results"`
}

// Result is one server's figures in one cell, over every round.
type Result struct {
	Server         string  `json:"server"`
	Requests       int     `json:"requests,omitempty"`
	Errors         int     `json:"errors,omitempty"`
	ElapsedSeconds float64 `json:"elapsed_s,omitempty"`
	ReqPerSec      float64 `json:"req_per_s"`
	P50Ms          float64 `json:"p50_ms,omitempty"`
	P99Ms          float64 `json:"p99_ms,omitempty"`
	// CPUPerReqUs is the server process's user+system CPU time per
	// completed request, µs.
	CPUPerReqUs float64 `json:"cpu_per_req_us,omitempty"`
	// DBCPUPerReqUs is the same for the PostgreSQL backends serving the
	// server (postgres on this machine only).
	DBCPUPerReqUs float64 `json:"db_cpu_per_req_us,omitempty"`
}

// Write writes r to file as indented JSON.
func Write(file string, r *Run) error {
	r.Format = Format
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}

// Read reads a run written by Write, checking that every cell has one
// result per server, in order.
func Read(file string) (*Run, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("%s: format %q, want %q (a file written by loadbench -json)", file, r.Format, Format)
	}
	for i, c := range r.Cells {
		if len(c.Results) != len(r.Servers) {
			return nil, fmt.Errorf("%s: cell %d (%s %s c=%d) has %d results for %d servers", file, i, c.Binding, c.Workload, c.Concurrency, len(c.Results), len(r.Servers))
		}
		for j, res := range c.Results {
			if res.Server != r.Servers[j].Name {
				return nil, fmt.Errorf("%s: cell %d (%s %s c=%d): result %d is %q, want %q", file, i, c.Binding, c.Workload, c.Concurrency, j, res.Server, r.Servers[j].Name)
			}
		}
	}
	return &r, nil
}
