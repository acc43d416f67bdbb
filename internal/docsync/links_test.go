package docsync_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches the target of a Markdown link or image: ](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// anchors are the heading anchors of a Markdown file as GitHub makes them:
// lower case, punctuation dropped, spaces as hyphens, "-1", "-2" … added
// to repeated ones. Headings inside fenced code blocks do not count.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := count[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		count[slug]++
	}
	return out
}

// TestDocLinksResolve: every relative link of README.md, CONTRIBUTING.md and docs/ (files,
// and #anchors of Markdown files) leads somewhere in the repository. A doc
// moved, renamed or re-headed fails here until its links follow.
func TestDocLinksResolve(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	ext, _ := filepath.Glob(filepath.Join(root, "docs", "extensions", "*.md"))
	files = append(append(files, ext...), filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"))
	cache := map[string]map[string]bool{}
	anchorsOf := func(file string) (map[string]bool, error) {
		if a, ok := cache[file]; ok {
			return a, nil
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		cache[file] = anchors(string(b))
		return cache[file], nil
	}
	links := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for n, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				where := fmt.Sprintf("%s:%d", strings.TrimPrefix(f, root+"/"), n+1)
				path, anchor, _ := strings.Cut(target, "#")
				file := f
				if path != "" {
					file = filepath.Join(filepath.Dir(f), path)
					if _, err := os.Stat(file); err != nil {
						t.Errorf("%s links to %s, which does not exist", where, target)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(file, ".md") {
					continue
				}
				a, err := anchorsOf(file)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if !a[anchor] {
					t.Errorf("%s links to %s: %s has no heading with the anchor #%s", where, target, filepath.Base(file), anchor)
				}
			}
		}
	}
	if links < 30 {
		t.Fatalf("found %d relative links; is the pattern still right?", links)
	}
}
