package runtime

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/internal/pathtemplate"
)

// Templates of the A2A proto as generated code carries them, and the other
// shapes the generator accepts.
const (
	patCancel       = "/tasks/{id=*}:cancel"
	patSubscribe    = "/tasks/{id=*}:subscribe"
	patGetTask      = "/tasks/{id=*}"
	patTenantTasks  = "/{tenant}/tasks"
	patTenantCancel = "/{tenant}/tasks/{id=*}:cancel"
	patSend         = "/message:send"
	patTenantSend   = "/{tenant}/message:send"
	patPushConfig   = "/tasks/{task_id=*}/pushNotificationConfigs/{id=*}"
	patFolder       = "/folders/{folder=folders/*}/notes:watch"
	patDeep         = "/v2/tools/{name=**}"
)

func mustCompile(t testing.TB, path string) *pathMatcher {
	t.Helper()
	m, err := compilePath(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPathMatch(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    []string // captured values; nil for no match
	}{
		{patCancel, "/tasks/abc:cancel", []string{"abc"}},
		{patCancel, "/tasks/a:b:cancel", []string{"a:b"}},
		{patCancel, "/tasks/abc%3Acancel", []string{"abc"}},
		{patCancel, "/tasks/:cancel", nil},
		{patCancel, "/tasks/abc", nil},
		{patCancel, "/tasks/abc:subscribe", nil},
		{patCancel, "/tasks/abc/x:cancel", nil},
		{patGetTask, "/tasks/abc", []string{"abc"}},
		{patGetTask, "/tasks/a%2Fb", []string{"a/b"}},
		{patGetTask, "/tasks/urn:uuid:1", []string{"urn:uuid:1"}},
		{patGetTask, "/tasks/", nil},
		{patGetTask, "/tasks", nil},
		{patGetTask, "/tasks/a/b", nil},
		{patGetTask, "/TASKS/a", nil},
		{patTenantCancel, "/acme/tasks/t-1:cancel", []string{"acme", "t-1"}},
		{patTenantCancel, "/acme%20corp/tasks/t-1:cancel", []string{"acme corp", "t-1"}},
		{patSend, "/message:send", []string{}},
		{patSend, "/message%3Asend", []string{}},
		{patSend, "/message:sendx", nil},
		{patSend, "/messages:send", nil},
		{patTenantSend, "/t/message:send", []string{"t"}},
		{patPushConfig, "/tasks/t/pushNotificationConfigs/c", []string{"t", "c"}},
		{patFolder, "/folders/folders/f1/notes:watch", []string{"folders/f1"}},
		{patFolder, "/folders/other/f1/notes:watch", nil},
		{patDeep, "/v2/tools/a/b/c", []string{"a/b/c"}},
		{patDeep, "/v2/tools/a", []string{"a"}},
		{patDeep, "/v2/tools", []string{""}},
		{patDeep, "/v2/other/a", nil},
	}
	for _, tt := range tests {
		m := mustCompile(t, tt.pattern)
		segs, err := splitPath(tt.path, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		ok := m.matches(segs)
		if ok != (tt.want != nil) {
			t.Errorf("%s on %s: matches = %v, want %v", tt.pattern, tt.path, ok, tt.want != nil)
			continue
		}
		if !ok {
			continue
		}
		if got := m.capture(segs, nil); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("%s on %s: captured %q, want %q", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestPathSpecificity pins the routing order: the verb-bearing pattern wins
// over a plain variable that would swallow the verb, and literals beat
// wildcards from the left.
func TestPathSpecificity(t *testing.T) {
	ms := []*pathMatcher{mustCompile(t, patGetTask), mustCompile(t, patTenantTasks), mustCompile(t, patTenantSend), mustCompile(t, patCancel), mustCompile(t, patDeep)}
	slices.SortStableFunc(ms, func(a, b *pathMatcher) int {
		switch {
		case a.moreSpecific(b):
			return -1
		case b.moreSpecific(a):
			return 1
		}
		return 0
	})
	var got []string
	for _, m := range ms {
		got = append(got, m.tmpl.String())
	}
	want := []string{"/tasks/{id=*}:cancel", "/{tenant=*}/message:send", "/tasks/{id=*}", "/{tenant=*}/tasks", "/v2/tools/{name=**}"}
	if !slices.Equal(got, want) {
		t.Errorf("order = %q\nwant    %q", got, want)
	}
}

// A hand-written rule whose template does not parse is refused with the
// parser's error, the one protoc-gen-a2a reports.
func TestCompilePathRejectsBadTemplates(t *testing.T) {
	for _, p := range []string{"", "tasks", "/**/x", "/", "/a:b/c", "/a/{id", "/a%zz", "/{a}/{a}"} {
		_, err := compilePath(p)
		var te *pathtemplate.Error
		if !errors.As(err, &te) {
			t.Errorf("compilePath(%q) = %v, want a *pathtemplate.Error", p, err)
		}
	}
}

func TestBuildPath(t *testing.T) {
	tests := []struct {
		pattern string
		values  []string
		want    string // "" for an error
	}{
		{patTenantCancel, []string{"acme", "t-1"}, "/acme/tasks/t-1:cancel"},
		{patTenantCancel, []string{"a b", "x/y"}, "/a%20b/tasks/x%2Fy:cancel"},
		{patCancel, []string{"a:b"}, "/tasks/a:b:cancel"},
		{patCancel, []string{""}, ""},
		{patSend, nil, "/message:send"},
		{patFolder, []string{"folders/f 1"}, "/folders/folders/f%201/notes:watch"},
		{patFolder, []string{"other/f1"}, ""},
		{patFolder, []string{"folders"}, ""},
		{patDeep, []string{"a/b"}, "/v2/tools/a/b"},
		{patDeep, []string{""}, "/v2/tools"},
	}
	for _, tt := range tests {
		got, err := mustCompile(t, tt.pattern).buildPath(nil, tt.values)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s with %q: built %s, want an error", tt.pattern, tt.values, got)
		case tt.want != "" && (err != nil || string(got) != tt.want):
			t.Errorf("%s with %q: %s, %v; want %s", tt.pattern, tt.values, got, err, tt.want)
		}
	}
}

// TestBuildThenMatch checks that what the client builds, the server routes
// back to the same values.
func TestBuildThenMatch(t *testing.T) {
	for _, values := range [][]string{{"acme", "t-1"}, {"a/b", "c:d"}, {"ü ñ", "%41"}, {"x?y#z", "a&b=c"}} {
		m := mustCompile(t, patTenantCancel)
		path, err := m.buildPath(nil, values)
		if err != nil {
			t.Fatal(err)
		}
		segs, err := splitPath(string(path), nil)
		if err != nil || !m.matches(segs) {
			t.Fatalf("%s does not match its own pattern: %v", path, err)
		}
		if got := m.capture(segs, nil); !slices.Equal(got, values) {
			t.Errorf("%s: captured %q, want %q", path, got, values)
		}
	}
}

func TestSplitPath(t *testing.T) {
	for path, want := range map[string]string{
		"/":              "",
		"/a":             "a",
		"/a/b%2Fc/":      "a|b/c|",
		"/a%3Ab":         "a:b",
		"a/b":            "a|b",
		"/%E2%82%AC/%20": "€| ",
	} {
		got, err := splitPath(path, nil)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("splitPath(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := splitPath("/a%zz", nil); err == nil {
		t.Error("splitPath accepted a bad escape")
	}
}

// FuzzPathMatch feeds arbitrary paths to the A2A-shaped patterns: matching
// must never panic, captures must line up with the variables, and a
// captured single-segment value built back into a path must match again.
func FuzzPathMatch(f *testing.F) {
	for _, s := range []string{"/tasks/abc:cancel", "/acme/tasks/t:cancel", "/v2/tools/a/b", "/", "//", "/tasks/%3A", "/:cancel",
		"/folders/folders/x/notes:watch", "/tasks/a%2Fb:subscribe", "/%zz", "/message:send"} {
		f.Add(s)
	}
	f.Add("/folders/folders/a%2Fb/notes:watch")
	patterns := []string{patCancel, patSubscribe, patGetTask, patTenantTasks, patTenantCancel, patSend, patTenantSend, patPushConfig, patFolder, patDeep}
	ms := make([]*pathMatcher, len(patterns))
	for i, p := range patterns {
		ms[i] = mustCompile(f, p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		segs, err := splitPath(path, nil)
		if err != nil {
			return
		}
		for _, m := range ms {
			if !m.matches(segs) {
				continue
			}
			caps := m.capture(segs, nil)
			if len(caps) != len(m.vars) {
				t.Fatalf("%s on %q: %d captures for %d variables", m.path, path, len(caps), len(m.vars))
			}
			if m.rest || (m.path == patFolder && slices.ContainsFunc(segs, func(s string) bool { return strings.Contains(s, "/") })) {
				// "**" values may hold empty segments, and a variable over
				// several segments joins them with "/", so a decoded "/"
				// inside one of them cannot round-trip.
				continue
			}
			built, err := m.buildPath(nil, caps)
			if err != nil {
				t.Fatalf("%s on %q: captured %q but cannot build it back: %v", m.path, path, caps, err)
			}
			again, err := splitPath(string(built), nil)
			if err != nil || !m.matches(again) || !slices.Equal(m.capture(again, nil), caps) {
				t.Fatalf("%s: %q captured %q, rebuilt as %s which does not round-trip", m.path, path, caps, built)
			}
		}
	})
}
