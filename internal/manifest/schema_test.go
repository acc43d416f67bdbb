package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(Schema, &s); err != nil {
		t.Fatalf("schema/agent.schema.json: %v", err)
	}
	if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema is %v; want draft 2020-12", s["$schema"])
	}
	return s
}

// shapeKeys lists every key path the decoder knows: "skills[].id",
// "securitySchemes.*.flows.deviceCode.tokenUrl".
func shapeKeys(s *shape, prefix string, out map[string]bool) {
	for _, k := range s.keys {
		p := prefix + k.name
		out[p] = true
		switch k.layout {
		case nested:
			shapeKeys(k.elem, p+".", out)
		case list:
			shapeKeys(k.elem, p+"[].", out)
		case mapOf:
			shapeKeys(k.elem, p+".*.", out)
		}
	}
}

// schemaKeys lists every named property path of a JSON Schema, following
// $ref, items, additionalProperties and the applicators that add
// properties at the same level.
func schemaKeys(t *testing.T, root, node map[string]any, prefix string, out map[string]bool) {
	t.Helper()
	node = resolveRef(t, root, node)
	if props, ok := node["properties"].(map[string]any); ok {
		for name, sub := range props {
			subSchema, ok := sub.(map[string]any)
			if !ok { // false: a key forbidden here, not a key of the format
				continue
			}
			out[prefix+name] = true
			schemaKeys(t, root, subSchema, prefix+name+".", out)
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		schemaKeys(t, root, items, strings.TrimSuffix(prefix, ".")+"[].", out)
	}
	if ap, ok := node["additionalProperties"].(map[string]any); ok {
		schemaKeys(t, root, ap, prefix+"*.", out)
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := node[kw].([]any)
		for _, sub := range list {
			schemaKeys(t, root, sub.(map[string]any), prefix, out)
		}
	}
	for _, kw := range []string{"then", "else"} {
		if sub, ok := node[kw].(map[string]any); ok {
			schemaKeys(t, root, sub, prefix, out)
		}
	}
}

func resolveRef(t *testing.T, root, node map[string]any) map[string]any {
	t.Helper()
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			t.Fatalf("unsupported $ref %q", ref)
		}
		def, ok := root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok {
			t.Fatalf("$ref %q names no definition", ref)
		}
		// Sibling keywords of $ref are applied too (2020-12), so merge.
		merged := map[string]any{}
		for k, v := range def {
			merged[k] = v
		}
		for k, v := range node {
			if k != "$ref" {
				merged[k] = v
			}
		}
		node = merged
	}
}

// TestSchemaMatchesDecoder checks that the JSON Schema and the decoder know
// exactly the same keys, so editors complete what validate accepts.
func TestSchemaMatchesDecoder(t *testing.T) {
	root := loadSchema(t)
	decoderKeys, schemaKeySet := map[string]bool{}, map[string]bool{}
	shapeKeys(manifestShape, "", decoderKeys)
	schemaKeys(t, root, root, "", schemaKeySet)
	var onlyDecoder, onlySchema []string
	for k := range decoderKeys {
		if !schemaKeySet[k] {
			onlyDecoder = append(onlyDecoder, k)
		}
	}
	for k := range schemaKeySet {
		if !decoderKeys[k] {
			onlySchema = append(onlySchema, k)
		}
	}
	slices.Sort(onlyDecoder)
	slices.Sort(onlySchema)
	if len(onlyDecoder)+len(onlySchema) > 0 {
		t.Errorf("keys known to the decoder only: %v\nkeys in the schema only: %v", onlyDecoder, onlySchema)
	}
	if len(decoderKeys) < 60 {
		t.Errorf("only %d keys found; the walk is broken", len(decoderKeys))
	}
}

// TestDecoderReadsEveryKey decodes a manifest that uses every key and checks
// that the decoder looked at each key it declares, so no declared key is
// silently ignored.
func TestDecoderReadsEveryKey(t *testing.T) {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	read := map[*shape]map[string]bool{}
	if _, err := parse("full.yaml", data, read); err != nil {
		t.Fatal(err)
	}
	var visit func(s *shape)
	seen := map[*shape]bool{}
	visit = func(s *shape) {
		if seen[s] {
			return
		}
		seen[s] = true
		for _, k := range s.keys {
			if !read[s][k.name] {
				t.Errorf("%s.%s is declared but never decoded (or testdata/full.yaml lacks it)", s.name, k.name)
			}
			if k.elem != nil {
				visit(k.elem)
			}
		}
	}
	visit(manifestShape)
}

// TestSchemaAgreesWithValidate runs the valid manifests and the broken-case
// table through the JSON Schema: valid ones must pass, broken ones must fail
// unless the case says the rule is beyond JSON Schema.
func TestSchemaAgreesWithValidate(t *testing.T) {
	root := loadSchema(t)
	full, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"minimal": minimal, "full": string(full), "starter": string(Starter("x"))} {
		doc, err := yamlToJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if problems := validateSchema(root, root, doc, ""); len(problems) > 0 {
			t.Errorf("%s: the schema rejects a valid manifest:\n%s", name, strings.Join(problems, "\n"))
		}
	}
	for _, tc := range brokenCases {
		if tc.schemaMisses {
			continue
		}
		doc, err := yamlToJSON(tc.yaml)
		if err != nil {
			continue // not YAML at all: editors report the syntax error
		}
		if problems := validateSchema(root, root, doc, ""); len(problems) == 0 {
			t.Errorf("%s: the schema accepts a manifest validate rejects", tc.name)
		}
	}
}

func yamlToJSON(s string) (any, error) {
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return nil, err
	}
	return normalize(v), nil
}

