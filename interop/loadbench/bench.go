package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// result is one server's measurement in one cell of the table, possibly
// merged over several rounds.
type result struct {
	requests int
	errors   int
	elapsed  time.Duration
	latency  []time.Duration // sorted
	// roundP50s and roundP99s are the percentiles wrk reported per round
	// (-client wrk, which does not give every latency).
	roundP50s, roundP99s []time.Duration
	firstErr             error
	// cpu is the CPU time (user+system) the server process used while
	// it was measured; cpuUnknown is set when some round could not read it.
	cpu        time.Duration
	cpuUnknown bool
	// dbCPU is the CPU time the PostgreSQL server processes serving the
	// a2agen server's connections used meanwhile (postgres only, when the
	// database runs on this machine); dbKnown is set when every round
	// could read it.
	dbCPU   time.Duration
	dbKnown bool
	dbRuns  int
}

func (r result) perSecond() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.requests) / r.elapsed.Seconds()
}

// quantile is the latency below which a share q of the requests
// completed; with -client wrk (q 0.5 or 0.99) the median over the rounds of
// wrk's percentile.
func (r result) quantile(q float64) time.Duration {
	if len(r.latency) == 0 {
		switch q {
		case 0.5:
			return medianOf(r.roundP50s)
		case 0.99:
			return medianOf(r.roundP99s)
		}
		return 0
	}
	i := int(q * float64(len(r.latency)))
	return r.latency[min(i, len(r.latency)-1)]
}

// cpuPerRequest is the server's CPU time per completed request, or 0 when
// unknown.
func (r result) cpuPerRequest() time.Duration {
	if r.cpuUnknown || r.requests == 0 {
		return 0
	}
	return r.cpu / time.Duration(r.requests)
}

// dbCPUPerRequest is the database's CPU time per completed request, or 0
// when unknown.
func (r result) dbCPUPerRequest() time.Duration {
	if !r.dbKnown || r.requests == 0 {
		return 0
	}
	return r.dbCPU / time.Duration(r.requests)
}

// merge adds b's requests, time and latencies to r.
func (r result) merge(b result) result {
	r.requests += b.requests
	r.errors += b.errors
	r.elapsed += b.elapsed
	r.latency = append(r.latency, b.latency...)
	r.roundP50s = append(r.roundP50s, b.roundP50s...)
	r.roundP99s = append(r.roundP99s, b.roundP99s...)
	slices.Sort(r.latency)
	if r.firstErr == nil {
		r.firstErr = b.firstErr
	}
	r.cpu += b.cpu
	r.cpuUnknown = r.cpuUnknown || b.cpuUnknown
	r.dbCPU += b.dbCPU
	r.dbKnown = (r.dbRuns == 0 || r.dbKnown) && b.dbKnown
	r.dbRuns++
	return r
}

// row is one line of the table: one result per server, in the order of
// config.variants.
type row struct {
	binding, workload string
	concurrency       int
	results           []result
}

