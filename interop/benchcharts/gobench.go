package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// goBench is a file of `go test -bench` output (the Go benchmark format:
// "key: value" configuration lines, then "BenchmarkName-P N value unit …"
// lines; other lines are ignored).
type goBench struct {
	config map[string]string
	keys   []string // config keys in file order
	// results[name][unit] are the values of every line of benchmark name
	// (without its -P suffix), one per -count run.
	results map[string]map[string][]float64
	names   []string // benchmark names in file order
}

func parseGoBench(r io.Reader) (*goBench, error) {
	g := &goBench{config: map[string]string{}, results: map[string]map[string][]float64{}}
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for s.Scan() {
		line++
		text := s.Text()
		if k, v, ok := strings.Cut(text, ":"); ok && k != "" && !strings.HasPrefix(k, "Benchmark") && !strings.ContainsAny(k, " \t") && strings.ToLower(k[:1]) == k[:1] {
			if _, seen := g.config[k]; !seen {
				g.keys = append(g.keys, k)
			}
			g.config[k] = strings.TrimSpace(v)
			continue
		}
		f := strings.Fields(text)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		m := g.results[name]
		if m == nil {
			m = map[string][]float64{}
			g.results[name] = m
			g.names = append(g.names, name)
		}
		for i := 2; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q is not a number", line, f[i])
			}
			m[f[i+1]] = append(m[f[i+1]], v)
		}
	}
	return g, s.Err()
}

// median is the median of the benchmark's values in unit, NaN when it has
// none.
func (g *goBench) median(name, unit string) float64 {
	vs := slices.Clone(g.results[name][unit])
	if len(vs) == 0 {
		return math.NaN()
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// subtitle is the file's date, machine and command lines.
func (g *goBench) subtitle() []string {
	var lines []string
	where := strings.TrimSpace(g.config["cpu"])
	if g.config["goos"] != "" {
		where += fmt.Sprintf(", %s/%s", g.config["goos"], g.config["goarch"])
	}
	if m := g.config["machine"]; m != "" {
		where = m
	}
	if d := g.config["date"]; d != "" {
		where = d + ": " + where
	}
	if where != "" {
		lines = append(lines, where)
	}
	if c := g.config["command"]; c != "" {
		lines = append(lines, "$ "+c)
	}
	if n := g.config["note"]; n != "" {
		lines = append(lines, n)
	}
	return lines
}

// goBenchCharts makes the charts of the benchmarks it knows in g:
// allocations per round trip (BenchmarkSendMessage and
// BenchmarkStreamingMessage of ./server/, allocs/op per binding) and the
// cost of telemetry (BenchmarkTelemetryInterleaved of ./a2a/v1/, each
// setup's <setup>/off-p50 per binding).
func goBenchCharts(g *goBench) map[string]*chart {
	out := map[string]*chart{}
	if ch := allocationsChart(g); ch != nil {
		out["allocations"] = ch
	}
	if ch := telemetryChart(g); ch != nil {
		out["telemetry"] = ch
	}
	return out
}

// subBenchmarks are the bindings (the first path element after prefix) of
// the benchmarks named prefix/<binding>, in file order.
func (g *goBench) subBenchmarks(prefix string) []string {
	var out []string
	for _, n := range g.names {
		rest, ok := strings.CutPrefix(n, prefix+"/")
		if ok && !strings.Contains(rest, "/") && !slices.Contains(out, rest) {
			out = append(out, rest)
		}
	}
	return out
}

func allocationsChart(g *goBench) *chart {
	families := []struct{ bench, series string }{
		{"BenchmarkSendMessage", `SendMessage "hello"`},
		{"BenchmarkStreamingMessage", `SendStreamingMessage "stream 10"`},
	}
	var groups []string
	for _, f := range families {
		for _, b := range g.subBenchmarks(f.bench) {
			if !slices.Contains(groups, b) {
				groups = append(groups, b)
			}
		}
	}
	if len(groups) == 0 {
		return nil
	}
	ch := &chart{Title: "Allocations per round trip: generated client and default server in one process (memory store)", Subtitle: g.subtitle()}
	p := panel{Title: "allocations per call, client and server together (lower is better)", Format: count}
	for _, f := range families {
		ch.Series = append(ch.Series, f.series)
	}
	for _, b := range groups {
		ch.Groups = append(ch.Groups, orDefault(bindingTitles[b], b))
		row := make([]float64, len(families))
		for i, f := range families {
			row[i] = g.median(f.bench+"/"+b, "allocs/op")
		}
		p.Values = append(p.Values, row)
	}
	ch.Panels = []panel{p}
	return ch
}

func telemetryChart(g *goBench) *chart {
	const bench = "BenchmarkTelemetryInterleaved"
	groups := g.subBenchmarks(bench)
	if len(groups) == 0 {
		return nil
	}
	// The setups, in the order of the first binding's metrics.
	var setups []string
	for _, b := range groups {
		units := make([]string, 0, len(g.results[bench+"/"+b]))
		for u := range g.results[bench+"/"+b] {
			units = append(units, u)
		}
		slices.Sort(units)
		for _, u := range units {
			if s, ok := strings.CutSuffix(u, "/off-p50"); ok && !slices.Contains(setups, s) {
				setups = append(setups, s)
			}
		}
	}
	slices.SortStableFunc(setups, func(a, b string) int { return setupRank(a) - setupRank(b) })
	ch := &chart{Title: "What telemetry adds to a SendMessage round trip (generated client and server over loopback)", Subtitle: g.subtitle(), Series: setups, Labels: setupLabels}
	p := panel{Title: "time added to the median round trip, % of the same call without interceptors (lower is better)", Format: func(v float64) string { return fmt.Sprintf("%+.1f %%", v) }}
	for _, b := range groups {
		ch.Groups = append(ch.Groups, orDefault(bindingTitles[b], b))
		row := make([]float64, len(setups))
		for i, s := range setups {
			row[i] = (g.median(bench+"/"+b, s+"/off-p50") - 1) * 100
		}
		p.Values = append(p.Values, row)
	}
	ch.Panels = []panel{p}
	return ch
}

// setupRank orders the telemetry setups as docs/performance.md explains
// them: from nothing to everything, then the floors.
func setupRank(s string) int {
	order := []string{"control", "noop", "chain", "server", "client", "tracing", "synced", "full", "bare"}
	if i := slices.Index(order, s); i >= 0 {
		return i
	}
	return len(order)
}

// setupLabels say what each telemetry setup is (a2a/v1/telemetry_bench_test.go).
var setupLabels = map[string]string{
	"control": "control: no interceptors again (the noise)",
	"noop":    "noop: telemetry linked in, not set up",
	"chain":   "chain: one interceptor doing nothing",
	"server":  "server: only the server traced",
	"client":  "client: only the client traced",
	"tracing": "tracing: both ends traced",
	"synced":  "synced: tracing, spans exported synchronously",
	"full":    "full: tracing and metrics",
	"bare":    "bare: the floor, a minimal OpenTelemetry interceptor",
}
