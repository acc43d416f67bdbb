package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// perfDir holds the recorded results and their committed charts.
const perfDir = "../../docs/perf"

// svgSummary is what a chart's XML says: its root, its bars and its texts.
type svgSummary struct {
	root     xml.StartElement
	title    string
	bars     int
	texts    []string
	barNotes []string // each bar's <title>
}

// parseSVG parses an SVG document as XML, failing the test when it is not
// well-formed.
func parseSVG(t *testing.T, name string, b []byte) svgSummary {
	t.Helper()
	var s svgSummary
	d := xml.NewDecoder(bytes.NewReader(b))
	var stack []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 {
				s.root = tok.Copy()
			}
			if tok.Name.Local == "rect" && attr(tok, "class") == "bar" {
				s.bars++
			}
			stack = append(stack, tok.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			text := strings.TrimSpace(string(tok))
			if text == "" || len(stack) == 0 {
				continue
			}
			switch {
			case stack[len(stack)-1] == "text":
				s.texts = append(s.texts, text)
			case len(stack) == 2 && stack[1] == "title":
				s.title = text
			case stack[len(stack)-1] == "title" && len(stack) > 1 && stack[len(stack)-2] == "rect":
				s.barNotes = append(s.barNotes, text)
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("%s: unclosed elements %v", name, stack)
	}
	return s
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// TestChartsFromRecordedResults draws every recorded result of docs/perf
// (what `make charts` does) and checks each chart: well-formed SVG with a
// size and a title, one bar per recorded figure, the servers or setups in
// its legend, the run's command in its subtitle; and that the committed
// SVG files are exactly what the program draws from the committed results
// (so a chart never shows figures its result file does not hold).
func TestChartsFromRecordedResults(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(perfDir, "*.json"))
	txt, _ := filepath.Glob(filepath.Join(perfDir, "*.txt"))
	files = append(files, txt...)
	if len(files) == 0 {
		t.Fatalf("no recorded results in %s", perfDir)
	}
	out := t.TempDir()
	written, err := drawAll(out, files)
	if err != nil {
		t.Fatal(err)
	}
	stores := []string{serverLabels["memory"], serverLabels["sqlite"], serverLabels["postgres"], serverLabels["ceiling"], serverLabels["SDK"]}
	bindings := []string{serverLabels["memory"], serverLabels["ceiling"], serverLabels["SDK"]}
	want := map[string]struct {
		bars   int
		legend []string
	}{
		"stores-hello.svg":      {10, stores},  // 5 req/s, 5 p99
		"stores-stream10.svg":   {5, stores},   // events/s only: no p99 kept
		"bindings-hello.svg":    {9, bindings}, // req/s of 3 servers on 3 bindings
		"bindings-stream10.svg": {9, bindings},
		"allocations.svg":       {6, []string{`SendMessage "hello"`, `SendStreamingMessage "stream 10"`}},
		"telemetry.svg":         {27, []string{setupLabels["noop"], setupLabels["tracing"], setupLabels["bare"], setupLabels["server"], setupLabels["client"]}},
	}
	seen := map[string]bool{}
	for _, f := range written {
		name := filepath.Base(f)
		seen[name] = true
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := parseSVG(t, name, b)
		if s.root.Name.Local != "svg" || s.root.Name.Space != "http://www.w3.org/2000/svg" {
			t.Errorf("%s: root element %v, want svg in the SVG namespace", name, s.root.Name)
		}
		if !regexp.MustCompile(`^0 0 \d+ \d+$`).MatchString(attr(s.root, "viewBox")) || attr(s.root, "width") == "" || attr(s.root, "height") == "" {
			t.Errorf("%s: width %q height %q viewBox %q", name, attr(s.root, "width"), attr(s.root, "height"), attr(s.root, "viewBox"))
		}
		if s.title == "" {
			t.Errorf("%s: no <title>", name)
		}
		if !slicesContainsPrefix(s.texts, "$ ") {
			t.Errorf("%s: no command line in the subtitle: %q", name, s.texts)
		}
		w, ok := want[name]
		if !ok {
			t.Errorf("unexpected chart %s", name)
			continue
		}
		if s.bars != w.bars || len(s.barNotes) != w.bars {
			t.Errorf("%s: %d bars (%d with a title), want %d", name, s.bars, len(s.barNotes), w.bars)
		}
		for _, l := range w.legend {
			if !contains(s.texts, l) {
				t.Errorf("%s: legend lacks %q: %q", name, l, s.texts)
			}
		}
		committed, err := os.ReadFile(filepath.Join(perfDir, name))
		if err != nil {
			t.Errorf("%s is not committed in docs/perf (run make charts): %v", name, err)
		} else if !bytes.Equal(committed, b) {
			t.Errorf("docs/perf/%s differs from what its result file draws: run make charts", name)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("no %s drawn", name)
		}
	}
	report, err := os.ReadFile("../../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range seen {
		if !strings.Contains(string(report), "](perf/"+name+")") {
			t.Errorf("docs/performance.md does not show perf/%s", name)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "](docs/perf/stores-hello.svg)") {
		t.Error("README.md does not show the main chart, docs/perf/stores-hello.svg")
	}
}

// TestHeadlineFigures: the main chart (README) shows the figures of its
// result file: SendMessage "hello" on SQLite and on the SDK, req/s and p99.
func TestHeadlineFigures(t *testing.T) {
	written, err := drawAll(t.TempDir(), []string{filepath.Join(perfDir, "stores.json")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range written {
		if filepath.Base(f) != "stores-hello.svg" {
			continue
		}
		b, _ := os.ReadFile(f)
		s := parseSVG(t, "stores-hello.svg", b)
		for _, note := range []string{"JSON-RPC, 16 clients, sqlite: 6,169", "JSON-RPC, 16 clients, SDK: 1,291", "JSON-RPC, 16 clients, sqlite: 11 ms", "JSON-RPC, 16 clients, SDK: 40 ms"} {
			if !contains(s.barNotes, note) {
				t.Errorf("stores-hello.svg lacks the bar %q: %q", note, s.barNotes)
			}
		}
		return
	}
	t.Fatalf("stores.json drew no stores-hello.svg: %v", written)
}

// TestGoBenchFormat: -count runs are drawn as their median, the -P suffix
// is dropped, configuration lines become the subtitle and other lines are
// ignored.
func TestGoBenchFormat(t *testing.T) {
	in := `date: today
command: go test -bench X
goos: linux
goarch: amd64
pkg: github.com/a2agen/a2agen/server
cpu: AMD EPYC
BenchmarkSendMessage/JSONRPC-2   2000   70000 ns/op   9000 B/op   147 allocs/op
BenchmarkSendMessage/JSONRPC-2   2000   71000 ns/op   9000 B/op   149 allocs/op
BenchmarkSendMessage/JSONRPC-2   2000   72000 ns/op   9000 B/op   150 allocs/op
BenchmarkSendMessage/JSONRPC/parallel-2   2000   30000 ns/op   9000 B/op   999 allocs/op
PASS
ok  	github.com/a2agen/a2agen/server	3.1s
`
	g, err := parseGoBench(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if m := g.median("BenchmarkSendMessage/JSONRPC", "allocs/op"); m != 149 {
		t.Errorf("median allocs/op = %v, want 149", m)
	}
	ch := goBenchCharts(g)["allocations"]
	if ch == nil || len(ch.Groups) != 1 || ch.Groups[0] != "JSON-RPC" {
		t.Fatalf("allocations chart %+v, want one group, JSON-RPC (parallel left out)", ch)
	}
	if got := strings.Join(ch.Subtitle, "|"); got != "today: AMD EPYC, linux/amd64|$ go test -bench X" {
		t.Errorf("subtitle %q", got)
	}
	if _, err := parseGoBench(strings.NewReader("BenchmarkX-2 10 abc ns/op\n")); err == nil {
		t.Error("a value that is not a number was accepted")
	}
	if _, err := drawAll(t.TempDir(), []string{writeTemp(t, "empty.txt", "PASS\n")}); err == nil {
		t.Error("a file with no benchmark the program draws gave no error")
	}
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func slicesContainsPrefix(list []string, prefix string) bool {
	for _, x := range list {
		if strings.HasPrefix(x, prefix) {
			return true
		}
	}
	return false
}

// TestMakeCharts: `make charts` runs this program on every result file of
// docs/perf, the files TestChartsFromRecordedResults draws.
func TestMakeCharts(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(mk), "\ncharts:")
	recipe, _, _ := strings.Cut(rest, "\n\n")
	if want := "\n\tcd interop && $(GO) run ./benchcharts -out ../docs/perf ../docs/perf/*.json ../docs/perf/*.txt"; !ok || !strings.Contains(recipe, want) {
		t.Errorf("the Makefile's charts target is not %q:\ncharts:%s", want, recipe)
	}
}
