package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

type duplicates struct {
	pairs int
	rows  string
}

// pairsLine is the first line `duplicates` prints: "N pairs of places (M files read), …" or
// "no duplicates …".
var pairsLine = regexp.MustCompile(`^(\d+) pairs? of places`)

// duplicatePairs copies the files into a scratch directory (so that tests and generated files
// are not read) and counts the pairs the `duplicates` tool finds there.
func duplicatePairs(files []string, seconds int) (duplicates, error) {
	if _, err := exec.LookPath("duplicates"); err != nil {
		return duplicates{}, errors.New("the duplicates tool is not on PATH")
	}
	dir, err := os.MkdirTemp("", "a2agen-metrics-")
	if err != nil {
		return duplicates{}, err
	}
	defer os.RemoveAll(dir)
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			return duplicates{}, err
		}
		dst := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return duplicates{}, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return duplicates{}, err
		}
	}
	out, err := exec.Command("duplicates", "--repo", dir, "--most", "200", "--seconds", strconv.Itoa(seconds)).Output()
	if err != nil {
		return duplicates{}, fmt.Errorf("duplicates: %w", err)
	}
	text := string(out)
	if strings.Contains(text, "\nincomplete:") || strings.HasPrefix(text, "incomplete:") {
		return duplicates{}, fmt.Errorf("duplicates did not finish: %s", strings.TrimSpace(text[strings.Index(text, "incomplete:"):]))
	}
	first, _, _ := strings.Cut(text, "\n")
	if strings.HasPrefix(first, "no duplicates") {
		return duplicates{rows: text}, nil
	}
	m := pairsLine.FindStringSubmatch(first)
	if m == nil {
		return duplicates{}, fmt.Errorf("duplicates answered %q", first)
	}
	n, _ := strconv.Atoi(m[1])
	return duplicates{pairs: n, rows: text}, nil
}
