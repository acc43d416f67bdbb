package manifest

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// llmMinimal is minimal with a model-backed skill.
const llmMinimal = `apiVersion: a2agen/v1
name: Echo
description: Echoes.
version: "1.0.0"
bindings:
  - binding: JSONRPC
modelProvider:
  baseUrl: http://localhost:11434/v1
  model: llama3.2
skills:
  - id: chat
    name: Chat
    description: Talks.
    tags: [demo]
    llm:
      instructions: Be brief.
`

// llmBrokenCases are manifests whose LLM sections are wrong, with the
// exact messages validate prints.
var llmBrokenCases = []brokenCase{
	{
		name: "llm settings out of range",
		yaml: minimal + `    llm:
      instructions: ""
      temperature: 2.5
      maxTokens: 0
      memoryBytes: 10
      tools: [lookup_wether, nope]
      remoteAgents: [packing]
modelProvider:
  baseUrl: localhost:11434
  model: llama3.2
  apiKeyEnv: sk-123
  timeout: soon
  maxRetries: 101
tools:
  - name: lookup_weather
    description: Looks up the weather.
  - name: ask_user
    description: Asks.
  - name: lookup-weather
    description: Again.
  - name: 1tool
    description: Numbered.
`,
		want: []string{
			`agent.yaml:13:21: skills[0].llm.instructions: must not be empty`,
			`agent.yaml:14:20: skills[0].llm.temperature: must be from 0 to 2, got 2.5`,
			`agent.yaml:15:18: skills[0].llm.maxTokens: must be positive, got 0; leave it out for the endpoint's default`,
			`agent.yaml:16:20: skills[0].llm.memoryBytes: must be at least 1024, got 10; leave it out for the default (65536)`,
			`agent.yaml:17:15: skills[0].llm.tools[0]: unknown tool "lookup_wether"; did you mean "lookup_weather"?`,
			`agent.yaml:17:30: skills[0].llm.tools[1]: unknown tool "nope" (declared under tools: lookup_weather, ask_user, lookup-weather, 1tool)`,
			`agent.yaml:18:22: skills[0].llm.remoteAgents[0]: unknown remote agent "packing": declare it under remoteAgents at the top level`,
			`agent.yaml:20:12: modelProvider.baseUrl: invalid URL "localhost:11434": must be an absolute http:// or https:// URL`,
			`agent.yaml:22:14: modelProvider.apiKeyEnv: "sk-123" is not an environment variable name (letters, digits and "_", not starting with a digit); name the variable, never the key itself`,
			`agent.yaml:23:12: modelProvider.timeout: invalid duration "soon": use a number with a unit, such as "500ms", "10s" or "1m"`,
			`agent.yaml:24:15: modelProvider.maxRetries: must be from 0 to 100, got 101`,
			`agent.yaml:28:11: tools[1].name: "ask_user" is the tool every LLM skill has already (the model asks the user, the task becomes INPUT_REQUIRED); give yours another name`,
			`agent.yaml:30:11: tools[2].name: tools "lookup_weather" and "lookup-weather" differ only in case, "-" and "_", so their Go functions or files would collide; rename one of them`,
			`agent.yaml:32:11: tools[3].name: tool name "1tool" must start with a letter and hold only letters, digits, "_" and "-" (at most 64), as the model APIs require`,
		},
	},
	{
		name: "llm needs a model provider and no typed input",
		yaml: minimal + `    inputModes: [application/json]
    input:
      schema: {type: object, properties: {q: {type: string}}}
    llm:
      instructions: Be brief.
`,
		want: []string{
			`agent.yaml:14:7: skills[0].input: a skill with llm reads the message as the model does and takes no typed input; remove input (output is supported: the model is asked for JSON of output.schema)`,
			`agent.yaml:16:7: skills[0].llm: an llm skill needs the model endpoint: add a modelProvider section (baseUrl, model) at the top level`,
		},
		schemaMisses: true,
	},
	{
		name: "model provider without an llm skill",
		yaml: minimal + `modelProvider:
  baseUrl: http://localhost:11434/v1
  model: llama3.2
`,
		want: []string{
			`agent.yaml:13:3: modelProvider: no skill has an llm section, so the model endpoint would be unused; add llm to a skill or remove modelProvider`,
		},
		schemaMisses: true,
	},
	{
		name: "remote agents",
		yaml: llmMinimal + `      remoteAgents: [packing, Weather]
remoteAgents:
  - name: packing
    url: packing.example.com
    skills: []
    credentials:
      - scheme: bearer
        env: "$TOKEN"
      - env: TOKEN
  - name: packing
    url: https://packing.example.com
  - name: Weather
    url: https://weather.example.com
`,
		want: []string{
			`agent.yaml:20:10: remoteAgents[0].url: invalid URL "packing.example.com": must be an absolute http:// or https:// URL`,
			`agent.yaml:21:13: remoteAgents[0].skills: must list at least one skill id`,
			`agent.yaml:24:14: remoteAgents[0].credentials[0].env: "$TOKEN" is not an environment variable name (letters, digits and "_", not starting with a digit); name the variable, never the secret itself`,
			`agent.yaml:25:9: remoteAgents[0].credentials[1].scheme: required`,
			`agent.yaml:26:11: remoteAgents[1].name: duplicate remote agent "packing" (first at remoteAgents[0])`,
			`agent.yaml:28:11: remoteAgents[2].name: remote agent name "Weather" must start with a lower-case letter and hold only lower-case letters, digits and "-" (at most 40): it names the flag -remote-<name>-url`,
		},
	},
}

