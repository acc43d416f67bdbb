package scaffold

import (
	"encoding/json"
	"fmt"
	"mime"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/a2agen/a2agen/internal/dataschema"
	"github.com/a2agen/a2agen/internal/manifest"
)

// The Go code of typed skills: a type per schema, the skilldata.Schema
// values that decode and encode them, and the data the tests send.

const pkgSkillData = "github.com/a2agen/a2agen/host/skilldata"

// typedFile is the file of the types; "" when no skill is typed.
const typedFile = "a2a_skilldata.gen.go"

// typedCode is what a typed skill adds to its skillCode.
type typedCode struct {
	InputType, OutputType string // PlanTripInput, PlanTripOutput ("" when absent)
	InputVar, OutputVar   string // planTripInput, planTripOutput
	// FromText is the user-owned function that reads the input from text
	// ("" when the skill does not read text).
	FromText string
}

func (s skillCode) typed() bool { return s.Input != nil || s.Output != nil }

// typedNames fills in the names of a typed skill.
func typedNames(s *skillCode, m *manifest.Manifest) {
	base := camel(s.ID)
	lower := strings.ToLower(base[:1]) + base[1:]
	if s.Input != nil {
		s.InputType, s.InputVar = base+"Input", lower+"Input"
		modes := s.InputModes
		if len(modes) == 0 {
			modes = m.DefaultInputModes
		}
		if acceptsText(modes) {
			s.FromText = lower + "FromText"
		}
	}
	if s.Output != nil {
		s.OutputType, s.OutputVar = base+"Output", lower+"Output"
	}
}

// acceptsText reports whether modes list one that text parts (text/plain)
// match.
func acceptsText(modes []string) bool { return acceptsMedia(modes, "text/plain") }

// acceptsMedia reports whether modes list one that media type mt (without
// parameters) matches: equal, or a wildcard type or subtype ("text/*",
// "*/*"), parameters of the modes ignored, as package host matches parts.
func acceptsMedia(modes []string, mt string) bool {
	typ, sub, _ := strings.Cut(mt, "/")
	for _, m := range modes {
		mm, _, err := mime.ParseMediaType(m)
		if err != nil {
			continue
		}
		mtyp, msub, _ := strings.Cut(strings.ToLower(mm), "/")
		if (mtyp == "*" || mtyp == typ) && (msub == "*" || msub == sub) {
			return true
		}
	}
	return false
}

// refusedInputMedia are the media types the generated test offers a typed
// skill to see it refuse one, in order: the first its inputModes do not
// accept is sent.
var refusedInputMedia = []string{"text/plain", "image/png", "application/octet-stream"}

// refusedMedia returns a media type the skill's effective inputModes do
// not accept, or "" when they accept all of refusedInputMedia.
func (p *project) refusedMedia(s skillCode) string {
	modes := p.inputModes(s)
	for _, mt := range refusedInputMedia {
		if !acceptsMedia(modes, mt) {
			return mt
		}
	}
	return ""
}

// inputModes returns the skill's effective inputModes, as its card entry
// and a ContentTypeNotSupported refusal list them.
func (p *project) inputModes(s skillCode) []string {
	if len(s.InputModes) > 0 {
		return s.InputModes
	}
	return p.m.DefaultInputModes
}

// typesFile declares the types and schemas of every typed skill.
func (p *project) typesFile() ([]byte, error) {
	f := newGoFile(true)
	f.ImportName(pkgSkillData, "skilldata")
	for _, s := range p.skills {
		if !s.typed() {
			continue
		}
		if s.Input != nil {
			if err := p.declareData(f, s, s.Input, "input", s.InputType, s.InputVar); err != nil {
				return nil, err
			}
		}
		if s.Output != nil {
			if err := p.declareData(f, s, s.Output, "output", s.OutputType, s.OutputVar); err != nil {
				return nil, err
			}
			docLines(f, fmt.Sprintf("Artifact returns an artifact holding o as one data part (%s), after checking it against output.schema of skill %q (an output that does not match is an Internal error); an empty id is replaced by a generated one.", manifest.DataMediaType, s.ID))
			f.Func().Params(jen.Id("o").Id(s.OutputType)).Id("Artifact").Params(jen.Id("id").String()).Params(jen.Op("*").Qual(pkgA2A, "Artifact"), jen.Error()).Block(
				jen.Return(jen.Id(s.OutputVar).Dot("Artifact").Call(jen.Id("id"), jen.Id("o"))),
			)
			f.Line()
		}
	}
	return render(f)
}

