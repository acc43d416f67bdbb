package gen

import (
	"github.com/dave/jennifer/jen"
)

// patternValue renders a parsed path template as the runtime.PathPattern
// literal the HTTP+JSON router and client match and build paths with, so
// that no template is parsed at run time:
//
//	runtime.PathPattern{Segments: []string{"*", "tasks", "*"}, Variables: []runtime.PathVariable{…}, Verb: "cancel"}
//
// Segments are literals as written, "*" or "**"; a variable names its field
// by the dotted proto path and the half-open range of segments it captures.
func patternValue(t *PathTemplate) jen.Code {
	segs := make([]jen.Code, len(t.Segments))
	for i, s := range t.Segments {
		segs[i] = jen.Lit(s.String())
	}
	fields := []jen.Code{jen.Id("Segments").Op(":").Index().String().Values(segs...)}
	if len(t.Variables) > 0 {
		vars := make([]jen.Code, len(t.Variables))
		for i, v := range t.Variables {
			vars[i] = jen.Values(
				jen.Id("FieldPath").Op(":").Lit(v.Name()),
				jen.Id("Start").Op(":").Lit(v.Start),
				jen.Id("End").Op(":").Lit(v.End),
			)
		}
		fields = append(fields, jen.Id("Variables").Op(":").Index().Qual(runtimePackage, "PathVariable").Values(vars...))
	}
	if t.Verb != "" {
		fields = append(fields, jen.Id("Verb").Op(":").Lit(t.Verb))
	}
	return jen.Qual(runtimePackage, "PathPattern").Values(fields...)
}
