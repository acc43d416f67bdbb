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
	fmt.Fprintf(w, "Each cell: %s.\n", settings(cfg))
	fmt.Fprintf(w, "Servers: %s.\n\n", strings.Join(serverDescriptions(cfg), "; "))

	// Throughput and latency.
	head, align := "| binding | workload | conc |", "|---|---|---:|"
	for _, v := range vs {
		head += fmt.Sprintf(" %s req/s | %[1]s p50 | %[1]s p99 |", v.name)
		align += "---:|---:|---:|"
	}
	sdk := len(vs) - 1
	ceiling := slices.IndexFunc(vs, variant.isCeiling)
	stores := len(cfg.stores) // the a2agen variants come first
	for _, v := range vs[:sdk] {
		head += fmt.Sprintf(" %s/SDK |", v.name)
		align += "---:|"
	}
	if ceiling >= 0 {
		for _, v := range vs[:stores] {
			head += fmt.Sprintf(" **%s/ceiling** |", v.name)
			align += "---:|"
		}
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
			line += " " + rateRatio(res, r.results[sdk]) + " |"
		}
		if ceiling >= 0 {
			for _, res := range r.results[:stores] {
				line += " **" + percent(res, r.results[ceiling]) + "** |"
			}
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
	db := cfg.measuresDB()
	fmt.Fprint(w, "\nServer CPU time per request: user+system CPU of the server process during the measured rounds "+
		"(read from /proc/PID/stat in 10 ms ticks; includes its HTTP or gRPC stack, the store and GC) ÷ requests completed.")
	if db {
		fmt.Fprint(w, " postgres DB: the same for the PostgreSQL server processes serving the postgres server's connections "+
			"(its backends, found by application_name; not PostgreSQL's WAL writer, checkpointer and other background processes), "+
			"which share this machine's CPUs; postgres+DB is their sum.")
	}
	fmt.Fprint(w, "\n\n")
	head, align = "| binding | workload | conc |", "|---|---|---:|"
	for _, v := range vs {
		head += fmt.Sprintf(" %s CPU/req |", v.name)
		align += "---:|"
		if db && v.store == "postgres" {
			head += " postgres DB CPU/req | postgres+DB CPU/req |"
			align += "---:|---:|"
		}
	}
	if ceiling >= 0 {
		for _, v := range vs[:stores] {
			head += fmt.Sprintf(" %s/ceiling CPU |", v.name)
			align += "---:|"
		}
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, align)
	for _, r := range rows {
		line := fmt.Sprintf("| %s | %s | %d |", r.binding, workloadLabel(r.workload), r.concurrency)
		for i, res := range r.results {
			line += " " + fmtDuration(res.cpuPerRequest()) + " |"
			if db && vs[i].store == "postgres" {
				line += " " + fmtDuration(res.dbCPUPerRequest()) + " | " + fmtDuration(res.withDB(res.cpuPerRequest())) + " |"
			}
		}
		if ceiling >= 0 {
			for _, res := range r.results[:stores] {
				line += " " + cpuRatio(res, r.results[ceiling]) + " |"
			}
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
	if ceiling >= 0 {
		fmt.Fprintf(w, "The ratio of a store's CPU per event to the ceiling's is the store's column in the CPU table above (`stream 10` rows).\n\n")
	}
	head, align = "| binding | conc |", "|---|---:|"
	for _, v := range vs {
		head += fmt.Sprintf(" %s events/s | %[1]s CPU/event |", v.name)
		align += "---:|---:|"
		if db && v.store == "postgres" {
			head += " postgres+DB CPU/event |"
			align += "---:|"
		}
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, align)
	for _, r := range rows {
		if r.workload != "stream10" {
			continue
		}
		line := fmt.Sprintf("| %s | %d |", r.binding, r.concurrency)
		for i, res := range r.results {
			line += fmt.Sprintf(" %.0f | %s |", res.perSecond()*float64(events), fmtDuration(res.cpuPerRequest()/time.Duration(events)))
			if db && vs[i].store == "postgres" {
				line += " " + fmtDuration(res.withDB(res.cpuPerRequest())/time.Duration(events)) + " |"
			}
		}
		fmt.Fprintln(w, line)
	}
}

// rateRatio is a's request rate over b's, or "–".
func rateRatio(a, b result) string {
	if t := b.perSecond(); t > 0 {
		return fmt.Sprintf("%.2f×", a.perSecond()/t)
	}
	return "–"
}

// cpuRatio is a's CPU time per request over b's, or "–".
func cpuRatio(a, b result) string {
	if x, y := a.cpuPerRequest(), b.cpuPerRequest(); x > 0 && y > 0 {
		return fmt.Sprintf("%.2f×", float64(x)/float64(y))
	}
	return "–"
}

// percent is a's request rate as a percentage of b's, or "–".
func percent(a, b result) string {
	if t := b.perSecond(); t > 0 {
		return fmt.Sprintf("%.0f %%", 100*a.perSecond()/t)
	}
	return "–"
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

// measuresDB reports whether the postgres store's database processes are
// measured: it runs on this machine, under a name the tool gives it.
func (c config) measuresDB() bool {
	return slices.Contains(c.stores, "postgres") && c.postgres != nil && c.postgres.local && c.postgres.appName
}

// withDB is cpu (the server's CPU time per request) plus the database's, or
// 0 when either is unknown.
func (r result) withDB(cpu time.Duration) time.Duration {
	if cpu <= 0 || r.dbCPUPerRequest() <= 0 {
		return 0
	}
	return cpu + r.dbCPUPerRequest()
}

// serverDescriptions says what each server of cfg.variants is, in order:
// "memory = a2agen examples/echo --store memory", ….
func serverDescriptions(cfg config) []string {
	var servers []string
	for _, v := range cfg.variants() {
		switch v.store {
		case "memory":
			servers = append(servers, "memory = a2agen examples/echo --store memory")
		case "sqlite":
			where := cfg.sqliteDir
			if t := fsType(cfg.sqliteDir); t != "" {
				where += ", " + t
			}
			servers = append(servers, "sqlite = examples/echo --store sqlite:FILE, a fresh file per cell in "+where+" (default settings: WAL, synchronous=normal)")
		case "postgres":
			info := ""
			if cfg.postgres != nil {
				info = " (" + cfg.postgres.info + ")"
			}
			servers = append(servers, "postgres = examples/echo --store postgres://…?schema=NAME, a fresh schema per cell on "+pgHost(cfg.postgresURL)+info)
			if cfg.measuresDB() {
				servers[len(servers)-1] += ", on this machine"
			}
		case "":
			if v.isCeiling() {
				servers = append(servers, "ceiling = interop/ceilingpeer: net/http + protojson (gRPC: a hand-written grpc-go service), a completed task built from the message, no store")
			} else {
				servers = append(servers, "SDK = a2a-go interop/sdkpeer, in-memory task store")
			}
		}
	}
	return servers
}

// settings says how each cell is measured.
func settings(cfg config) string {
	procs := "Go default"
	if cfg.serverProcs > 0 {
		procs = fmt.Sprint(cfg.serverProcs)
	}
	pause := "none"
	if cfg.chunkInterval > 0 {
		pause = cfg.chunkInterval.String()
	}
	client := "Go net/http and grpc-go"
	if cfg.client == "wrk" {
		client = "wrk for JSON-RPC and HTTP+JSON, grpc-go for gRPC"
	}
	return fmt.Sprintf("fresh servers; %d round(s) of %v per server after %v warm-up, the servers in turn, their order reversed every other round; server GOMAXPROCS %s; pause between stream chunks: %s; load client %s",
		cfg.rounds, cfg.duration, cfg.warmup, procs, pause, client)
}
