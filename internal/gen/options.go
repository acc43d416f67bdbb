package gen

import (
	"fmt"
	"strings"
)

// The bindings protoc-gen-a2a knows, by their parameter names.
const (
	BindingJSONRPC = "jsonrpc"
	BindingREST    = "rest"
	BindingGRPC    = "grpc"
)

// knownBindings lists every binding name in the order they are documented;
// implemented says which ones this version can generate.
var knownBindings = []struct {
	name        string
	implemented bool
}{
	{BindingJSONRPC, true},
	{BindingREST, true},
	{BindingGRPC, true},
}

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
	// Bindings are the binding names to emit constructors for; nil means
	// the default: every implemented binding, in knownBindings order.
	Bindings []string

	// PackageSuffix, when not empty, puts the bindings of each proto file in
	// a Go package of their own, named after the message package plus the
	// suffix, in a directory of that name under the message package's, importing
	// the message package (as connect-go's package_suffix does). Then
	// protoc-gen-go-grpc can generate into the message package without a clash.
	PackageSuffix string

	// inBindings is true after a bindings= parameter: protoc splits the
	// parameter string at commas, so "bindings=jsonrpc,rest" reaches Set as
	// ("bindings", "jsonrpc") and then ("rest", "").
	inBindings bool
}

// Set records one plugin parameter. Unknown parameters are errors.
func (o *Options) Set(name, value string) error {
	switch {
	case name == "package_suffix":
		o.inBindings = false
		for _, r := range value {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
				return fmt.Errorf("package_suffix=%s: the suffix is appended to a Go package name, so it may hold only lower-case letters, digits and underscores (e.g. package_suffix=a2a)", value)
			}
		}
		o.PackageSuffix = value
		return nil
	case name == "bindings":
		if !o.inBindings && o.Bindings == nil {
			o.Bindings = []string{}
		}
		o.inBindings = true
		for v := range strings.SplitSeq(value, ",") {
			o.Bindings = append(o.Bindings, strings.TrimSpace(v))
		}
		return nil
	case o.inBindings && value == "" && !strings.Contains(name, "="):
		o.Bindings = append(o.Bindings, strings.TrimSpace(name))
		return nil
	}
	return fmt.Errorf("unknown parameter %q: protoc-gen-a2a accepts bindings=<list> and package_suffix=<suffix> besides protoc-gen-go's paths=, module= and M…", name)
}

// bindings validates the requested bindings and returns them deduplicated,
// in request order.
func (o *Options) bindings() ([]string, error) {
	if o.Bindings == nil {
		var all []string
		for _, k := range knownBindings {
			if k.implemented {
				all = append(all, k.name)
			}
		}
		return all, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, b := range o.Bindings {
		if b == "" {
			return nil, fmt.Errorf("bindings= names an empty binding (known: %s)", knownBindingList())
		}
		implemented, known := false, false
		for _, k := range knownBindings {
			if k.name == b {
				known, implemented = true, k.implemented
			}
		}
		switch {
		case !known:
			return nil, fmt.Errorf("unknown binding %q (known: %s)", b, knownBindingList())
		case !implemented:
			return nil, fmt.Errorf("binding %q is not implemented yet in protoc-gen-a2a v%s", b, Version)
		}
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out, nil
}

func knownBindingList() string {
	names := make([]string, len(knownBindings))
	for i, k := range knownBindings {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}
