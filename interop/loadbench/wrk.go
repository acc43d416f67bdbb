package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// wrkScript drives wrk (-client wrk): the requests of newHTTPRequest with
// unique message ids, every answer checked, one summary line at the end.
//
//go:embed wrk.lua
var wrkScript []byte

// wrkClient runs Debian's wrk (a C load client, one thread) against the
// HTTP bindings.
type wrkClient struct {
	bin, script string
}

// newWrkClient finds wrk on PATH and writes the script into dir.
func newWrkClient(dir string) (*wrkClient, error) {
	bin, err := exec.LookPath("wrk")
	if err != nil {
		return nil, fmt.Errorf("-client wrk: %w (install it: apt-get install -y wrk)", err)
	}
	script := filepath.Join(dir, "loadbench.lua")
	if err := os.WriteFile(script, wrkScript, 0o644); err != nil {
		return nil, err
	}
	return &wrkClient{bin: bin, script: script}, nil
}

// run loads the server for dur (wrk counts in whole seconds: dur is rounded
// up) with conc connections on one thread.
func (c *wrkClient) run(ctx context.Context, hr httpRequest, w workload, conc int, dur time.Duration) (result, error) {
	secs := max(1, int((dur+time.Second-1)/time.Second))
	accept := "application/json"
	if w.streaming {
		accept = "text/event-stream"
	}
	events := 0
	if w.streaming {
		events = w.events
	}
	cmd := exec.CommandContext(ctx, c.bin, "-t1", "-c"+strconv.Itoa(conc), "-d"+strconv.Itoa(secs)+"s", "--timeout", "30s",
		"-s", c.script, hr.url, "--", hr.prefix, hr.suffix, strconv.Itoa(events), accept)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("wrk: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return parseWrk(out.String())
}

// parseWrk reads the summary line of the script's done().
func parseWrk(out string) (result, error) {
	i := strings.Index(out, "loadbench-wrk ")
	if i < 0 {
		return result{}, fmt.Errorf("wrk printed no summary line:\n%s", out)
	}
	line, _, _ := strings.Cut(out[i+len("loadbench-wrk "):], "\n")
	vals := map[string]string{}
	for _, f := range strings.Fields(line) {
		k, v, _ := strings.Cut(f, "=")
		vals[k] = v
	}
	num := func(k string) (int64, error) {
		n, err := strconv.ParseInt(vals[k], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("wrk summary %q: %s: %w", line, k, err)
		}
		return n, nil
	}
	var n [6]int64
	for j, k := range []string{"requests", "duration_us", "p50_us", "p99_us", "bad", "socket_errors"} {
		v, err := num(k)
		if err != nil {
			return result{}, err
		}
		n[j] = v
	}
	r := result{
		requests:  int(n[0] - n[4]),
		errors:    int(n[4] + n[5]),
		elapsed:   time.Duration(n[1]) * time.Microsecond,
		roundP50s: []time.Duration{time.Duration(n[2]) * time.Microsecond},
		roundP99s: []time.Duration{time.Duration(n[3]) * time.Microsecond},
	}
	if r.errors > 0 {
		r.firstErr = errors.New(strings.ReplaceAll(vals["first_bad"], "_", " "))
		if r.firstErr.Error() == "" {
			r.firstErr = fmt.Errorf("%d socket errors", n[5])
		}
	}
	return r, nil
}

// medianOf is the median of ds (0 when empty).
func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}
