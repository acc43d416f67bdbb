package storeurl

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// documentedURL finds the store URLs the docs write: in backquotes, after
// -store / --store, and after A2A_STORE=.
var documentedURL = regexp.MustCompile("(?:`|-store[ =]'?|A2A_STORE=)((?:memory|sqlite:|postgres://|postgresql://)[^`'\\s|),;]*)")

// TestDocumentedStoreURLs: every store URL README.md and docs/*.md write is
// one Open accepts (parsed, not opened), except those the text says are
// refused, which Open refuses; placeholders written with "…" are skipped.
// Each form of Forms (memory, sqlite:, postgres://, postgresql://) is
// documented.
func TestDocumentedStoreURLs(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	seen := map[string]bool{}
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			for _, m := range documentedURL.FindAllStringSubmatch(line, -1) {
				u := strings.TrimRight(m[1], ".:")
				if strings.Contains(u, "…") {
					continue
				}
				scheme, _, _ := strings.Cut(u, ":")
				seen[scheme] = true
				_, err := parse(u)
				refused := strings.Contains(line, u+"` is refused")
				switch {
				case refused && err == nil:
					t.Errorf("%s:%d says %s is refused, but it parses", filepath.Base(f), n+1, u)
				case !refused && err != nil:
					t.Errorf("%s:%d names the store URL %s, which is refused: %v", filepath.Base(f), n+1, u, err)
				}
				checked++
			}
		}
	}
	if checked < 10 {
		t.Fatalf("found only %d store URLs in the docs; is the pattern still right?", checked)
	}
	for _, scheme := range []string{"memory", "sqlite", "postgres", "postgresql"} {
		if !seen[scheme] {
			t.Errorf("no document names a %s store URL (storeurl.Forms accepts it)", scheme)
		}
		if !strings.Contains(Forms, scheme) {
			t.Errorf("storeurl.Forms does not name %s", scheme)
		}
	}
}
