// Command metrics measures the hand-written Go code of the module the way the design reviews
// do, so that a change can be judged by the same figures: cyclomatic complexity (gocyclo,
// fetched from the Go module proxy at a pinned version, not a dependency of the module),
// function lengths, and the pairs of places that repeat six or more lines (the `duplicates`
// tool, when it is on PATH). `make metrics` runs it from the repository root; docs/ARCHITECTURE.md
// ("Measures") records its figures.
//
// Hand-written means: a .go file of this module (nested modules such as interop/ are not
// counted), not a test, not under testdata/, and without the "Code generated … DO NOT EDIT."
// line Go tools recognise.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// gocycloModule is the pinned gocyclo: the same version measures every change.
const gocycloModule = "github.com/fzipp/gocyclo/cmd/gocyclo@v0.6.0"

// The thresholds the project holds itself to (issue 28).
const (
	cyclomaticOver = 15
	linesOver      = 100
)

func main() {
	verbose := flag.Bool("v", false, "list every function over the thresholds and every duplicate pair")
	dupSeconds := flag.Int("dup-seconds", 120, "how long `duplicates` may take")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), `Usage: go run ./internal/cmd/metrics [-v] [-dup-seconds N]

Measures the module's hand-written Go code (no tests, no generated files, no nested modules):
gocyclo (%s): functions over %d and the average; functions over %d lines, table literals
apart; duplicate pairs (the duplicates tool, skipped when it is not on PATH).

Examples:
  make metrics
  go run ./internal/cmd/metrics -v     # and name the offenders
`, gocycloModule, cyclomaticOver, linesOver)
	}
	flag.Parse()
	if err := run(*verbose, *dupSeconds); err != nil {
		fmt.Fprintln(os.Stderr, "metrics:", err)
		os.Exit(1)
	}
}

func run(verbose bool, dupSeconds int) error {
	files, err := handWritten(".")
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("no hand-written Go files here: run it from the repository root (make metrics)")
	}
	lines, err := countLines(files)
	if err != nil {
		return err
	}
	cyc, err := cyclomatic(files)
	if err != nil {
		return err
	}
	long, err := longFunctions(files)
	if err != nil {
		return err
	}
	dup, dupErr := duplicatePairs(files, dupSeconds)

	over := cyc.over(cyclomaticOver)
	var tables, plain []function
	for _, f := range long {
		if f.table {
			tables = append(tables, f)
		} else {
			plain = append(plain, f)
		}
	}
	fmt.Printf("hand-written Go: %d files, %d lines, %d functions\n", len(files), lines, len(cyc))
	fmt.Printf("gocyclo average: %.2f\n", cyc.average())
	fmt.Printf("functions over %d cyclomatic: %d\n", cyclomaticOver, len(over))
	fmt.Printf("functions over %d lines: %d (and %d table literals)\n", linesOver, len(plain), len(tables))
	switch {
	case dupErr != nil:
		fmt.Printf("duplicate pairs: not measured (%v)\n", dupErr)
	default:
		fmt.Printf("duplicate pairs: %d (%.1f / kloc)\n", dup.pairs, float64(dup.pairs)*1000/float64(lines))
	}
	if !verbose {
		return nil
	}
	fmt.Printf("\nover %d cyclomatic:\n", cyclomaticOver)
	for _, f := range over {
		fmt.Printf("  %3d %s %s\n", f.complexity, f.name, f.pos)
	}
	fmt.Printf("\nover %d lines:\n", linesOver)
	for _, f := range long {
		kind := ""
		if f.table {
			kind = " (table literal)"
		}
		fmt.Printf("  %4d %s %s%s\n", f.lines, f.name, f.pos, kind)
	}
	if dupErr == nil {
		fmt.Printf("\nduplicate pairs:\n%s", dup.rows)
	}
	return nil
}

// handWritten lists the module's hand-written Go files below root, sorted.
func handWritten(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && skipDir(path):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		generated, err := isGenerated(path)
		if err == nil && !generated {
			files = append(files, path)
		}
		return err
	})
	slices.Sort(files)
	return files, err
}

// skipDir reports whether the directory at path holds no code of the
// module: hidden, testdata, vendor, node_modules, or a nested module.
func skipDir(path string) bool {
	name := filepath.Base(path)
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
		name == "testdata" || name == "vendor" || name == "node_modules" {
		return true
	}
	_, err := os.Stat(filepath.Join(path, "go.mod"))
	return err == nil
}

// generatedLine is Go's convention for generated files (go help generate).
var generatedLine = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// isGenerated reports whether the file carries the generated-code line before its package clause.
func isGenerated(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		line := s.Text()
		if generatedLine.MatchString(line) {
			return true, nil
		}
		if strings.HasPrefix(line, "package ") {
			return false, nil
		}
	}
	return false, s.Err()
}

func countLines(files []string) (int, error) {
	n := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, err
		}
		n += bytes.Count(b, []byte("\n"))
	}
	return n, nil
}

type cycFunc struct {
	complexity int
	name, pos  string
}

type cycList []cycFunc

// cyclomatic runs the pinned gocyclo over the files.
func cyclomatic(files []string) (cycList, error) {
	cmd := exec.Command("go", append([]string{"run", gocycloModule}, files...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	// gocyclo exits 1 only with -over when some function is over it; without -over, an
	// error is a failure to run.
	if err != nil {
		return nil, fmt.Errorf("go run %s: %w", gocycloModule, err)
	}
	var list cycList
	for line := range strings.Lines(string(out)) {
		// "<complexity> <package> <function> <file:row:column>"
		fields := strings.Fields(line)
		if len(fields) != 4 {
			continue
		}
		n, err := strconv.Atoi(fields[0])
		if err != nil {
			continue
		}
		list = append(list, cycFunc{complexity: n, name: fields[1] + "." + fields[2], pos: fields[3]})
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("gocyclo reported no functions")
	}
	return list, nil
}

func (l cycList) average() float64 {
	sum := 0
	for _, f := range l {
		sum += f.complexity
	}
	return float64(sum) / float64(len(l))
}

// over lists the functions above n, most complex first.
func (l cycList) over(n int) cycList {
	var out cycList
	for _, f := range l {
		if f.complexity > n {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b cycFunc) int { return b.complexity - a.complexity })
	return out
}