// declareData writes the types of one schema and its skilldata.Schema.
func (p *project) declareData(f *jen.File, s skillCode, d *manifest.Data, direction, typeName, varName string) error {
	doc := fmt.Sprintf("%s is the %s of skill %q (%s.schema in agent.yaml)", typeName, direction, s.ID, direction)
	if d.Schema.Description != "" {
		doc += ": " + d.Schema.Description
	} else {
		doc += "."
	}
	g := &typeGen{}
	g.object(f, typeName, doc, d.Schema)
	schemaJSON, err := json.Marshal(d.Schema)
	if err != nil {
		return err
	}
	docLines(f, fmt.Sprintf("%s decodes and checks the %s of skill %q: its JSON Schema, as the card's extension %s carries it.", varName, direction, s.ID, "skill-schemas"))
	f.Var().Id(varName).Op("=").Qual(pkgSkillData, "MustSchema").Types(jen.Id(typeName)).Call(jen.Lit(s.ID), jen.Lit(direction), stringConst(string(schemaJSON)))
	f.Line()
	return nil
}

// typeGen names and declares the Go types of a schema.
type typeGen struct{}

// object declares a struct type for an object schema, then the types of
// its properties.
func (g *typeGen) object(f *jen.File, name, doc string, s *dataschema.Schema) {
	docLines(f, doc)
	f.Type().Id(name).StructFunc(func(st *jen.Group) {
		for _, prop := range s.Properties {
			field := dataschema.GoName(prop.Name)
			optional := !s.IsRequired(prop.Name) && prop.Schema.Default == nil
			typ := g.goType(name+field, prop.Schema)
			tag := prop.Name
			if optional {
				tag += ",omitempty"
				if prop.Schema.Type != dataschema.Array {
					typ = jen.Op("*").Add(typ)
				}
			}
			if c := fieldDoc(prop, s.IsRequired(prop.Name)); c != "" {
				st.Comment(c)
			}
			st.Id(field).Add(typ).Tag(map[string]string{"json": tag})
		}
	})
	f.Line()
	for _, prop := range s.Properties {
		g.declare(f, name+dataschema.GoName(prop.Name), prop.Schema)
	}
}

// declare writes the named types a property needs: structs for objects,
// string types with constants for enums (at any depth of arrays).
func (g *typeGen) declare(f *jen.File, name string, s *dataschema.Schema) {
	switch {
	case s.Type == dataschema.Object:
		doc := name + " is " + orDefault(s.Description, "an object of the schema.")
		g.object(f, name, doc, s)
	case s.Type == dataschema.Array:
		g.declare(f, name+"Item", s.Items)
	case s.Type == dataschema.String && len(s.Enum) > 0:
		docLines(f, name+" is one of the values the schema allows; the constants below list them.")
		f.Type().Id(name).String()
		f.Line()
		var consts []jen.Code
		seen := map[string]bool{}
		for _, v := range s.Enum {
			c := name + dataschema.GoName(v)
			if c == name || seen[c] {
				consts = nil // values that give no distinct names: no constants
				break
			}
			seen[c] = true
			consts = append(consts, jen.Id(c).Id(name).Op("=").Lit(v))
		}
		if len(consts) > 0 {
			f.Const().Defs(consts...)
			f.Line()
		}
	}
}