// TestLLMSectionsValidate: every problem of the LLM sections is reported at
// its place, with what to do.
func TestLLMSectionsValidate(t *testing.T) {
	for _, tc := range llmBrokenCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("agent.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error; want %d problems", len(tc.want))
			}
			if diff := cmp.Diff(tc.want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLLMSectionsDecode: a valid manifest's LLM sections arrive as written.
func TestLLMSectionsDecode(t *testing.T) {
	m, err := Parse("agent.yaml", []byte(llmMinimal+`      temperature: 0.5
      maxTokens: 300
      tools: [clock]
      remoteAgents: [packing]
  - id: plain
    name: Plain
    description: Go code.
    tags: [demo]
tools:
  - name: clock
    description: Tells the time.
remoteAgents:
  - name: packing
    url: https://packing.example.com
    skills: [packing]
    credentials:
      - scheme: bearer
        env: PACKING_TOKEN
`))
	if err != nil {
		t.Fatal(err)
	}
	s := m.Skills[0].LLM
	if s == nil || s.Instructions != "Be brief." || *s.Temperature != 0.5 || s.MaxTokens != 300 || s.Tools[0] != "clock" || s.RemoteAgents[0] != "packing" {
		t.Errorf("llm %+v", s)
	}
	if m.Skills[1].LLM != nil || !m.HasLLMSkills() {
		t.Errorf("plain skill llm %+v, HasLLMSkills %v", m.Skills[1].LLM, m.HasLLMSkills())
	}
	if p := m.ModelProvider; p.BaseURL != "http://localhost:11434/v1" || p.Model != "llama3.2" || p.MaxRetries != nil {
		t.Errorf("modelProvider %+v", p)
	}
	r := m.RemoteAgents[0]
	if r.Name != "packing" || r.URL != "https://packing.example.com" || r.Skills[0] != "packing" || r.Credentials[0] != (RemoteCredential{"bearer", "PACKING_TOKEN"}) {
		t.Errorf("remote agent %+v", r)
	}
	if m.Tools[0].Name != "clock" || m.Tools[0].Input != nil {
		t.Errorf("tool %+v", m.Tools[0])
	}
}

// TestLLMSectionsSchema: the JSON Schema accepts the valid LLM manifest and
// rejects the broken ones it can express.
func TestLLMSectionsSchema(t *testing.T) {
	root := loadSchema(t)
	doc, err := yamlToJSON(llmMinimal)
	if err != nil {
		t.Fatal(err)
	}
	if problems := validateSchema(root, root, doc, ""); len(problems) > 0 {
		t.Errorf("the schema rejects a valid manifest:\n%s", strings.Join(problems, "\n"))
	}
	for _, tc := range llmBrokenCases {
		if tc.schemaMisses {
			continue
		}
		doc, err := yamlToJSON(tc.yaml)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if problems := validateSchema(root, root, doc, ""); len(problems) == 0 {
			t.Errorf("%s: the schema accepts a manifest validate rejects", tc.name)
		}
	}
}

// TestLLMStarter: the llm template's manifest is valid as it is, for the
// decoder and the JSON Schema, and has model-backed skills; an unknown
// template is refused naming the known ones.
func TestLLMStarter(t *testing.T) {
	data, err := StarterOf(TemplateLLM, "Assistant")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse("agent.yaml", data)
	if err != nil {
		t.Fatalf("the llm starter is invalid:\n%v", err)
	}
	if !m.HasLLMSkills() || m.ModelProvider == nil || m.Skills[1].Output == nil {
		t.Errorf("the llm starter has no llm skills, model provider or typed skill: %+v", m)
	}
	root := loadSchema(t)
	doc, err := yamlToJSON(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if problems := validateSchema(root, root, doc, ""); len(problems) > 0 {
		t.Errorf("the schema rejects the llm starter:\n%s", strings.Join(problems, "\n"))
	}
	if _, err := StarterOf("crew", "x"); err == nil || !strings.Contains(err.Error(), "echo, llm") {
		t.Errorf("unknown template: %v", err)
	}
}

// TestLLMStarterGolden: the golden scaffold case llm is the llm template's
// manifest, so its reviewed tree is what new --template llm writes.
func TestLLMStarterGolden(t *testing.T) {
	want, err := StarterOf(TemplateLLM, "Assistant")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../testdata/golden/scaffold/llm/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("testdata/golden/scaffold/llm/agent.yaml is not the llm starter of \"Assistant\" (-starter +golden):\n%s\nrewrite it and run make golden", diff)
	}
}