// normalize turns yaml.v3's decoded values into encoding/json's.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalize(e)
		}
		return v
	case map[any]any:
		out := map[string]any{}
		for k, e := range v {
			out[fmt.Sprint(k)] = normalize(e)
		}
		return out
	case []any:
		for i, e := range v {
			v[i] = normalize(e)
		}
		return v
	case int:
		return float64(v)
	case time.Time:
		return v.Format(time.RFC3339)
	}
	return v
}

// validateSchema is a small JSON Schema 2020-12 validator for the keywords
// agent.schema.json uses; an unknown keyword fails the test, so the schema
// cannot drift into keywords nothing checks.
func validateSchema(root, schema map[string]any, v any, path string) []string {
	var problems []string
	fail := func(format string, args ...any) {
		problems = append(problems, path+": "+fmt.Sprintf(format, args...))
	}
	for kw, arg := range schema {
		switch kw {
		case "$schema", "title", "description", "default", "format", "$defs", "examples":
		case "$ref":
			name := strings.TrimPrefix(arg.(string), "#/$defs/")
			problems = append(problems, validateSchema(root, root["$defs"].(map[string]any)[name].(map[string]any), v, path)...)
		case "type":
			if !hasType(v, arg.(string)) {
				fail("want %s, got %T", arg, v)
			}
		case "const":
			if !cmp.Equal(v, arg) {
				fail("want %v", arg)
			}
		case "enum":
			if !slices.ContainsFunc(arg.([]any), func(e any) bool { return cmp.Equal(v, e) }) {
				fail("%v not in %v", v, arg)
			}
		case "pattern":
			if s, ok := v.(string); ok && !regexp.MustCompile(arg.(string)).MatchString(s) {
				fail("%q does not match %s", s, arg)
			}
		case "minLength":
			if s, ok := v.(string); ok && len([]rune(s)) < int(arg.(float64)) {
				fail("shorter than %v", arg)
			}
		case "minimum":
			if f, ok := v.(float64); ok && f < arg.(float64) {
				fail("below %v", arg)
			}
		case "maximum":
			if f, ok := v.(float64); ok && f > arg.(float64) {
				fail("above %v", arg)
			}
		case "minItems":
			if a, ok := v.([]any); ok && len(a) < int(arg.(float64)) {
				fail("fewer than %v items", arg)
			}
		case "uniqueItems":
			if a, ok := v.([]any); ok && arg.(bool) {
				for i := range a {
					if slices.ContainsFunc(a[:i], func(e any) bool { return cmp.Equal(e, a[i]) }) {
						fail("item %d repeats an earlier one", i)
					}
				}
			}
		case "contains":
			if a, ok := v.([]any); ok && !slices.ContainsFunc(a, func(e any) bool {
				return len(validateSchema(root, arg.(map[string]any), e, path)) == 0
			}) {
				fail("no item matches contains")
			}
		case "items":
			if a, ok := v.([]any); ok {
				for i, e := range a {
					problems = append(problems, validateSchema(root, arg.(map[string]any), e, fmt.Sprintf("%s[%d]", path, i))...)
				}
			}
		case "minProperties", "maxProperties":
			if o, ok := v.(map[string]any); ok {
				n := int(arg.(float64))
				if (kw == "minProperties" && len(o) < n) || (kw == "maxProperties" && len(o) > n) {
					fail("%s %d", kw, n)
				}
			}
		case "required":
			if o, ok := v.(map[string]any); ok {
				for _, r := range arg.([]any) {
					if _, has := o[r.(string)]; !has {
						fail("%s required", r)
					}
				}
			}
		case "properties":
			if o, ok := v.(map[string]any); ok {
				for name, sub := range arg.(map[string]any) {
					if e, has := o[name]; has {
						problems = append(problems, validateSubschema(root, sub, e, path+"."+name)...)
					}
				}
			}
		case "additionalProperties":
			if o, ok := v.(map[string]any); ok {
				props, _ := schema["properties"].(map[string]any)
				for name, e := range o {
					if _, declared := props[name]; !declared {
						problems = append(problems, validateSubschema(root, arg, e, path+"."+name)...)
					}
				}
			}
		case "propertyNames":
			if o, ok := v.(map[string]any); ok {
				for name := range o {
					problems = append(problems, validateSchema(root, arg.(map[string]any), name, path+"."+name)...)
				}
			}
		case "allOf":
			for _, sub := range arg.([]any) {
				problems = append(problems, validateSchema(root, sub.(map[string]any), v, path)...)
			}
		case "anyOf":
			if !slices.ContainsFunc(arg.([]any), func(sub any) bool {
				return len(validateSchema(root, sub.(map[string]any), v, path)) == 0
			}) {
				fail("matches none of anyOf")
			}
		case "not":
			if len(validateSchema(root, arg.(map[string]any), v, path)) == 0 {
				fail("matches a schema it must not")
			}
		case "if":
			branch := "else"
			if len(validateSchema(root, arg.(map[string]any), v, path)) == 0 {
				branch = "then"
			}
			if sub, ok := schema[branch].(map[string]any); ok {
				problems = append(problems, validateSchema(root, sub, v, path)...)
			}
		case "then", "else":
		default:
			problems = append(problems, "schema keyword "+kw+" is not supported by the test validator")
		}
	}
	return problems
}

func validateSubschema(root map[string]any, schema, v any, path string) []string {
	switch s := schema.(type) {
	case bool:
		if !s {
			return []string{path + ": not allowed"}
		}
		return nil
	case map[string]any:
		return validateSchema(root, s, v, path)
	}
	return []string{path + ": bad subschema"}
}

func hasType(v any, typ string) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "number":
		_, ok := v.(float64)
		return ok
	case "null":
		return v == nil
	}
	return false
}
