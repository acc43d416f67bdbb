package manifest

import (
	"bytes"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"text/template"
)

//go:embed starter.yaml.tmpl
var starterText string

//go:embed starter_llm.yaml.tmpl
var starterLLMText string

var starterFuncs = template.FuncMap{
	"quote":   strconv.Quote, // a Go quoted string is a valid YAML double-quoted scalar
	"oneLine": func(s string) string { return strings.Join(strings.Fields(s), " ") },
}

var (
	starterTemplate    = template.Must(template.New("agent.yaml").Funcs(starterFuncs).Parse(starterText))
	starterLLMTemplate = template.Must(template.New("agent.yaml").Funcs(starterFuncs).Parse(starterLLMText))
)

// Starter templates: the manifests a2a-scaffold new --template writes.
const (
	// TemplateEcho is one echo skill in Go (the default).
	TemplateEcho = "echo"
	// TemplateLLM is a model-backed agent: a chat skill and a typed
	// summarize skill answered by a model (modelProvider: Ollama).
	TemplateLLM = "llm"
)

// Templates lists the starter templates.
var Templates = []string{TemplateEcho, TemplateLLM}

// StarterOf returns the starter manifest of template for an agent called
// name (see Starter); an unknown template is an error listing them.
func StarterOf(template, name string) ([]byte, error) {
	switch template {
	case "", TemplateEcho:
		return Starter(name), nil
	case TemplateLLM:
		return renderStarter(starterLLMTemplate, name), nil
	}
	return nil, fmt.Errorf("unknown template %q (want one of %s)", template, strings.Join(Templates, ", "))
}

// Starter returns a documented manifest for a new agent called name, which
// validates as it is: one echo skill served over JSON-RPC and HTTP+JSON,
// with every optional section present as a commented example. The Go module
// path is example.com/ followed by name in lower case with runs of other
// characters turned into "-".
func Starter(name string) []byte {
	return renderStarter(starterTemplate, name)
}

func renderStarter(t *template.Template, name string) []byte {
	if strings.TrimSpace(name) == "" {
		name = "agent"
	}
	var b bytes.Buffer
	// The template is fixed and its data cannot fail to render.
	_ = t.Execute(&b, struct{ Name, Module string }{name, "example.com/" + Slug(name)})
	return b.Bytes()
}

// Slug lower-cases s and replaces each run of characters other than ASCII
// letters and digits with one "-" ("Travel Agent" → "travel-agent"); it is
// "agent" when nothing remains. Module paths and program names use it.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "agent"
	}
	return b.String()
}
