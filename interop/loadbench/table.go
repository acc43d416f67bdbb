package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"
)

// printTable writes the results as Markdown tables, preceded by the
// conditions of the run: throughput and latency per server, the servers' CPU
// time per request and, for "stream 10", figures per event.
func printTable(w io.Writer, cfg config, rows []row) {
	vs := cfg.variants()
	fmt.Fprintf(w, "Machine: %s, %d CPUs (load client and all servers share them); %s %s/%s.\n",
		cpuModel(), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	procs := "Go default"
	if cfg.serverProcs > 0 {
		procs = fmt.Sprint(cfg.serverProcs)
	}
	pause := "none"
	if cfg.chunkInterval > 0 {
		pause = cfg.chunkInterval.String()
	}
	fmt.Fprintf(w, "Each cell: fresh servers; %d round(s) of %v per server after %v warm-up, the servers in turn, their order reversed every other round; server GOMAXPROCS %s; pause between stream chunks: %s.\n",
		cfg.rounds, cfg.duration, cfg.warmup, procs, pause)
	var servers []string
	for _, v := range vs {
		switch v.store {
		case "memory":
			servers = append(servers, "memory = a2agen examples/echo --store memory")
		case "sqlite":
			where := cfg.sqliteDir
			if t := fsType(cfg.sqliteDir); t != "" {
				where += ", " + t
			}
			servers = append(servers, "sqlite = examples/echo --store sqlite:FILE, a fresh file per cell in "+where+" (default settings: WAL, synchronous=normal)")
		default:
			servers = append(servers, "SDK = a2a-go interop/sdkpeer, in-memory task store")
		}
	}
	fmt.Fprintf(w, "Servers: %s.\n\n", strings.Join(servers, "; "))

	// Throughput and latency.
	head, align := "| binding | workload | conc |", "|---|---|---:|"
	for _, v := range vs {
		head += fmt.Sprintf(" %s req/s | %[1]s p50 | %[1]s p99 |", v.name)
		align += "---:|---:|---:|"
	}
	sdk := len(vs) - 1
	for _, v := range vs[:sdk] {
		head += fmt.Sprintf(" %s/SDK |", v.name)
		align += "---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, align)
	var notes []string
	for _, r := range rows {
		line := fmt.Sprintf("| %s | %s | %d |", r.binding, workloadLabel(r.workload), r.concurrency)
		for _, res := range r.results {
			line += fmt.Sprintf(" %.0f | %s | %s |", res.perSecond(), fmtDuration(res.quantile(0.5)), fmtDuration(res.quantile(0.99)))
		}
		for _, res := range r.results[:sdk] {
			ratio := "–"
			if t := r.results[sdk].perSecond(); t > 0 {
				ratio = fmt.Sprintf("%.2f×", res.perSecond()/t)
			}
			line += " " + ratio + " |"
		}
		fmt.Fprintln(w, line)
		for i, res := range r.results {
			if res.errors > 0 {
				notes = append(notes, fmt.Sprintf("- %s %s %s c=%d: %d failed requests (first: %v)",
					vs[i].name, r.binding, r.workload, r.concurrency, res.errors, res.firstErr))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nFailed requests (not counted above):\n%s\n", strings.Join(notes, "\n"))
	}

	// CPU per request.
	fmt.Fprint(w, "\nServer CPU time per request: user+system CPU of the server process during the measured rounds "+
		"(read from /proc/PID/stat in 10 ms ticks; includes its HTTP or gRPC stack, the store and GC) ÷ requests completed.\n\n")
	head, align = "| binding | workload | conc |", "|---|---|---:|"
	for _, v := range vs {
		head += fmt.Sprintf(" %s CPU/req |", v.name)
		align += "---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, align)
	for _, r := range rows {
		line := fmt.Sprintf("| %s | %s | %d |", r.binding, workloadLabel(r.workload), r.concurrency)
		for _, res := range r.results {
			line += " " + fmtDuration(res.cpuPerRequest()) + " |"
		}
		fmt.Fprintln(w, line)
	}

	// Per event, for the streaming workload.
	events := workloads["stream10"].events
	if !slices.ContainsFunc(rows, func(r row) bool { return r.workload == "stream10" }) {
		return
	}
	fmt.Fprintf(w, "\n`stream 10` per event (%d events per request): events/s = req/s × %[1]d, each request's events counted when its stream ends; "+
		"CPU/event = server CPU/req ÷ %[1]d.\n\n", events)
	head, align = "| binding | conc |", "|---|---:|"
	for _, v := range vs {
		head += fmt.Sprintf(" %s events/s | %[1]s CPU/event |", v.name)
		align += "---:|---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, align)
	for _, r := range rows {
		if r.workload != "stream10" {
			continue
		}
		line := fmt.Sprintf("| %s | %d |", r.binding, r.concurrency)
		for _, res := range r.results {
			line += fmt.Sprintf(" %.0f | %s |", res.perSecond()*float64(events), fmtDuration(res.cpuPerRequest()/time.Duration(events)))
		}
		fmt.Fprintln(w, line)
	}
}

func workloadLabel(w string) string {
	switch w {
	case "hello":
		return "SendMessage `hello`"
	case "stream10":
		return "stream `stream 10`"
	}
	return w
}

// fmtDuration prints a latency with three significant digits.
func fmtDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < 10*time.Microsecond:
		return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond))
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.0fms", float64(d)/float64(time.Millisecond))
	}
}
