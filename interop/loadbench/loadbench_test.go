package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2agen/a2agen/interop/internal/benchresult"
)

func TestVariants(t *testing.T) {
	for _, c := range []struct{ stores, want string }{
		{"sqlite,memory", "sqlite,memory,SDK"},
		{"postgres,memory,sqlite", "postgres,memory,sqlite,SDK"},
		{"memory,sqlite,postgres", "memory,sqlite,postgres,SDK"},
		{"postgres", "postgres,SDK"},
	} {
		var names []string
		for _, v := range (config{stores: splitList(c.stores)}).variants() {
			if v.isSDK() != (v.name == "SDK") || !v.isSDK() && v.store != v.name {
				t.Errorf("-stores %s: variant %+v", c.stores, v)
			}
			names = append(names, v.name)
		}
		if got := strings.Join(names, ","); got != c.want {
			t.Errorf("-stores %s: variants = %s, want %s (the stores in -stores order, then the SDK)", c.stores, got, c.want)
		}
	}
	var names []string
	for _, v := range (config{stores: []string{"memory", "sqlite"}, ceiling: true}).variants() {
		if v.isCeiling() != (v.name == "ceiling") || v.isCeiling() && v.isSDK() {
			t.Errorf("-ceiling: variant %+v", v)
		}
		names = append(names, v.name)
	}
	if got, want := strings.Join(names, ","), "memory,sqlite,ceiling,SDK"; got != want {
		t.Errorf("-stores memory,sqlite -ceiling: variants = %s, want %s (the stores, the ceiling, the SDK last)", got, want)
	}
}

func TestPostgresURLs(t *testing.T) {
	for _, c := range []struct {
		in, admin string
		schema    bool
	}{
		{"postgres://u@h:5432/db", "postgres://u@h:5432/db", false},
		{"postgres://u@h/db?sslmode=disable", "postgres://u@h/db?sslmode=disable", false},
		{"postgres://u@h/db?channel=x&sslmode=disable", "postgres://u@h/db?sslmode=disable", false},
		{"postgres://u@h/db?schema=s", "postgres://u@h/db", true},
		{"postgresql://u@h/db?sslmode=disable&sch%65ma=s&application_name=a", "postgresql://u@h/db?sslmode=disable&application_name=a", true},
	} {
		admin, schema, err := adminURL(c.in)
		if err != nil || admin != c.admin || schema != c.schema {
			t.Errorf("adminURL(%s) = %q, %v, %v; want %q, %v", c.in, admin, schema, err, c.admin, c.schema)
		}
	}
	if got, want := withSchema("postgres://u@h/db", "a2agen_x"), "postgres://u@h/db?schema=a2agen_x"; got != want {
		t.Errorf("withSchema = %s, want %s", got, want)
	}
	if got, want := withSchema("postgres://u@h/db?sslmode=disable", "a b"), "postgres://u@h/db?sslmode=disable&schema=a+b"; got != want {
		t.Errorf("withSchema = %s, want %s", got, want)
	}
	if got, want := pgHost("postgres://u:secret@127.0.0.1:5432/test?sslmode=disable"), "127.0.0.1:5432/test"; got != want {
		t.Errorf("pgHost = %s, want %s (no user, password or parameters)", got, want)
	}
}

// TestPostgresWithoutServer checks the errors of a postgres store that
// names no server or one that does not answer.
func TestPostgresWithoutServer(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ url, want string }{
		{"sqlite:/tmp/x.db", "want a URL postgres://"},
		{"postgres://u@127.0.0.1:5432/db?schema=s", "leave out schema="},
		{"postgres://u:secret@127.0.0.1:1/db?connect_timeout=5", "cannot reach the PostgreSQL server"},
	} {
		_, err := openPostgres(ctx, c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("openPostgres(%s) = %v, want an error containing %q", c.url, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("openPostgres(%s): the error shows the password: %v", c.url, err)
		}
	}
}