// benchCell measures one binding and workload at every concurrency, on
// fresh servers (and a fresh SQLite database and PostgreSQL schema),
// running them in turn in every round and reversing their order every
// other round, so that a drift in the machine's speed weighs on all of
// them alike.
func benchCell(ctx context.Context, cfg config, bins binaries, binding, wl string) (rows []row, err error) {
	var cs cellStores
	if slices.Contains(cfg.stores, "sqlite") {
		if cs.sqliteDir, err = os.MkdirTemp(cfg.sqliteDir, "a2agen-loadbench-db-"); err != nil {
			return nil, fmt.Errorf("-sqlite-dir: %w", err)
		}
		defer os.RemoveAll(cs.sqliteDir) // after the servers have stopped (deferred calls run last first)
	}
	if cfg.postgres != nil {
		var schema string
		if schema, cs.postgresURL, err = cfg.postgres.newSchema(ctx); err != nil {
			return nil, err
		}
		cs.pgAppName = schema
		defer func() { // after the servers have stopped
			if derr := cfg.postgres.dropSchema(schema); derr != nil && err == nil {
				err = derr
			}
		}()
	}
	servers, err := startServers(cfg, bins, cs)
	if err != nil {
		return nil, err
	}
	defer stopAll(servers)

	for _, conc := range cfg.concurrency {
		r := row{binding: binding, workload: wl, concurrency: conc, results: make([]result, len(servers))}
		for round := range cfg.rounds {
			order := make([]int, len(servers))
			for i := range order {
				order[i] = i
			}
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, i := range order {
				s := servers[i]
				res, err := runOnce(ctx, cfg, s, binding, workloads[wl], conc)
				if err != nil {
					return nil, fmt.Errorf("%s %s %s c=%d: %w", s.name, binding, wl, conc, err)
				}
				dbNote := ""
				if res.dbKnown {
					dbNote = "  db cpu/req " + fmtDuration(res.dbCPUPerRequest())
				}
				fmt.Fprintf(os.Stderr, "loadbench: %-8s %-9s %-8s c=%-3d %9.0f req/s  p50 %-8s p99 %-8s cpu/req %-8s errors %d%s\n",
					s.name, binding, wl, conc, res.perSecond(), fmtDuration(res.quantile(0.5)), fmtDuration(res.quantile(0.99)),
					fmtDuration(res.cpuPerRequest()), res.errors, dbNote)
				r.results[i] = r.results[i].merge(res)
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// runOnce warms a server up, then measures it for cfg.duration with conc
// closed-loop workers (each sends its next request when the previous one
// is answered). Requests in flight at the end complete and count; the
// elapsed time runs until the last of them. The server's CPU time is read
// just before and just after the measured load.
func runOnce(ctx context.Context, cfg config, s *server, binding string, w workload, conc int) (result, error) {
	if cfg.wrk != nil && binding != "GRPC" {
		return runWrkOnce(ctx, cfg, s, binding, w, conc)
	}
	d, err := newDriver(binding, w, s.proc.Endpoints, conc)
	if err != nil {
		return result{}, err
	}
	defer d.close()
	if cfg.warmup > 0 {
		if w := load(ctx, d, conc, cfg.warmup); w.requests == 0 && w.firstErr != nil {
			return result{}, fmt.Errorf("warm-up: %w", w.firstErr)
		}
	}
	var db *dbProcs
	if s.store == "postgres" && cfg.postgres != nil {
		db = cfg.postgres.backends(ctx, s.appName)
	}
	db0, dbOK0 := db.cpuTime()
	cpu0, ok0 := cpuTime(s.proc.Pid())
	res := load(ctx, d, conc, cfg.duration)
	cpu1, ok1 := cpuTime(s.proc.Pid())
	db1, dbOK1 := db.cpuTime()
	res.cpu, res.cpuUnknown = cpu1-cpu0, !ok0 || !ok1
	res.dbCPU, res.dbKnown = db1-db0, dbOK0 && dbOK1
	if res.requests == 0 {
		return res, fmt.Errorf("no request succeeded: %v", res.firstErr)
	}
	return res, nil
}

// runWrkOnce is runOnce with wrk as the load client.
func runWrkOnce(ctx context.Context, cfg config, s *server, binding string, w workload, conc int) (result, error) {
	hr := newHTTPRequest(binding, w, s.proc.Endpoints)
	if cfg.warmup > 0 {
		if _, err := cfg.wrk.run(ctx, hr, w, conc, cfg.warmup); err != nil {
			return result{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	cpu0, ok0 := cpuTime(s.proc.Pid())
	res, err := cfg.wrk.run(ctx, hr, w, conc, cfg.duration)
	cpu1, ok1 := cpuTime(s.proc.Pid())
	if err != nil {
		return res, err
	}
	res.cpu, res.cpuUnknown = cpu1-cpu0, !ok0 || !ok1
	if res.requests == 0 {
		return res, fmt.Errorf("no request succeeded: %v", res.firstErr)
	}
	return res, nil
}

// ids makes unique message ids: a random prefix per process and a counter.
var (
	idPrefix  = rand.Text()[:10] + "-"
	idCounter atomic.Uint64
)

func nextID() string { return idPrefix + strconv.FormatUint(idCounter.Add(1), 36) }

func load(ctx context.Context, d driver, conc int, dur time.Duration) result {
	var stop atomic.Bool
	timer := time.AfterFunc(dur, func() { stop.Store(true) })
	defer timer.Stop()

	type worker struct {
		lat      []time.Duration
		errors   int
		firstErr error
	}
	workers := make([]worker, conc)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			w := &workers[i]
			w.lat = make([]time.Duration, 0, 4096)
			for !stop.Load() && ctx.Err() == nil {
				t0 := time.Now()
				rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				err := d.do(rctx, nextID())
				cancel()
				if err != nil {
					w.errors++
					if w.firstErr == nil {
						w.firstErr = err
					}
					continue
				}
				w.lat = append(w.lat, time.Since(t0))
			}
		})
	}
	wg.Wait()
	res := result{elapsed: time.Since(start)}
	for _, w := range workers {
		res.requests += len(w.lat)
		res.errors += w.errors
		res.latency = append(res.latency, w.lat...)
		if res.firstErr == nil {
			res.firstErr = w.firstErr
		}
	}
	slices.Sort(res.latency)
	return res
}
