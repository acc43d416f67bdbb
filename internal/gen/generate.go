package gen

import (
	"errors"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

// Generate is the plugin: for every file to generate that declares a service
// with google.api.http rules, it emits <name>.a2a.go next to protoc-gen-go's
// <name>.pb.go, in the same Go package, or with opts.PackageSuffix in a
// package of its own (see layout). Services without any rule are skipped.
//
// Input it cannot serve (client streaming, bad HTTP rules, clashing names) is
// reported as one error listing every problem with its position, and then no
// file is written.
func Generate(plugin *protogen.Plugin, opts Options) error {
	plugin.SupportedFeatures = uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL |
		pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS)
	// The generator reads only names, options and rpc shapes, which mean the
	// same in every edition protogen understands.
	plugin.SupportedEditionsMinimum = descriptorpb.Edition_EDITION_PROTO2
	plugin.SupportedEditionsMaximum = descriptorpb.Edition_EDITION_2024

	bindings, err := opts.bindings()
	if err != nil {
		return err
	}
	var (
		models   []*fileModel
		problems []error
	)
	for _, f := range plugin.Files {
		if !f.Generate {
			continue
		}
		fm, err := buildFileModel(f)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		fm.out = layout(f, opts.PackageSuffix)
		for _, sm := range fm.services {
			sm.profile = profileOf(sm.service.Desc.FullName(), opts.ProtocolVersions)
		}
		if len(fm.services) > 0 {
			models = append(models, fm)
		}
	}
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	if err := checkCollisions(plugin, models, bindings); err != nil {
		return err
	}
	for _, fm := range models {
		if err := emitFile(plugin, fm, bindings); err != nil {
			return err
		}
	}
	return nil
}
