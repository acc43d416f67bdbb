package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// printTable writes the results as a Markdown table, preceded by the
// conditions of the run.
func printTable(w io.Writer, cfg config, rows []row) {
	fmt.Fprintf(w, "Machine: %s, %d CPUs (load client and both servers share them); %s %s/%s.\n",
		cpuModel(), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	procs := "Go default"
	if cfg.serverProcs > 0 {
		procs = fmt.Sprint(cfg.serverProcs)
	}
	pause := "none"
	if cfg.chunkInterval > 0 {
		pause = cfg.chunkInterval.String()
	}
	fmt.Fprintf(w, "Each cell: %d round(s) of %v per server after %v warm-up, alternating which server goes first; server GOMAXPROCS %s; pause between stream chunks: %s.\n\n",
		cfg.rounds, cfg.duration, cfg.warmup, procs, pause)
	fmt.Fprintln(w, "| binding | workload | conc | a2agen req/s | a2agen p50 | a2agen p99 | SDK req/s | SDK p50 | SDK p99 | a2agen/SDK |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	var notes []string
	for _, r := range rows {
		ratio := "–"
		if t := r.theirs.perSecond(); t > 0 {
			ratio = fmt.Sprintf("%.2f×", r.ours.perSecond()/t)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.0f | %s | %s | %.0f | %s | %s | %s |\n",
			r.binding, workloadLabel(r.workload), r.concurrency,
			r.ours.perSecond(), fmtDuration(r.ours.quantile(0.5)), fmtDuration(r.ours.quantile(0.99)),
			r.theirs.perSecond(), fmtDuration(r.theirs.quantile(0.5)), fmtDuration(r.theirs.quantile(0.99)),
			ratio)
		for _, side := range []struct {
			name string
			res  result
		}{{"a2agen", r.ours}, {"SDK", r.theirs}} {
			if side.res.errors > 0 {
				notes = append(notes, fmt.Sprintf("- %s %s %s c=%d: %d failed requests (first: %v)",
					side.name, r.binding, r.workload, r.concurrency, side.res.errors, side.res.firstErr))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nFailed requests (not counted above):\n%s\n", strings.Join(notes, "\n"))
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
