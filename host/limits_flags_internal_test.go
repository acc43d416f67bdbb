package host

import (
	"flag"
	"io"
	"reflect"
	"testing"
)

// TestLimitFlagsCoverLimits: every field of Limits has its line in
// limitUsage, so that it is a flag of Main and an environment variable, and
// limitUsage names no field that does not exist.
func TestLimitFlagsCoverLimits(t *testing.T) {
	fields := map[string]bool{}
	for f := range reflect.TypeFor[Limits]().Fields() {
		fields[f.Name] = true
		if _, ok := limitUsage[f.Name]; !ok {
			t.Errorf("Limits.%s has no line in limitUsage: Main has no -%s flag", f.Name, LimitFlagName(f.Name))
		}
	}
	for name := range limitUsage {
		if !fields[name] {
			t.Errorf("limitUsage names %s, which is no field of Limits", name)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l := DefaultLimits()
	limitFlags(fs, &l)
	for name := range fields {
		if fs.Lookup(LimitFlagName(name)) == nil {
			t.Errorf("no flag -%s for Limits.%s", LimitFlagName(name), name)
		}
	}
}

func TestLimitFlagName(t *testing.T) {
	for field, want := range map[string]string{
		"MaxBodyBytes":         "max-body-bytes",
		"ReadHeaderTimeout":    "read-header-timeout",
		"StreamKeepAlive":      "stream-keep-alive",
		"MaxConcurrentStreams": "max-concurrent-streams",
		"GRPCMaxHeader":        "grpc-max-header",
		"MaxStreamsPerCaller":  "max-streams-per-caller",
	} {
		if got := LimitFlagName(field); got != want {
			t.Errorf("LimitFlagName(%q) = %q, want %q", field, got, want)
		}
	}
}

// TestLimitFlagValues: sizes take KiB, MiB, GiB; durations 0 for no bound
// (a negative field); counts and sizes must be at least 1; what Set refuses
// leaves the field alone.
func TestLimitFlagValues(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l := DefaultLimits()
	limitFlags(fs, &l)
	for _, tc := range []struct{ flag, value string }{
		{"max-body-bytes", "1MiB"}, {"max-header-bytes", "65536"}, {"read-timeout", "0"},
		{"write-timeout", "5s"}, {"max-concurrent-streams", "7"},
	} {
		if err := fs.Set(tc.flag, tc.value); err != nil {
			t.Errorf("-%s %s: %v", tc.flag, tc.value, err)
		}
	}
	if l.MaxBodyBytes != 1<<20 || l.MaxHeaderBytes != 65536 || l.ReadTimeout != -1 || l.WriteTimeout.Seconds() != 5 || l.MaxConcurrentStreams != 7 {
		t.Errorf("limits after the flags: %+v", l)
	}
	if got := fs.Lookup("max-body-bytes").Value.String(); got != "1MiB" {
		t.Errorf("-max-body-bytes shows %q, want 1MiB", got)
	}
	for _, tc := range []struct{ flag, value string }{
		{"max-body-bytes", "0"}, {"max-body-bytes", "-1"}, {"max-body-bytes", "8MB"}, {"max-body-bytes", "9999999999GiB"},
		{"max-concurrent-streams", "5000000000"}, {"max-concurrent-streams", "1KiB"}, {"read-timeout", "-1s"}, {"read-timeout", "soon"},
	} {
		if err := fs.Set(tc.flag, tc.value); err == nil {
			t.Errorf("-%s %s accepted", tc.flag, tc.value)
		}
	}
	if l.MaxBodyBytes != 1<<20 || l.MaxConcurrentStreams != 7 || l.ReadTimeout != -1 {
		t.Errorf("refused values changed the limits: %+v", l)
	}
}
