package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/a2agen/a2agen/runtime"
)

// wireLog is the -v log: every call's operation, binding, peer, headers and
// messages (ProtoJSON) on stderr, with credentials masked — headers that
// carry secrets and the token and credentials fields of push configs.
type wireLog struct {
	mu sync.Mutex
	w  io.Writer
}

var _ runtime.Interceptor = (*wireLog)(nil)

func (l *wireLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format, args...)
}

func (l *wireLog) request(call *runtime.CallInfo, req proto.Message) {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s %s\n", call.Operation.Name, call.Binding, call.Peer)
	writeHeaders(&b, "> ", call.Header)
	fmt.Fprintf(&b, "> %s\n", maskedJSON(req))
	l.printf("%s", b.String())
}

func (l *wireLog) response(call *runtime.CallInfo, start time.Time, resp proto.Message, err error) {
	var b strings.Builder
	fmt.Fprintf(&b, "< %s %v\n", call.Operation.Name, time.Since(start).Round(time.Millisecond))
	writeHeaders(&b, "< ", call.ResponseHeader())
	if err != nil {
		fmt.Fprintf(&b, "< error: %v\n", err)
	} else if resp != nil {
		fmt.Fprintf(&b, "< %s\n", maskedJSON(resp))
	}
	l.printf("%s", b.String())
}

// WrapUnary implements runtime.Interceptor.
func (l *wireLog) WrapUnary(next runtime.UnaryFunc) runtime.UnaryFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
		l.request(call, req)
		start := time.Now()
		resp, err := next(ctx, call, req)
		l.response(call, start, resp, err)
		return resp, err
	}
}

// WrapStream implements runtime.Interceptor.
func (l *wireLog) WrapStream(next runtime.StreamFunc) runtime.StreamFunc {
	return func(ctx context.Context, call *runtime.CallInfo, req proto.Message, send func(proto.Message) error) error {
		l.request(call, req)
		start := time.Now()
		first := true
		err := next(ctx, call, req, func(ev proto.Message) error {
			if first {
				first = false
				var b strings.Builder
				fmt.Fprintf(&b, "< %s stream opened %v\n", call.Operation.Name, time.Since(start).Round(time.Millisecond))
				writeHeaders(&b, "< ", call.ResponseHeader())
				l.printf("%s", b.String())
			}
			l.printf("< event %s\n", maskedJSON(ev))
			return send(ev)
		})
		if err != nil {
			l.printf("< %s stream error after %v: %v\n", call.Operation.Name, time.Since(start).Round(time.Millisecond), err)
		} else {
			l.printf("< %s stream ended after %v\n", call.Operation.Name, time.Since(start).Round(time.Millisecond))
		}
		return err
	}
}

// fetchLog logs the HTTP requests of card and JWKS fetches.
type fetchLog struct {
	base http.RoundTripper
	w    io.Writer
}

func (f *fetchLog) RoundTrip(req *http.Request) (*http.Response, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\n", req.Method, req.URL)
	writeHeaders(&b, "> ", req.Header)
	fmt.Fprint(f.w, b.String())
	start := time.Now()
	resp, err := f.base.RoundTrip(req)
	if err != nil {
		fmt.Fprintf(f.w, "< error: %v\n", err)
		return nil, err
	}
	b.Reset()
	fmt.Fprintf(&b, "< %s %v\n", resp.Status, time.Since(start).Round(time.Millisecond))
	writeHeaders(&b, "< ", resp.Header)
	fmt.Fprint(f.w, b.String())
	return resp, nil
}

// writeHeaders writes h sorted, one per line, with secrets masked.
func writeHeaders(b *strings.Builder, prefix string, h http.Header) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(b, "%s%s: %s\n", prefix, k, maskHeader(k, v))
		}
	}
}

// maskHeader hides the secret part of credential headers: the scheme of
// Authorization stays readable ("Bearer ****").
func maskHeader(name, value string) string {
	n := strings.ToLower(name)
	switch {
	case n == "authorization" || n == "proxy-authorization":
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " ****"
		}
		return "****"
	case n == "cookie" || n == "set-cookie" || strings.Contains(n, "token") ||
		strings.Contains(n, "secret") || strings.Contains(n, "api-key") || strings.Contains(n, "apikey"):
		return "****"
	}
	return value
}

// maskedJSON is the compact ProtoJSON of m with the secrets of push
// configs (token, authentication credentials) replaced by ****.
func maskedJSON(m proto.Message) string {
	if m == nil {
		return "{}"
	}
	c := proto.Clone(m)
	maskSecrets(c.ProtoReflect())
	b, err := compactJSON(c)
	if err != nil {
		return fmt.Sprintf("(unprintable %s: %v)", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return string(b)
}

// secretFields are the string fields whose values never reach the log.
var secretFields = map[protoreflect.Name]bool{"token": true, "credentials": true}

func maskSecrets(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap() && secretFields[fd.Name()]:
			if v.String() != "" {
				m.Set(fd, protoreflect.ValueOfString("****"))
			}
		case fd.Kind() == protoreflect.MessageKind && fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				maskSecrets(l.Get(i).Message())
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			maskSecrets(v.Message())
		}
		return true
	})
}

// debugWriter is where --debug writes: stderr, with every credential of
// the run replaced by ****, whatever line it appears in (a header, a URL's
// query, a message). No flag turns this off.
func (a *app) debugWriter() io.Writer { return &redactor{a: a} }

type redactor struct{ a *app }

func (r *redactor) Write(p []byte) (int, error) {
	s := string(p)
	// Service parameters may carry credentials whatever their length: the
	// header lines of the --svc-param names show no value at all.
	if len(r.a.svcParams) > 0 {
		s = maskParamLines(s, r.a.svcParams)
	}
	for _, secret := range r.a.secrets {
		if len(secret) >= 4 {
			s = strings.ReplaceAll(s, secret, "****")
		}
	}
	if _, err := io.WriteString(r.a.env.stderr, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// maskParamLines replaces the value of every header line ("> name: value"
// or "< name: value") of s that names one of the service parameters
// (name:value) by ****.
func maskParamLines(s string, params []string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "> ") && !strings.HasPrefix(l, "< ") {
			continue
		}
		name, _, ok := strings.Cut(l[2:], ": ")
		if ok && slices.ContainsFunc(params, func(sp string) bool {
			k, _, _ := strings.Cut(sp, ":")
			return strings.EqualFold(strings.TrimSpace(k), name)
		}) {
			lines[i] = l[:2] + name + ": ****\n"
		}
	}
	return strings.Join(lines, "")
}