func TestPrintTable(t *testing.T) {
	cfg := config{rounds: 2, duration: 3 * time.Second, warmup: time.Second / 2, stores: []string{"memory", "sqlite", "postgres"}, sqliteDir: os.TempDir(),
		postgresURL: "postgres://u:secret@db.example:5432/bench?sslmode=disable", postgres: &pgServer{info: "PostgreSQL 15.20, synchronous_commit=on, fsync=on", local: true, appName: true}}
	res := func(n int, cpu time.Duration) result {
		return result{requests: n, elapsed: time.Second, latency: []time.Duration{time.Millisecond, 2 * time.Millisecond}, cpu: cpu}
	}
	withDB := func(r result, db time.Duration) result {
		r.dbCPU, r.dbKnown = db, true
		return r
	}
	rows := []row{
		{binding: "JSONRPC", workload: "hello", concurrency: 16,
			results: []result{res(6000, 600*time.Millisecond), res(3000, 1500*time.Millisecond), withDB(res(2000, 800*time.Millisecond), 1200*time.Millisecond), res(1000, 1200*time.Millisecond)}},
		{binding: "JSONRPC", workload: "stream10", concurrency: 16,
			results: []result{res(2000, 780*time.Millisecond), res(500, 650*time.Millisecond), res(300, 780*time.Millisecond), {requests: 100, elapsed: time.Second, cpuUnknown: true}}},
	}
	var b strings.Builder
	printTable(&b, cfg, rows)
	out := b.String()
	for _, want := range []string{
		"| binding | workload | conc | memory req/s | memory p50 | memory p99 | sqlite req/s | sqlite p50 | sqlite p99 | postgres req/s | postgres p50 | postgres p99 | SDK req/s | SDK p50 | SDK p99 | memory/SDK | sqlite/SDK | postgres/SDK |",
		"| JSONRPC | SendMessage `hello` | 16 | 6000 | 2.00ms | 2.00ms | 3000 | 2.00ms | 2.00ms | 2000 | 2.00ms | 2.00ms | 1000 | 2.00ms | 2.00ms | 6.00× | 3.00× | 2.00× |",
		"| binding | workload | conc | memory CPU/req | sqlite CPU/req | postgres CPU/req | postgres DB CPU/req | postgres+DB CPU/req | SDK CPU/req |",
		"| JSONRPC | SendMessage `hello` | 16 | 100µs | 500µs | 400µs | 600µs | 1.00ms | 1.20ms |",
		"| JSONRPC | stream `stream 10` | 16 | 390µs | 1.30ms | 2.60ms | – | – | – |",
		"| binding | conc | memory events/s | memory CPU/event | sqlite events/s | sqlite CPU/event | postgres events/s | postgres CPU/event | postgres+DB CPU/event | SDK events/s | SDK CPU/event |",
		"| JSONRPC | 16 | 26000 | 30µs | 6500 | 100µs | 3900 | 200µs | – | 1300 | – |",
		"synchronous=normal",
		"postgres = examples/echo --store postgres://…?schema=NAME, a fresh schema per cell on db.example:5432/bench (PostgreSQL 15.20, synchronous_commit=on, fsync=on)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q; got:\n%s", want, out)
		}
	}
	if strings.Contains(out, "secret") {
		t.Errorf("the table shows the PostgreSQL password:\n%s", out)
	}
}

func TestCPUTime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	before, ok := cpuTime(os.Getpid())
	if !ok {
		t.Fatal("cpuTime of this process: not readable")
	}
	// Spin until the process has used CPU time the reading must show (it
	// counts 10 ms ticks): no wall-clock bound, which a busy machine breaks.
	after := before
	for i := 0; i < 1000 && after <= before; i++ {
		for end := time.Now().Add(10 * time.Millisecond); time.Now().Before(end); {
		}
		if after, ok = cpuTime(os.Getpid()); !ok {
			t.Fatal("cpuTime of this process: not readable")
		}
	}
	if after <= before {
		t.Errorf("cpuTime stayed at %v while the process spun for 10 s of wall time", before)
	}
	if _, ok := cpuTime(-1); ok {
		t.Error("cpuTime(-1) reports ok")
	}
}