// goType is the Go type of a property of schema s, named name when it needs
// a type of its own.
func (g *typeGen) goType(name string, s *dataschema.Schema) jen.Code {
	switch s.Type {
	case dataschema.Object:
		return jen.Id(name)
	case dataschema.Array:
		return jen.Index().Add(g.goType(name+"Item", s.Items))
	case dataschema.String:
		if len(s.Enum) > 0 {
			return jen.Id(name)
		}
		return jen.String()
	case dataschema.Integer:
		return jen.Int()
	case dataschema.Number:
		return jen.Float64()
	}
	return jen.Bool()
}

func fieldDoc(p dataschema.Property, required bool) string {
	var parts []string
	if p.Schema.Description != "" {
		parts = append(parts, strings.TrimSuffix(p.Schema.Description, ".")+".")
	}
	switch {
	case p.Schema.Default != nil:
		d, _ := json.Marshal(p.Schema.Default)
		parts = append(parts, fmt.Sprintf("Default %s.", d))
	case !required:
		parts = append(parts, "Optional.")
	}
	return strings.Join(parts, " ")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return lowerFirst(s)
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// sampleValue is a value that matches s: the schema's default, the first
// enum value, a placeholder for other scalars, and for objects their
// required properties.
func sampleValue(s *dataschema.Schema) any {
	if s.Default != nil {
		return s.Default
	}
	switch s.Type {
	case dataschema.Object:
		out := map[string]any{}
		for _, p := range s.Properties {
			if s.IsRequired(p.Name) {
				out[p.Name] = sampleValue(p.Schema)
			}
		}
		return out
	case dataschema.Array:
		return []any{}
	case dataschema.String:
		if len(s.Enum) > 0 {
			return s.Enum[0]
		}
		return "example"
	case dataschema.Integer, dataschema.Number:
		return 1.0
	}
	return true
}

// exampleJSON is the input the generated tests send: the first example,
// else a sample value.
func exampleJSON(d *manifest.Data) string {
	v := sampleValue(d.Schema)
	if len(d.Examples) > 0 {
		v = d.Examples[0]
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// literal renders a value that matches schema s as a Go expression of the
// generated type name (for the output of a skill stub).
func literal(name string, s *dataschema.Schema, v any, pointer bool) jen.Code {
	var code jen.Code
	switch s.Type {
	case dataschema.Object:
		m, _ := v.(map[string]any)
		var fields []jen.Code
		for _, p := range s.Properties {
			pv, ok := m[p.Name]
			if !ok {
				continue
			}
			optional := !s.IsRequired(p.Name) && p.Schema.Default == nil
			fields = append(fields, jen.Id(dataschema.GoName(p.Name)).Op(":").Add(literal(name+dataschema.GoName(p.Name), p.Schema, pv, optional && p.Schema.Type != dataschema.Array)))
		}
		code = jen.Id(name).Values(fields...)
		if pointer {
			return jen.Op("&").Add(code)
		}
		return code
	case dataschema.Array:
		list, _ := v.([]any)
		elem := (&typeGen{}).goType(name+"Item", s.Items)
		var items []jen.Code
		for _, e := range list {
			items = append(items, literal(name+"Item", s.Items, e, false))
		}
		return jen.Index().Add(elem).Values(items...)
	case dataschema.String:
		str, _ := v.(string)
		code = jen.Lit(str)
		if len(s.Enum) > 0 {
			code = jen.Id(name).Call(jen.Lit(str))
		}
	case dataschema.Integer:
		f, _ := v.(float64)
		code = jen.Lit(int(f))
	case dataschema.Number:
		f, _ := v.(float64)
		code = jen.Lit(f)
	default:
		b, _ := v.(bool)
		code = jen.Lit(b)
	}
	if pointer {
		return jen.Qual(pkgSkillData, "Ptr").Call(code)
	}
	return code
}

// typedSkills are the typed skills of the project, in order.
func (p *project) typedSkills() []skillCode {
	var out []skillCode
	for _, s := range p.skills {
		if s.typed() {
			out = append(out, s)
		}
	}
	return slices.Clip(out)
}
