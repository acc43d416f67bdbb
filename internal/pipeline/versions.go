package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/a2agen/a2agen/internal/protobuild"
)

// ProtoVersion is one protocol version of a proto file: the version
// (Major.Minor, what A2A-Version names) and where its .proto is read from.
// The versions of one package share the file's import path and proto
// package, so Go has one package for all of them (the protobuf registry
// admits one definition per full name): it is generated from the newest,
// and the table of what each version introduced tells the runtime what a
// caller of an older version must not see.
type ProtoVersion struct {
	Version     string
	ImportPaths []string
	File        string
}

// versionTable is what each protocol version introduced, by full name of
// the field, enum value or rpc, for the elements the oldest version lacks.
type versionTable struct {
	versions []string                         // oldest first
	since    map[protoreflect.FullName]string // element → version that introduced it
}

// diffVersions compiles every version of history (oldest first) and finds,
// for each field (oneof cases included), enum value and rpc of the newest,
// the first version that has it. A field or enum value whose number changed
// between versions, or an element a later version dropped, is an error: the
// versions would not share one Go package.
func diffVersions(ctx context.Context, history []ProtoVersion) (*versionTable, error) {
	t := &versionTable{since: map[protoreflect.FullName]string{}}
	var older []map[protoreflect.FullName]int32 // per version: element → number (-1 for rpcs)
	for _, v := range history {
		fd, err := compileOne(ctx, v)
		if err != nil {
			return nil, err
		}
		elems := elementsOf(fd)
		if len(older) > 0 {
			prev := older[len(older)-1]
			for name, num := range prev {
				n, ok := elems[name]
				switch {
				case !ok:
					return nil, fmt.Errorf("A2A %s (%s) drops %s, which %s has: a version may only add to its package", v.Version, v.File, name, t.versions[len(t.versions)-1])
				case n != num:
					return nil, fmt.Errorf("A2A %s (%s) numbers %s %d, %s numbers it %d: a version may only add to its package", v.Version, v.File, name, n, t.versions[len(t.versions)-1], num)
				}
			}
			for name := range elems {
				if _, ok := prev[name]; !ok {
					t.since[name] = v.Version
				}
			}
		}
		older = append(older, elems)
		t.versions = append(t.versions, v.Version)
	}
	return t, nil
}

// compileOne compiles the .proto of one version on its own (the versions
// define the same names, so they cannot be linked together).
func compileOne(ctx context.Context, v ProtoVersion) (protoreflect.FileDescriptor, error) {
	protos, err := protobuild.Compile(ctx, v.ImportPaths, v.File)
	if err != nil {
		return nil, fmt.Errorf("A2A %s: %w", v.Version, err)
	}
	files, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: protos})
	if err != nil {
		return nil, fmt.Errorf("A2A %s: %w", v.Version, err)
	}
	fd, err := files.FindFileByPath(v.File)
	if err != nil {
		return nil, fmt.Errorf("A2A %s: %w", v.Version, err)
	}
	return fd, nil
}

// elementsOf lists the fields, enum values and rpcs a file defines, by full
// name, with their numbers (-1 for rpcs).
func elementsOf(fd protoreflect.FileDescriptor) map[protoreflect.FullName]int32 {
	out := map[protoreflect.FullName]int32{}
	enums := func(es protoreflect.EnumDescriptors) {
		for i := range es.Len() {
			vals := es.Get(i).Values()
			for j := range vals.Len() {
				out[vals.Get(j).FullName()] = int32(vals.Get(j).Number())
			}
		}
	}
	var messages func(protoreflect.MessageDescriptors)
	messages = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			fields := m.Fields()
			for j := range fields.Len() {
				out[fields.Get(j).FullName()] = int32(fields.Get(j).Number())
			}
			enums(m.Enums())
			messages(m.Messages())
		}
	}
	enums(fd.Enums())
	messages(fd.Messages())
	services := fd.Services()
	for i := range services.Len() {
		methods := services.Get(i).Methods()
		for j := range methods.Len() {
			out[methods.Get(j).FullName()] = -1
		}
	}
	return out
}

// generateVersionTable writes <file>.versions.go beside the generated
// package of each file to generate: the table as runtime.VersionTable data,
// attached to the ServiceDesc of each service protoc-gen-a2a emitted.
func generateVersionTable(p *protogen.Plugin, t *versionTable, history []ProtoVersion) error {
	p.SupportedFeatures = uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL)
	runtimePkg := protogen.GoImportPath(Module + "/runtime")
	for _, f := range p.Files {
		if !f.Generate || f.Desc.Path() != history[len(history)-1].File {
			continue
		}
		g := p.NewGeneratedFile(f.GeneratedFilenamePrefix+".versions.go", f.GoImportPath)
		g.P("// Code generated by a2agen's make generate (internal/pipeline) from the bundled")
		g.P("// protos of ", f.Desc.Package(), ". DO NOT EDIT.")
		g.P("//")
		g.P("// Versions compared (oldest first):")
		for _, v := range history {
			g.P("//   A2A ", v.Version, ": ", v.File, " under ", relativeRoot(v.ImportPaths))
		}
		g.P()
		g.P("package ", f.GoPackageName)
		g.P()
		name := versionTableName(f)
		g.P("// ", name, " is the protocol version that introduced each field, oneof case,")
		g.P("// enum value and rpc of ", f.Desc.Package(), " that A2A ", t.versions[0], " lacks, found by comparing")
		g.P("// the descriptors of the bundled protos. The runtime strips what a call's")
		g.P("// negotiated version lacks from what the call sees (docs/bindings.md, versions).")
		g.P("var ", name, " = ", runtimePkg.Ident("VersionTable"), "{")
		g.P("Versions: []string{", quoteAll(t.versions), "},")
		g.P("Since: map[string]string{")
		names := make([]string, 0, len(t.since))
		for n := range t.since {
			names = append(names, string(n))
		}
		slices.Sort(names)
		for _, n := range names {
			g.P(fmt.Sprintf("%q: %q,", n, t.since[protoreflect.FullName(n)]))
		}
		g.P("},")
		g.P("}")
		if len(f.Services) > 0 {
			g.P()
			g.P("func init() {")
			for _, s := range f.Services {
				g.P(s.GoName, "Desc.Versions = &", name)
			}
			g.P("}")
		}
	}
	return nil
}

// versionTableName is the Go name of a file's table: A2AVersions for the
// bundled A2A proto (its first service's name, else the package's).
func versionTableName(f *protogen.File) string {
	if len(f.Services) > 0 {
		return strings.TrimSuffix(f.Services[0].GoName, "Service") + "Versions"
	}
	return "ProtoVersions"
}

// relativeRoot names an import path for the header: its part from the
// module's proto/ directory on, so that the header does not depend on
// where the checkout is.
func relativeRoot(paths []string) string {
	if len(paths) == 0 {
		return "."
	}
	p := strings.ReplaceAll(paths[0], "\\", "/")
	if i := strings.LastIndex(p, "/proto"); i >= 0 {
		return p[i+1:]
	}
	return p
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