func TestParseWrk(t *testing.T) {
	out := "Running 1s test @ http://127.0.0.1:1/a2a/rest/message:send\n" +
		"loadbench-wrk requests=120 duration_us=2000000 p50_us=700 p99_us=9000 bad=3 socket_errors=1 first_bad=HTTP_500:_boom\n"
	r, err := parseWrk(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.requests != 117 || r.errors != 4 || r.elapsed != 2*time.Second || r.perSecond() != 58.5 {
		t.Errorf("parseWrk: %d requests, %d errors in %v; want 117 good of 120 (3 bad answers, 1 socket error) in 2s", r.requests, r.errors, r.elapsed)
	}
	if r.quantile(0.5) != 700*time.Microsecond || r.quantile(0.99) != 9*time.Millisecond {
		t.Errorf("parseWrk: p50 %v, p99 %v; want wrk's 700µs and 9ms", r.quantile(0.5), r.quantile(0.99))
	}
	if r.firstErr == nil || r.firstErr.Error() != "HTTP 500: boom" {
		t.Errorf("parseWrk: first error %v, want the script's first bad answer", r.firstErr)
	}
	m := r.merge(result{roundP50s: []time.Duration{time.Millisecond}, roundP99s: []time.Duration{5 * time.Millisecond}})
	m = m.merge(result{roundP50s: []time.Duration{2 * time.Millisecond}, roundP99s: []time.Duration{6 * time.Millisecond}})
	if m.quantile(0.5) != time.Millisecond || m.quantile(0.99) != 6*time.Millisecond {
		t.Errorf("merged rounds: p50 %v, p99 %v; want the medians of the rounds' percentiles, 1ms and 6ms", m.quantile(0.5), m.quantile(0.99))
	}
	if _, err := parseWrk("Running 1s test\n"); err == nil {
		t.Error("parseWrk accepted output without the summary line")
	}
}

// TestRunRecord: -json writes every cell's figures per server, in the
// servers' order, with the machine and a command that reproduces the run
// (without -json), and benchresult.Read reads it back.
func TestRunRecord(t *testing.T) {
	cfg := config{stores: []string{"memory", "sqlite"}, ceiling: true, rounds: 2, duration: 3 * time.Second, warmup: time.Second / 2, client: "wrk", sqliteDir: t.TempDir()}
	lat := []time.Duration{time.Millisecond, 2 * time.Millisecond}
	res := func(n int) result {
		return result{requests: n, elapsed: 2 * time.Second, latency: lat, cpu: time.Duration(n) * 100 * time.Microsecond}
	}
	rows := []row{{binding: "JSONRPC", workload: "stream10", concurrency: 16, results: []result{res(2000), res(1000), res(3000), res(200)}}}
	start := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	file := filepath.Join(t.TempDir(), "run.json")
	args := []string{"-stores", "memory,sqlite", "-json", file, "-bindings=JSONRPC", "-json=x.json", "-echo-args", "--x 'y'"}
	if err := benchresult.Write(file, runRecord(cfg, rows, start, 1.5, 3.2, args)); err != nil {
		t.Fatal(err)
	}
	r, err := benchresult.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := `cd interop && go run ./loadbench -stores memory,sqlite -bindings=JSONRPC -echo-args '--x '\''y'\'''`; r.Command != want {
		t.Errorf("command = %s\nwant      %s", r.Command, want)
	}
	if r.Date != "2026-12-04T06:00:00Z" || r.Machine.CPUs != runtime.NumCPU() || r.Machine.LoadStart != 1.5 || r.Machine.LoadEnd != 3.2 || !strings.Contains(r.Settings, "wrk") {
		t.Errorf("run = %+v", r)
	}
	var names []string
	for _, s := range r.Servers {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "memory,sqlite,ceiling,SDK" || !strings.HasPrefix(r.Servers[1].Description, "sqlite = ") {
		t.Errorf("servers = %s (%+v)", got, r.Servers)
	}
	c := r.Cells[0]
	got := c.Results[0]
	if c.Events != 13 || c.Binding != "JSONRPC" || c.Concurrency != 16 || got.Requests != 2000 || got.ReqPerSec != 1000 || got.P50Ms != 2 || got.P99Ms != 2 || got.CPUPerReqUs != 100 || got.DBCPUPerReqUs != 0 {
		t.Errorf("cell = %+v, memory = %+v", c, got)
	}
}
