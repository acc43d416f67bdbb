package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/a2agen/a2agen/interop/internal/benchresult"
)

// serverColors keep a server's color the same in every chart: a2agen's
// stores in blues and greens, the ceiling grey, the SDK orange.
var serverColors = map[string]string{
	"memory":   "#1f77b4",
	"sqlite":   "#2ca02c",
	"postgres": "#9467bd",
	"ceiling":  "#9e9e9e",
	"SDK":      "#ff7f0e",
}

// serverLabels are the legend's words for the servers.
var serverLabels = map[string]string{
	"memory":   "a2agen, memory store",
	"sqlite":   "a2agen, SQLite store (scaffolded agents' default)",
	"postgres": "a2agen, PostgreSQL store",
	"ceiling":  "ceiling: the wire work alone, no store",
	"SDK":      "official Go SDK, in-memory store",
}

var bindingTitles = map[string]string{"JSONRPC": "JSON-RPC", "HTTP+JSON": "HTTP+JSON", "REST": "HTTP+JSON", "GRPC": "gRPC"}

var workloadTitles = map[string]string{
	"hello":    `SendMessage "hello"`,
	"stream10": `SendStreamingMessage "stream 10" (13 events)`,
}

// loadbenchCharts makes one chart per workload of the run: a group per
// binding and concurrency, a bar per server; one panel of requests per
// second (events per second for streams) and one of p99 latency when the
// run has it.
func loadbenchCharts(r *benchresult.Run) map[string]*chart {
	out := map[string]*chart{}
	var servers []string
	for _, s := range r.Servers {
		servers = append(servers, s.Name)
	}
	var workloads []string
	for _, c := range r.Cells {
		if !slices.Contains(workloads, c.Workload) {
			workloads = append(workloads, c.Workload)
		}
	}
	for _, wl := range workloads {
		ch := &chart{Series: servers, Colors: serverColors, Labels: serverLabels}
		title := workloadTitles[wl]
		if title == "" {
			title = wl
		}
		ch.Title = title + ": " + serversTitle(servers)
		ch.Subtitle = runSubtitle(r)
		rate := panel{Title: "requests per second (higher is better)", Format: count}
		p99 := panel{Title: "p99 latency (lower is better)", Format: millis}
		hasP99 := false
		for _, c := range r.Cells {
			if c.Workload != wl {
				continue
			}
			if c.Events > 0 {
				rate.Title = "events per second (higher is better)"
			}
			ch.Groups = append(ch.Groups, fmt.Sprintf("%s, %d clients", orDefault(bindingTitles[c.Binding], c.Binding), c.Concurrency))
			rv, pv := make([]float64, len(servers)), make([]float64, len(servers))
			for i, res := range c.Results {
				rv[i], pv[i] = known(res.ReqPerSec), known(res.P99Ms)
				if c.Events > 0 {
					rv[i] *= float64(c.Events)
				}
				hasP99 = hasP99 || res.P99Ms > 0
			}
			rate.Values = append(rate.Values, rv)
			p99.Values = append(p99.Values, pv)
		}
		ch.Panels = []panel{rate}
		if hasP99 {
			ch.Panels = append(ch.Panels, p99)
		}
		out[wl] = ch
	}
	return out
}

func runSubtitle(r *benchresult.Run) []string {
	m := r.Machine
	where := fmt.Sprintf("%s, %d CPUs shared by the load client and every server; %s", m.CPU, m.CPUs, m.Go)
	if m.Quiet {
		where += "; no other job on the machine"
	}
	if m.LoadStart > 0 || m.LoadEnd > 0 {
		where += fmt.Sprintf(" (load average %.1f → %.1f)", m.LoadStart, m.LoadEnd)
	}
	date := r.Date
	if t, err := time.Parse(time.RFC3339, r.Date); err == nil {
		date = t.UTC().Format("2006-01-02 15:04 UTC")
	}
	lines := []string{date + ": " + where, "$ " + r.Command}
	if r.Note != "" {
		lines = append(lines, r.Note)
	}
	return lines
}

// known is v, or NaN for 0 (not measured).
func known(v float64) float64 {
	if v == 0 {
		return math.NaN()
	}
	return v
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// count prints a rate with thousands separators: 16,902.
func count(v float64) string {
	n := int64(math.Round(v))
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func millis(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.0f µs", v*1000)
	case v < 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

// serversTitle says what the bars are: "a2agen on memory, sqlite, postgres
// next to the wire-only ceiling and the official Go SDK".
func serversTitle(servers []string) string {
	var ours, others []string
	for _, s := range servers {
		switch s {
		case "ceiling":
			others = append(others, "the wire-only ceiling")
		case "SDK":
			others = append(others, "the official Go SDK")
		default:
			ours = append(ours, s)
		}
	}
	t := "a2agen"
	if len(ours) > 0 {
		t += " on " + strings.Join(ours, ", ")
	}
	if len(others) > 0 {
		t += " next to " + strings.Join(others, " and ")
	}
	return t
}
