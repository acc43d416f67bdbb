package manifest

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// askUserTool is the tool every LLM skill has (host/llm.AskUserTool).
const askUserTool = "ask_user"

// toolName is what the model APIs accept as a function name.
var toolName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// remoteAgentName names a remote agent and its flag -remote-<name>-url.
var remoteAgentName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// envName is an environment variable's name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (d *decoder) modelProvider(n *yaml.Node, path string) *ModelProvider {
	f, ok := d.mapping(n, path, modelProviderShape)
	if !ok {
		return nil
	}
	p := &ModelProvider{
		BaseURL:    f.url("baseUrl", checkHTTPURL),
		Model:      f.text("model"),
		APIKeyEnv:  f.text("apiKeyEnv"),
		Timeout:    f.duration("timeout"),
		MaxRetries: f.integer("maxRetries"),
		Pos:        Position{deref(n).Line, deref(n).Column},
	}
	if p.APIKeyEnv != "" && !envName.MatchString(p.APIKeyEnv) {
		d.errorf(f.get("apiKeyEnv"), f.sub("apiKeyEnv"), "%q is not an environment variable name (letters, digits and \"_\", not starting with a digit); name the variable, never the key itself", p.APIKeyEnv)
	}
	if p.MaxRetries != nil && (*p.MaxRetries < 0 || *p.MaxRetries > 100) {
		d.errorf(f.get("maxRetries"), f.sub("maxRetries"), "must be from 0 to 100, got %d", *p.MaxRetries)
	}
	return p
}

// llmSkill decodes a skill's llm section; tool and agent names are checked
// against the manifest's lists later (llmReferences).
func (d *decoder) llmSkill(n *yaml.Node, path string) *LLMSkill {
	f, ok := d.mapping(n, path, llmShape)
	if !ok {
		return nil
	}
	s := &LLMSkill{Instructions: f.text("instructions"), Pos: Position{deref(n).Line, deref(n).Column}}
	if t := f.number("temperature"); t != nil {
		if *t < 0 || *t > 2 {
			d.errorf(f.get("temperature"), f.sub("temperature"), "must be from 0 to 2, got %v", *t)
		}
		s.Temperature = t
	}
	if v := f.integer("maxTokens"); v != nil {
		if *v < 1 {
			d.errorf(f.get("maxTokens"), f.sub("maxTokens"), "must be positive, got %d; leave it out for the endpoint's default", *v)
		}
		s.MaxTokens = *v
	}
	if v := f.integer("memoryBytes"); v != nil {
		if *v < 1024 {
			d.errorf(f.get("memoryBytes"), f.sub("memoryBytes"), "must be at least 1024, got %d; leave it out for the default (65536)", *v)
		}
		s.MemoryBytes = *v
	}
	s.Tools = f.strings("tools", nil)
	s.RemoteAgents = f.strings("remoteAgents", nil)
	d.llmRefs = append(d.llmRefs, llmRef{f: f, skill: s})
	return s
}

// llmRef is a decoded llm section, kept to check its references once the
// whole manifest is read.
type llmRef struct {
	f     fields
	skill *LLMSkill
}

// number reads an optional number key (integer or decimal); nil when
// absent or null.
func (f fields) number(name string) *float64 {
	n := f.get(name)
	if n == nil || isNull(n) {
		return nil
	}
	var v float64
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || n.Decode(&v) != nil {
		f.d.errorf(n, f.sub(name), "expected a number, got %s", describe(n))
		return nil
	}
	return &v
}

func (d *decoder) tools(f fields) []Tool {
	var out []Tool
	first := map[string]string{}
	for i, e := range f.items("tools") {
		p := index("tools", i)
		tf, ok := d.mapping(e, p, toolShape)
		if !ok {
			continue
		}
		t := Tool{Name: tf.text("name"), Description: tf.text("description"), Pos: Position{e.Line, e.Column}}
		switch {
		case t.Name == "":
		case t.Name == askUserTool:
			d.errorf(tf.get("name"), tf.sub("name"), "%q is the tool every LLM skill has already (the model asks the user, the task becomes INPUT_REQUIRED); give yours another name", askUserTool)
		case !toolName.MatchString(t.Name):
			d.errorf(tf.get("name"), tf.sub("name"), "tool name %q must start with a letter and hold only letters, digits, \"_\" and \"-\" (at most 64), as the model APIs require", t.Name)
		}
		if t.Name != "" {
			// Tools become Go functions named after them (tool<Name>).
			key := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(t.Name))
			if other, dup := first[key]; dup {
				d.errorf(tf.get("name"), tf.sub("name"), "tools %q and %q differ only in case, \"-\" and \"_\", so their Go functions or files would collide; rename one of them", other, t.Name)
			} else {
				first[key] = t.Name
			}
		}
		if n := tf.get("input"); n != nil {
			t.Input = d.data(n, tf.sub("input"))
		}
		out = append(out, t)
	}
	return out
}

