package runtime

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// WithPathPrefix tells the HTTP+JSON handler that it is mounted at prefix,
// the path of the interface URL (for http://host/a2a/rest, "/a2a/rest"):
// routes are matched below it, and a request outside it gets 404. Without
// this option the handler detects its mount point when it is registered on
// an http.ServeMux with a subtree pattern ("/a2a/rest/" or
// "POST /a2a/rest/"), so nothing needs stripping by hand. Giving the option
// (even WithPathPrefix("")) turns the detection off, e.g. when the path was
// already stripped in an unusual way. Other bindings ignore it.
func WithPathPrefix(prefix string) HandlerOption {
	return func(c *handlerConfig) {
		c.pathPrefix = prefix
		c.pathPrefixSet = true
	}
}

// mountSegment is one segment of a mount point: a literal, or a ServeMux
// wildcard ("{agent}") matching any one non-empty segment.
type mountSegment struct {
	literal  string
	wildcard bool
}

// pathMount removes the mount point from the segments of a request path.
type pathMount struct {
	explicit bool
	prefix   []mountSegment // the WithPathPrefix segments
	// byPattern caches the mount point derived from each ServeMux pattern
	// (string → []mountSegment; nil when the pattern is not a subtree).
	byPattern sync.Map
}

func newPathMount(c *handlerConfig) *pathMount {
	m := &pathMount{explicit: c.pathPrefixSet}
	if c.pathPrefixSet {
		for seg := range strings.SplitSeq(strings.Trim(c.pathPrefix, "/"), "/") {
			if seg == "" {
				continue
			}
			if dec, err := url.PathUnescape(seg); err == nil {
				seg = dec
			}
			m.prefix = append(m.prefix, mountSegment{literal: seg})
		}
	}
	return m
}

// strip returns the request segments below the mount point. With an
// explicit prefix, a path outside it reports false. A detected mount point
// is only removed when the path still starts with it: a handler behind
// http.StripPrefix sees a path that no longer does, and is left alone.
func (m *pathMount) strip(r *http.Request, segs []string) ([]string, bool) {
	if m.explicit {
		if !hasMountPrefix(segs, m.prefix) {
			return segs, len(m.prefix) == 0
		}
		return segs[len(m.prefix):], true
	}
	if r.Pattern == "" {
		return segs, true
	}
	var prefix []mountSegment
	if v, ok := m.byPattern.Load(r.Pattern); ok {
		prefix = v.([]mountSegment)
	} else {
		prefix = muxMountPoint(r.Pattern)
		m.byPattern.Store(r.Pattern, prefix)
	}
	if len(prefix) == 0 || !hasMountPrefix(segs, prefix) {
		return segs, true
	}
	return segs[len(prefix):], true
}

// hasMountPrefix reports whether segs start with prefix and go on after it.
func hasMountPrefix(segs []string, prefix []mountSegment) bool {
	if len(segs) <= len(prefix) {
		return false
	}
	for i, p := range prefix {
		if p.wildcard && segs[i] == "" || !p.wildcard && segs[i] != p.literal {
			return false
		}
	}
	return true
}

// muxMountPoint derives the mount point from an http.ServeMux pattern
// ("[METHOD ][HOST]/PATH"): the segments of a subtree pattern ("/a2a/rest/")
// or of one ending in a multi-segment wildcard ("/a2a/rest/{rest...}").
// Exact patterns give none: there is no subtree to route in.
func muxMountPoint(pattern string) []mountSegment {
	if i := strings.IndexAny(pattern, " \t"); i >= 0 {
		pattern = strings.TrimLeft(pattern[i:], " \t")
	}
	i := strings.IndexByte(pattern, '/')
	if i < 0 {
		return nil
	}
	path := pattern[i+1:]
	segs := strings.Split(path, "/")
	switch last := segs[len(segs)-1]; {
	case last == "":
	case strings.HasPrefix(last, "{") && strings.HasSuffix(last, "...}"):
	default:
		return nil // an exact pattern, including ones ending in {$}
	}
	segs = segs[:len(segs)-1]
	out := make([]mountSegment, 0, len(segs))
	for _, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			out = append(out, mountSegment{wildcard: true})
			continue
		}
		if dec, err := url.PathUnescape(s); err == nil {
			s = dec
		}
		out = append(out, mountSegment{literal: s})
	}
	return out
}
