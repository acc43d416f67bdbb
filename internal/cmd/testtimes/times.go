package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// event is the part of a test2json event (go test -json) that timing needs.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// timing is how long one test or package took, and how it ended.
type timing struct {
	Package string
	Test    string // "" for a package
	Seconds float64
	Action  string // pass, fail or skip
}

// times holds the timings of one or more go test -json streams.
type times struct {
	tests    []timing
	packages []timing
}

// read adds the end events of r, a go test -json stream: one timing per
// top-level test (a test's time includes its subtests', so subtests are
// not counted twice) and per package. Lines that are not JSON objects (a
// build's own output when go test runs without -json's build events) are
// skipped.
func (ts *times) read(r io.Reader) error {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	line := 0
	for s.Scan() {
		line++
		b := bytes.TrimSpace(s.Bytes())
		if len(b) == 0 || b[0] != '{' {
			continue
		}
		var e event
		if err := json.Unmarshal(b, &e); err != nil {
			return fmt.Errorf("line %d: %w (want the output of go test -json)", line, err)
		}
		switch e.Action {
		case "pass", "fail", "skip":
		default:
			continue
		}
		t := timing{Package: e.Package, Test: e.Test, Seconds: e.Elapsed, Action: e.Action}
		switch {
		case e.Test == "":
			ts.packages = append(ts.packages, t)
		case !strings.Contains(e.Test, "/"):
			ts.tests = append(ts.tests, t)
		}
	}
	return s.Err()
}

// slowest returns the n longest of list (all of them when n <= 0), longest
// first; equal times are ordered by package and name so the output is
// stable.
func slowest(list []timing, n int) []timing {
	list = slices.Clone(list)
	slices.SortFunc(list, func(a, b timing) int {
		if c := cmp.Compare(b.Seconds, a.Seconds); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Test, b.Test))
	})
	if n > 0 && len(list) > n {
		list = list[:n]
	}
	return list
}

// sum is the total of the seconds of list.
func sum(list []timing) float64 {
	var s float64
	for _, t := range list {
		s += t.Seconds
	}
	return s
}

// report writes the n slowest tests and packages of ts to w, with the
// package paths shortened by trimming prefix.
func (ts *times) report(w io.Writer, n int, prefix string) error {
	short := func(p string) string {
		if s, ok := strings.CutPrefix(p, prefix); ok && s != "" {
			return strings.TrimPrefix(s, "/")
		}
		if p == prefix {
			return "."
		}
		return p
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d top-level tests, %.1fs in all; %d packages, %.1fs in all (packages run in parallel: the wall time is less)\n",
		len(ts.tests), sum(ts.tests), len(ts.packages), sum(ts.packages))
	fmt.Fprintf(bw, "\nslowest tests:\n")
	for i, t := range slowest(ts.tests, n) {
		fmt.Fprintf(bw, "%3d %8.2fs  %s %s%s\n", i+1, t.Seconds, short(t.Package), t.Test, mark(t.Action))
	}
	fmt.Fprintf(bw, "\nslowest packages:\n")
	for i, t := range slowest(ts.packages, n) {
		fmt.Fprintf(bw, "%3d %8.2fs  %s%s\n", i+1, t.Seconds, short(t.Package), mark(t.Action))
	}
	return bw.Flush()
}

// mark says how a test ended when it did not pass.
func mark(action string) string {
	if action == "pass" {
		return ""
	}
	return " (" + action + ")"
}
