package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/a2agen/a2agen/interop/internal/benchresult"
)

// runRecord is the run in benchresult's form (-json FILE): its start, the
// command that reproduces it, the machine and every cell's figures.
func runRecord(cfg config, rows []row, start time.Time, loadStart, loadEnd float64, args []string) *benchresult.Run {
	r := &benchresult.Run{
		Date:    start.UTC().Format(time.RFC3339),
		Command: command(args),
		Machine: benchresult.Machine{
			CPU:       cpuModel(),
			CPUs:      runtime.NumCPU(),
			Go:        runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
			LoadStart: loadStart,
			LoadEnd:   loadEnd,
		},
		Settings: settings(cfg),
	}
	descs := serverDescriptions(cfg)
	for i, v := range cfg.variants() {
		s := benchresult.Server{Name: v.name}
		if i < len(descs) {
			s.Description = descs[i]
		}
		r.Servers = append(r.Servers, s)
	}
	for _, row := range rows {
		c := benchresult.Cell{Binding: row.binding, Workload: row.workload, Concurrency: row.concurrency, Events: workloads[row.workload].events}
		for i, res := range row.results {
			c.Results = append(c.Results, benchresult.Result{
				Server:         r.Servers[i].Name,
				Requests:       res.requests,
				Errors:         res.errors,
				ElapsedSeconds: res.elapsed.Seconds(),
				ReqPerSec:      res.perSecond(),
				P50Ms:          ms(res.quantile(0.5)),
				P99Ms:          ms(res.quantile(0.99)),
				CPUPerReqUs:    us(res.cpuPerRequest()),
				DBCPUPerReqUs:  us(res.dbCPUPerRequest()),
			})
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}

// command is the command line that reproduces the run from the repository's
// root: cd interop && go run ./loadbench with the flags given (-json left
// out), each quoted for a POSIX shell when it needs to be.
func command(args []string) string {
	parts := []string{"cd interop && go run ./loadbench"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && name == "json" {
			if !hasValue {
				i++ // its value
			}
			continue
		}
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./,:=+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// loadAverage is the 1-minute load average of /proc/loadavg, or 0.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _, _ := strings.Cut(string(b), " ")
	v, _ := strconv.ParseFloat(f, 64)
	return v
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }
func us(d time.Duration) float64 { return round3(float64(d) / float64(time.Microsecond)) }

// round3 keeps three decimals: more would be noise in the file.
func round3(v float64) float64 {
	f, _ := strconv.ParseFloat(fmt.Sprintf("%.3f", v), 64)
	return f
}
