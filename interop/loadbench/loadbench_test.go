package main

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestVariants(t *testing.T) {
	var names []string
	for _, v := range (config{stores: []string{"sqlite", "memory"}}).variants() {
		names = append(names, v.name)
	}
	if got := strings.Join(names, ","); got != "sqlite,memory,SDK" {
		t.Errorf("variants = %s, want sqlite,memory,SDK (the stores in -stores order, then the SDK)", got)
	}
}

func TestPrintTable(t *testing.T) {
	cfg := config{rounds: 2, duration: 3 * time.Second, warmup: time.Second / 2, stores: []string{"memory", "sqlite"}, sqliteDir: os.TempDir()}
	res := func(n int, cpu time.Duration) result {
		return result{requests: n, elapsed: time.Second, latency: []time.Duration{time.Millisecond, 2 * time.Millisecond}, cpu: cpu}
	}
	rows := []row{
		{binding: "JSONRPC", workload: "hello", concurrency: 16,
			results: []result{res(6000, 600*time.Millisecond), res(3000, 1500*time.Millisecond), res(1000, 1200*time.Millisecond)}},
		{binding: "JSONRPC", workload: "stream10", concurrency: 16,
			results: []result{res(2000, 780*time.Millisecond), res(500, 650*time.Millisecond), {requests: 100, elapsed: time.Second, cpuUnknown: true}}},
	}
	var b strings.Builder
	printTable(&b, cfg, rows)
	out := b.String()
	for _, want := range []string{
		"| binding | workload | conc | memory req/s | memory p50 | memory p99 | sqlite req/s | sqlite p50 | sqlite p99 | SDK req/s | SDK p50 | SDK p99 | memory/SDK | sqlite/SDK |",
		"| JSONRPC | SendMessage `hello` | 16 | 6000 | 2.00ms | 2.00ms | 3000 | 2.00ms | 2.00ms | 1000 | 2.00ms | 2.00ms | 6.00× | 3.00× |",
		"| binding | workload | conc | memory CPU/req | sqlite CPU/req | SDK CPU/req |",
		"| JSONRPC | SendMessage `hello` | 16 | 100µs | 500µs | 1.20ms |",
		"| JSONRPC | stream `stream 10` | 16 | 390µs | 1.30ms | – |",
		"| JSONRPC | 16 | 26000 | 30µs | 6500 | 100µs | 1300 | – |",
		"synchronous=normal",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q; got:\n%s", want, out)
		}
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
