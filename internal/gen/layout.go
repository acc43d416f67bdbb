package gen

import (
	pathpkg "path"

	"google.golang.org/protobuf/compiler/protogen"
)

// outputPackage is the Go package a proto file's <name>.a2a.go is written
// into: the message package itself (the default), or, with package_suffix, a
// package of its own next to it that imports the message package (connect-go's
// layout), so that protoc-gen-go-grpc's output can share the message package.
type outputPackage struct {
	importPath protogen.GoImportPath
	name       protogen.GoPackageName
	// filename is the generated file's name relative to the output directory.
	filename string
}

// layout returns where the bindings of file go for a package suffix ("" is
// the message package). With suffix "a2a", lf/a2a/v1/a2a.proto generated into
// example.com/agent/a2apb (package a2apb) becomes example.com/agent/a2apb/a2apba2a
// (package a2apba2a), file a2apba2a/a2a.a2a.go under the message package's
// directory.
func layout(file *protogen.File, suffix string) outputPackage {
	if suffix == "" {
		return outputPackage{
			importPath: file.GoImportPath,
			name:       file.GoPackageName,
			filename:   file.GeneratedFilenamePrefix + generatedSuffix,
		}
	}
	name := protogen.GoPackageName(string(file.GoPackageName) + suffix)
	dir, base := pathpkg.Split(file.GeneratedFilenamePrefix)
	return outputPackage{
		importPath: protogen.GoImportPath(pathpkg.Join(string(file.GoImportPath), string(name))),
		name:       name,
		filename:   pathpkg.Join(dir, string(name), base+generatedSuffix),
	}
}

// inMessagePackage reports whether the bindings share the Go package of the
// messages.
func (o outputPackage) inMessagePackage(file *protogen.File) bool {
	return o.importPath == file.GoImportPath
}
