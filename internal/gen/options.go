package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a2agen/a2agen/internal/binding"
)

// Options are the protoc-gen-a2a specific plugin parameters. The standard
// protoc-gen-go parameters (paths=, module=, M…) are handled by protogen.
//
// Set has the signature of protogen.Options.ParamFunc, so a main reads
//
//	var opts gen.Options
//	protogen.Options{ParamFunc: opts.Set}.Run(func(p *protogen.Plugin) error {
//		return gen.Generate(p, opts)
//	})
type Options struct {
	// Bindings are the binding names to emit constructors for, as given
	// (binding.Parse reads them: jsonrpc, rest, grpc, or the card's
	// spelling); nil means the default: every binding, in binding.All order.
	Bindings []string

	// PackageSuffix, when not empty, puts the bindings of each proto file in
	// a Go package of their own, named after the message package plus the
	// suffix, in a directory of that name under the message package's, importing
	// the message package (as connect-go's package_suffix does). Then
	// protoc-gen-go-grpc can generate into the message package without a clash.
	PackageSuffix string

	// ProtocolVersions, when not empty, are the A2A protocol versions
	// (Major.Minor, newest first) of every service generated, replacing
	// those of the built-in table (protocols.go): protocol_versions=1.1,1.0
	// after a proto upgrade that keeps serving 1.0 clients.
	ProtocolVersions []string

	// inBindings is true after a bindings= parameter: protoc splits the
	// parameter string at commas, so "bindings=jsonrpc,rest" reaches Set as
	// ("bindings", "jsonrpc") and then ("rest", ""). inVersions is the same
	// for protocol_versions=.
	inBindings, inVersions bool
}

// Set records one plugin parameter. Unknown parameters are errors.
func (o *Options) Set(name, value string) error {
	switch {
	case name == "protocol_versions":
		o.inBindings, o.inVersions = false, true
		return o.addVersion(value)
	case o.inVersions && listItem(name, value):
		return o.addVersion(name)
	case name == "package_suffix":
		o.inBindings, o.inVersions = false, false
		return o.setPackageSuffix(value)
	case name == "bindings":
		o.startBindings(value)
		return nil
	case o.inBindings && listItem(name, value):
		o.Bindings = append(o.Bindings, strings.TrimSpace(name))
		return nil
	}
	return fmt.Errorf("unknown parameter %q: protoc-gen-a2a accepts bindings=<list>, package_suffix=<suffix> and protocol_versions=<list> besides protoc-gen-go's paths=, module= and M…", name)
}

// listItem reports whether a parameter is the next item of a list that
// protoc split at its commas (a name without a value).
func listItem(name, value string) bool {
	return value == "" && !strings.Contains(name, "=")
}

// setPackageSuffix records package_suffix=, which must fit in a Go package
// name.
func (o *Options) setPackageSuffix(value string) error {
	for _, r := range value {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("package_suffix=%s: the suffix is appended to a Go package name, so it may hold only lower-case letters, digits and underscores (e.g. package_suffix=a2a)", value)
		}
	}
	o.PackageSuffix = value
	return nil
}

// startBindings records bindings= and its first items; the first bindings=
// replaces the default (all of them).
func (o *Options) startBindings(value string) {
	if !o.inBindings && o.Bindings == nil {
		o.Bindings = []string{}
	}
	o.inBindings, o.inVersions = true, false
	for v := range strings.SplitSeq(value, ",") {
		o.Bindings = append(o.Bindings, strings.TrimSpace(v))
	}
}

// addVersion records one protocol_versions= item, which must be Major.Minor.
func (o *Options) addVersion(v string) error {
	v = strings.TrimSpace(v)
	major, minor, ok := strings.Cut(v, ".")
	if !ok || !decimal(major) || !decimal(minor) {
		return fmt.Errorf("protocol_versions: %q is not an A2A protocol version; give Major.Minor, newest first (e.g. protocol_versions=1.1,1.0)", v)
	}
	if slices.Contains(o.ProtocolVersions, v) {
		return fmt.Errorf("protocol_versions: %s is listed twice", v)
	}
	o.ProtocolVersions = append(o.ProtocolVersions, v)
	return nil
}

// decimal reports whether s is a non-empty string of ASCII digits.
func decimal(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// bindings validates the requested bindings and returns them deduplicated,
// in request order.
func (o *Options) bindings() ([]binding.Binding, error) {
	if o.Bindings == nil {
		return binding.All(), nil
	}
	var out []binding.Binding
	for _, name := range o.Bindings {
		if name == "" {
			return nil, fmt.Errorf("bindings= names an empty binding (known: %s)", strings.Join(binding.Options(), ", "))
		}
		b, err := binding.Parse(name)
		if err != nil {
			return nil, fmt.Errorf("bindings=: %w", err)
		}
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out, nil
}
