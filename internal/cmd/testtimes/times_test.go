package main

import (
	"bytes"
	"strings"
	"testing"
)

// stream is a go test -json run of two packages: a slow test with a
// subtest, a failed one, a skipped one, and a line of build output.
const stream = `{"Action":"run","Package":"github.com/a2agen/a2agen/server","Test":"TestSlow"}
{"Action":"pass","Package":"github.com/a2agen/a2agen/server","Test":"TestSlow/sub","Elapsed":2.5}
{"Action":"pass","Package":"github.com/a2agen/a2agen/server","Test":"TestSlow","Elapsed":3}
{"Action":"fail","Package":"github.com/a2agen/a2agen/server","Test":"TestBroken","Elapsed":0.25}
{"Action":"pass","Package":"github.com/a2agen/a2agen/server","Elapsed":3.5}
# github.com/a2agen/a2agen/host
{"Action":"skip","Package":"github.com/a2agen/a2agen/host","Test":"TestNeedsPostgres","Elapsed":0}
{"Action":"pass","Package":"github.com/a2agen/a2agen/host","Test":"TestQuick","Elapsed":1}
{"Action":"pass","Package":"github.com/a2agen/a2agen","Elapsed":1.25}
`

// TestReportListsSlowestTopLevelTests: tests are ranked by their own time,
// subtests are not counted a second time, failures and skips say so, and
// the totals add the top-level tests and packages.
func TestReportListsSlowestTopLevelTests(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-top", "2"}, strings.NewReader(stream), &out); err != nil {
		t.Fatal(err)
	}
	want := `4 top-level tests, 4.2s in all; 2 packages, 4.8s in all (packages run in parallel: the wall time is less)

slowest tests:
  1     3.00s  server TestSlow
  2     1.00s  host TestQuick

slowest packages:
  1     3.50s  server
  2     1.25s  .
`
	if out.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	if err := run([]string{"-top", "0"}, strings.NewReader(stream), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  3     0.25s  server TestBroken (fail)\n", "  4     0.00s  host TestNeedsPostgres (skip)\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-top 0 lacks %q:\n%s", want, out.String())
		}
	}
}

// TestBadInputSaysWhatItWants: a line that starts like JSON but is not
// names its line and what the tool reads.
func TestBadInputSaysWhatItWants(t *testing.T) {
	err := run(nil, strings.NewReader("{\"Action\":\"pass\"}\n{oops\n"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "go test -json") {
		t.Errorf("run on bad input: %v, want an error naming line 2 and go test -json", err)
	}
}
