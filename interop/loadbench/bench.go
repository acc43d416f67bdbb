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
	firstErr error
}

func (r result) perSecond() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.requests) / r.elapsed.Seconds()
}

func (r result) quantile(q float64) time.Duration {
	if len(r.latency) == 0 {
		return 0
	}
	i := int(q * float64(len(r.latency)))
	return r.latency[min(i, len(r.latency)-1)]
}

// merge adds b's requests, time and latencies to r.
func (r result) merge(b result) result {
	r.requests += b.requests
	r.errors += b.errors
	r.elapsed += b.elapsed
	r.latency = append(r.latency, b.latency...)
	slices.Sort(r.latency)
	if r.firstErr == nil {
		r.firstErr = b.firstErr
	}
	return r
}

// row is one line of the table.
type row struct {
	binding, workload string
	concurrency       int
	ours, theirs      result
}

// benchCell measures one binding and workload at every concurrency, on a
// fresh pair of servers, alternating which server goes first.
func benchCell(ctx context.Context, cfg config, bins binaries, binding, wl string) ([]row, error) {
	ours, theirs, err := startBoth(cfg, bins)
	if err != nil {
		return nil, err
	}
	defer ours.stop()
	defer theirs.stop()

	var rows []row
	for _, conc := range cfg.concurrency {
		r := row{binding: binding, workload: wl, concurrency: conc}
		for round := range cfg.rounds {
			order := []*server{ours, theirs}
			if round%2 == 1 {
				order = []*server{theirs, ours}
			}
			for _, s := range order {
				res, err := runOnce(ctx, cfg, s, binding, workloads[wl], conc)
				if err != nil {
					return nil, fmt.Errorf("%s %s %s c=%d: %w", s.label, binding, wl, conc, err)
				}
				fmt.Fprintf(os.Stderr, "loadbench: %-6s %-9s %-8s c=%-3d %9.0f req/s  p50 %-8s p99 %-8s errors %d\n",
					s.label, binding, wl, conc, res.perSecond(), fmtDuration(res.quantile(0.5)), fmtDuration(res.quantile(0.99)), res.errors)
				if s == ours {
					r.ours = r.ours.merge(res)
				} else {
					r.theirs = r.theirs.merge(res)
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// runOnce warms a server up, then measures it for cfg.duration with conc
// closed-loop workers (each sends its next request when the previous one
// is answered). Requests in flight at the end complete and count; the
// elapsed time runs until the last of them.
func runOnce(ctx context.Context, cfg config, s *server, binding string, w workload, conc int) (result, error) {
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
	res := load(ctx, d, conc, cfg.duration)
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
