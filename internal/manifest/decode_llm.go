package manifest

import (
	"math"
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
		MaxRetries: f.retries("maxRetries"),
		Pos:        Position{deref(n).Line, deref(n).Column},
	}
	f.matches("apiKeyEnv", p.APIKeyEnv, envName.MatchString, "%q is not an environment variable name (letters, digits and \"_\", not starting with a digit); name the variable, never the key itself")
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
	s.Temperature = bounded(f, "temperature", f.number("temperature"), 0, 2, "must be from 0 to 2, got %v")
	s.MaxTokens = orZero(bounded(f, "maxTokens", f.integer("maxTokens"), 1, math.MaxInt, "must be positive, got %d; leave it out for the endpoint's default"))
	s.MemoryBytes = orZero(bounded(f, "memoryBytes", f.integer("memoryBytes"), 1024, math.MaxInt, "must be at least 1024, got %d; leave it out for the default (65536)"))
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
	for _, tf := range f.mappings("tools", toolShape) {
		t := Tool{Name: tf.text("name"), Description: tf.text("description"), Pos: tf.pos()}
		if t.Name != "" {
			d.toolName(tf, t.Name, first)
		}
		t.Input = optional(tf, "input", d.data)
		out = append(out, t)
	}
	return out
}

// toolName checks a tool's name: one the model APIs accept, not the
// built-in ask_user, and distinct from the names in first (by the key of
// its Go function, tool<Name>) which it joins.
func (d *decoder) toolName(tf fields, name string, first map[string]string) {
	switch {
	case name == askUserTool:
		d.errorf(tf.get("name"), tf.sub("name"), "%q is the tool every LLM skill has already (the model asks the user, the task becomes INPUT_REQUIRED); give yours another name", askUserTool)
	case !toolName.MatchString(name):
		d.errorf(tf.get("name"), tf.sub("name"), "tool name %q must start with a letter and hold only letters, digits, \"_\" and \"-\" (at most 64), as the model APIs require", name)
	}
	key := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
	if other, dup := first[key]; dup {
		d.errorf(tf.get("name"), tf.sub("name"), "tools %q and %q differ only in case, \"-\" and \"_\", so their Go functions or files would collide; rename one of them", other, name)
		return
	}
	first[key] = name
}

func (d *decoder) remoteAgents(f fields) []RemoteAgent {
	var out []RemoteAgent
	first := map[string]int{}
	for i, rf := range f.mappings("remoteAgents", remoteAgentShape) {
		r := RemoteAgent{Name: rf.text("name"), URL: rf.url("url", checkHTTPURL), Pos: rf.pos()}
		if r.Name != "" {
			d.remoteAgentName(rf, r.Name, i, first)
		}
		rf.nonEmptyList("skills", "skill id")
		r.Skills = rf.strings("skills", nil)
		r.Credentials = d.remoteCredentials(rf)
		out = append(out, r)
	}
	return out
}

// remoteAgentName checks the name of remoteAgents[i]: a flag name, and
// distinct from the names in first, which it joins.
func (d *decoder) remoteAgentName(rf fields, name string, i int, first map[string]int) {
	rf.matches("name", name, remoteAgentName.MatchString, "remote agent name %q must start with a lower-case letter and hold only lower-case letters, digits and \"-\" (at most 40): it names the flag -remote-<name>-url")
	if j, dup := first[name]; dup {
		d.errorf(rf.get("name"), rf.sub("name"), "duplicate remote agent %q (first at remoteAgents[%d])", name, j)
		return
	}
	first[name] = i
}

// remoteCredentials reads the credentials a remote agent is called with:
// each a security scheme of its card and the variable holding the secret.
func (d *decoder) remoteCredentials(rf fields) []RemoteCredential {
	var out []RemoteCredential
	for _, cf := range rf.mappings("credentials", remoteCredentialShape) {
		rc := RemoteCredential{Scheme: cf.text("scheme"), Env: cf.text("env")}
		cf.matches("env", rc.Env, envName.MatchString, "%q is not an environment variable name (letters, digits and \"_\", not starting with a digit); name the variable, never the secret itself")
		out = append(out, rc)
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