func (d *decoder) remoteAgents(f fields) []RemoteAgent {
	var out []RemoteAgent
	first := map[string]int{}
	for i, e := range f.items("remoteAgents") {
		p := index("remoteAgents", i)
		rf, ok := d.mapping(e, p, remoteAgentShape)
		if !ok {
			continue
		}
		r := RemoteAgent{Name: rf.text("name"), URL: rf.url("url", checkHTTPURL), Pos: Position{e.Line, e.Column}}
		if r.Name != "" {
			if !remoteAgentName.MatchString(r.Name) {
				d.errorf(rf.get("name"), rf.sub("name"), "remote agent name %q must start with a lower-case letter and hold only lower-case letters, digits and \"-\" (at most 40): it names the flag -remote-<name>-url", r.Name)
			}
			if j, dup := first[r.Name]; dup {
				d.errorf(rf.get("name"), rf.sub("name"), "duplicate remote agent %q (first at remoteAgents[%d])", r.Name, j)
			} else {
				first[r.Name] = i
			}
		}
		rf.nonEmptyList("skills", "skill id")
		r.Skills = rf.strings("skills", nil)
		for j, c := range rf.items("credentials") {
			cp := index(rf.sub("credentials"), j)
			cf, ok := d.mapping(c, cp, remoteCredentialShape)
			if !ok {
				continue
			}
			rc := RemoteCredential{Scheme: cf.text("scheme"), Env: cf.text("env")}
			if rc.Env != "" && !envName.MatchString(rc.Env) {
				d.errorf(cf.get("env"), cf.sub("env"), "%q is not an environment variable name (letters, digits and \"_\", not starting with a digit); name the variable, never the secret itself", rc.Env)
			}
			r.Credentials = append(r.Credentials, rc)
		}
		out = append(out, r)
	}
	return out
}

// llmChecks relate the LLM sections: an llm skill needs modelProvider, names
// declared tools and remote agents, and takes no typed input; modelProvider
// needs an llm skill.
func (d *decoder) llmChecks(f fields, m *Manifest) {
	tools := map[string]bool{}
	var toolNames []string
	for _, t := range m.Tools {
		tools[t.Name] = true
		toolNames = append(toolNames, t.Name)
	}
	agents := map[string]bool{}
	var agentNames []string
	for _, r := range m.RemoteAgents {
		agents[r.Name] = true
		agentNames = append(agentNames, r.Name)
	}
	for _, ref := range d.llmRefs {
		d.references(ref.f, "tools", tools, toolNames, "tool", "tools")
		d.references(ref.f, "remoteAgents", agents, agentNames, "remote agent", "remoteAgents")
	}
	if len(d.llmRefs) > 0 && m.ModelProvider == nil {
		at := d.llmRefs[0].f
		d.errorf(at.node, at.path, "an llm skill needs the model endpoint: add a modelProvider section (baseUrl, model) at the top level")
	}
	if n := f.get("modelProvider"); n != nil && len(d.llmRefs) == 0 {
		d.errorf(n, "modelProvider", "no skill has an llm section, so the model endpoint would be unused; add llm to a skill or remove modelProvider")
	}
}

// references checks that every name of an llm section's list is declared
// in the manifest's top-level list key.
func (d *decoder) references(f fields, name string, declared map[string]bool, all []string, what, key string) {
	n := f.get(name)
	if n == nil || deref(n).Kind != yaml.SequenceNode {
		return // reported by strings
	}
	for i, e := range deref(n).Content {
		e = deref(e)
		if e.Kind != yaml.ScalarNode || e.ShortTag() != "!!str" || e.Value == "" || declared[e.Value] {
			continue // reported by strings, or fine
		}
		p := index(f.sub(name), i)
		switch best := suggest(e.Value, all); {
		case len(all) == 0:
			d.errorf(e, p, "unknown %s %q: declare it under %s at the top level", what, e.Value, key)
		case best != "":
			d.errorf(e, p, "unknown %s %q; did you mean %q?", what, e.Value, best)
		default:
			d.errorf(e, p, "unknown %s %q (declared under %s: %s)", what, e.Value, key, strings.Join(all, ", "))
		}
	}
}

// llmSkillChecks checks what a skill with llm may not have: typed input
// (the model reads the message itself).
func (d *decoder) llmSkillChecks(f fields, s Skill) {
	if s.LLM != nil && s.Input != nil {
		d.errorf(f.get("input"), f.sub("input"), "a skill with llm reads the message as the model does and takes no typed input; remove input (output is supported: the model is asked for JSON of output.schema)")
	}
}
