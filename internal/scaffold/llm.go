package scaffold

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/a2agen/a2agen/internal/manifest"
)

// The Go code of a model-backed agent (host/llm): the generated
// a2a_llm.gen.go (the provider, each llm skill, the tools and the remote
// agents, their flags), the user's hook file of each llm skill and the
// user's file of each tool.

const (
	pkgLLM       = "github.com/a2agen/a2agen/host/llm"
	pkgLLMTest   = "github.com/a2agen/a2agen/host/llm/llmtest"
	pkgAgentCard = "github.com/a2agen/a2agen/agentcard"
	pkgOpenAI    = "github.com/openai/openai-go/v3"
)

// llmFile is the generated file of the LLM sections; "" when no skill has
// llm.
const llmFile = "a2a_llm.gen.go"

// llmCode is what an llm skill adds to its skillCode.
type llmCode struct {
	// LLMVar is its llm.Skill (llmPlan); RequestHook and ResultHook are the
	// user's functions in File (skillPlanRequest, skillPlanResult).
	LLMVar, RequestHook, ResultHook string
}

// llmNames fills in the names of an llm skill: its hook file is
// skill_<id>_llm.go, so that a skill turning from Go code into llm (or
// back) leaves the other file as an orphan generate reports.
func llmNames(s *skillCode) {
	if s.LLM == nil {
		return
	}
	base := camel(s.ID)
	s.File = strings.TrimSuffix(s.File, ".go") + "_llm.go"
	s.LLMVar = "llm" + base
	s.RequestHook, s.ResultHook = s.Func+"Request", s.Func+"Result"
}

// toolCode is how one tool of the manifest appears in the project.
type toolCode struct {
	manifest.Tool
	Func string // the user's function, toolLookupWeather
	Var  string // its llm.Tool, llmToolLookupWeather
	File string // tool_lookup_weather.go
}

func toolCodes(m *manifest.Manifest) []toolCode {
	var out []toolCode
	for _, t := range m.Tools {
		base := camel(t.Name)
		out = append(out, toolCode{Tool: t, Func: "tool" + base, Var: "llmTool" + base,
			File: "tool_" + strings.Map(func(r rune) rune {
				if r == '-' {
					return '_'
				}
				return unicode.ToLower(r)
			}, t.Name) + ".go"})
	}
	return out
}

// remoteVar is the llm.RemoteAgent variable of a remote agent.
func remoteVar(name string) string { return "remote" + camel(name) }

// RemoteFlag is the flag of the agent that overrides a remote agent's URL.
func RemoteFlag(name string) string { return "remote-" + name + "-url" }

// structuredName is the name host/llm gives a skill's structured output
// (its response_format's json_schema.name): the id, characters other than
// letters, digits, '_' and '-' as '_'.
func structuredName(id string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-') {
			return r
		}
		return '_'
	}, id)
}

// llmGoFile renders the generated file of the LLM sections.
func (p *project) llmGoFile() ([]byte, error) {
	f := newGoFile(true)
	f.ImportName(pkgLLM, "llm")
	f.ImportName(pkgAgentCard, "agentcard")
	p.modelVar(f)
	for _, r := range p.m.RemoteAgents {
		f.Line()
		p.remoteAgentVar(f, r)
	}
	for _, t := range p.tools {
		f.Line()
		toolVar(f, t)
	}
	for _, s := range p.skills {
		if s.LLM == nil {
			continue
		}
		f.Line()
		if err := p.llmSkillVar(f, s); err != nil {
			return nil, err
		}
	}
	f.Line()
	p.llmFlagsFunc(f)
	return render(f)
}

// modelVar writes model, the llm.Provider of modelProvider.
func (p *project) modelVar(f *jen.File) {
	mp := p.m.ModelProvider
	docLines(f, "model is the endpoint of the skills a language model answers: modelProvider of agent.yaml (maxRetries: 0 is MaxRetries: -1, none). The flags -llm-base-url, -llm-model, -llm-api-key-env, -llm-timeout and -llm-max-retries (A2A_LLM_* variables) override it; the API key is read from the variable -llm-api-key-env names.")
	f.Var().Id("model").Op("=").Op("&").Qual(pkgLLM, "Provider").CustomFunc(multi, func(g *jen.Group) {
		g.Id("BaseURL").Op(":").Lit(mp.BaseURL)
		g.Id("Model").Op(":").Lit(mp.Model)
		if mp.APIKeyEnv != "" {
			g.Id("APIKeyEnv").Op(":").Lit(mp.APIKeyEnv)
		}
		if mp.Timeout > 0 {
			g.Id("Timeout").Op(":").Add(duration(mp.Timeout))
		}
		if mp.MaxRetries != nil {
			g.Id("MaxRetries").Op(":").Lit(providerRetries(*mp.MaxRetries))
		}
	})
}

// providerRetries is llm.Provider's MaxRetries for maxRetries of agent.yaml:
// the same, except that the provider's 0 is its default, so none is -1.
func providerRetries(maxRetries int) int {
	if maxRetries == 0 {
		return -1
	}
	return maxRetries
}

// toolVar writes the llm.Tool of a tool of the manifest.
func toolVar(f *jen.File, t toolCode) {
	docLines(f, fmt.Sprintf("%s is tool %q of agent.yaml, answered by %s (%s).", t.Var, t.Name, t.Func, t.File))
	f.Var().Id(t.Var).Op("=").Qual(pkgLLM, "Tool").CustomFunc(multi, func(g *jen.Group) {
		g.Id("Name").Op(":").Lit(t.Name)
		g.Id("Description").Op(":").Lit(t.Description)
		if params := toolParameters(t); params != nil {
			g.Id("Parameters").Op(":").Add(params)
		}
		g.Id("Call").Op(":").Id(t.Func)
	})
}

// toolParameters is the JSON schema of a tool's input as
// llm.ParametersJSON; nil for a tool without input.
func toolParameters(t toolCode) jen.Code {
	if t.Input == nil {
		return nil
	}
	schema, err := t.Input.Schema.MarshalJSON()
	if err != nil {
		return nil
	}
	return jen.Qual(pkgLLM, "ParametersJSON").Call(stringConst(string(schema)))
}

// llmFlagsFunc writes llmFlags, which adds the model's flags and one per
// remote agent.
func (p *project) llmFlagsFunc(f *jen.File) {
	docLines(f, "llmFlags adds the model's flags and, per remote agent, -remote-<name>-url to the agent's (host.Config.Flags): each also reads its A2A_ variable.")
	f.Func().Id("llmFlags").Params(jen.Id("fs").Op("*").Qual("flag", "FlagSet")).BlockFunc(func(g *jen.Group) {
		g.Id("model").Dot("Flags").Call(jen.Id("fs"))
		for _, r := range p.m.RemoteAgents {
			v := remoteVar(r.Name)
			g.Id("fs").Dot("StringVar").Call(jen.Op("&").Id(v).Dot("URL"), jen.Lit(RemoteFlag(r.Name)), jen.Id(v).Dot("URL"),
				jen.Lit(fmt.Sprintf("base `URL` of the remote agent %s (remoteAgents of agent.yaml), whose card is at /.well-known/agent-card.json there", r.Name)))
		}
	})
}

func (p *project) remoteAgentVar(f *jen.File, r manifest.RemoteAgent) {
	doc := fmt.Sprintf("%s is remote agent %q of agent.yaml: its skills", remoteVar(r.Name), r.Name)
	if len(r.Skills) > 0 {
		doc += " " + strings.Join(r.Skills, ", ")
	}
	doc += fmt.Sprintf(" are tools of the llm skills that name it, each call an A2A call to it. Its card is read on the first turn that needs it; -%s overrides the URL.", RemoteFlag(r.Name))
	docLines(f, doc)
	f.Var().Id(remoteVar(r.Name)).Op("=").Op("&").Qual(pkgLLM, "RemoteAgent").CustomFunc(multi, func(g *jen.Group) {
		g.Id("URL").Op(":").Lit(r.URL)
		if len(r.Skills) > 0 {
			g.Id("Skills").Op(":").Add(stringSlice(r.Skills))
		}
		if len(r.Credentials) > 0 {
			g.Id("Options").Op(":").Index().Qual(pkgAgentCard, "Option").CustomFunc(multi, func(g *jen.Group) {
				for _, c := range r.Credentials {
					g.Qual(pkgAgentCard, "WithCredentials").Call(jen.Lit(c.Scheme), jen.Qual(pkgAgentCard, "EnvCredentials").Call(jen.Lit(c.Env)))
				}
			})
		}
	})
}

func (p *project) llmSkillVar(f *jen.File, s skillCode) error {
	docLines(f, fmt.Sprintf("%s is skill %q (%s) of agent.yaml, answered by the model; its hooks, %s and %s, are in %s.", s.LLMVar, s.ID, s.Name, s.RequestHook, s.ResultHook, s.File))
	outSchema, err := outputSchema(s)
	if err != nil {
		return err
	}
	f.Var().Id(s.LLMVar).Op("=").Qual(pkgLLM, "Skill").CustomFunc(multi, func(g *jen.Group) {
		l := s.LLM
		g.Id("ID").Op(":").Lit(s.ID)
		g.Id("Instructions").Op(":").Add(stringConst(l.Instructions))
		if l.Temperature != nil {
			g.Id("Temperature").Op(":").New(jen.Lit(*l.Temperature))
		}
		if l.MaxTokens > 0 {
			g.Id("MaxTokens").Op(":").Lit(l.MaxTokens)
		}
		if l.MemoryBytes > 0 {
			g.Id("MemoryBytes").Op(":").Lit(l.MemoryBytes)
		}
		if outSchema != "" {
			g.Id("OutputSchema").Op(":").Add(stringConst(outSchema))
		}
		llmSkillLinks(g, l)
		g.Id("Hooks").Op(":").Qual(pkgLLM, "Hooks").Values(jen.Id("Request").Op(":").Id(s.RequestHook), jen.Id("Result").Op(":").Id(s.ResultHook))
	})
	return nil
}

// outputSchema is the JSON of a skill's output schema; "" when it has no
// output.
func outputSchema(s skillCode) (string, error) {
	if s.Output == nil {
		return "", nil
	}
	b, err := s.Output.Schema.MarshalJSON()
	if err != nil {
		return "", fmt.Errorf("skill %s: output schema: %w", s.ID, err)
	}
	return string(b), nil
}

// llmSkillLinks writes the tools and remote agents an llm skill offers
// the model, the fields of its llm.Skill that name other variables.
func llmSkillLinks(g *jen.Group, l *manifest.LLMSkill) {
	if len(l.Tools) > 0 {
		g.Id("Tools").Op(":").Index().Qual(pkgLLM, "Tool").ValuesFunc(func(g *jen.Group) {
			for _, name := range l.Tools {
				g.Id("llmTool" + camel(name))
			}
		})
	}
	if len(l.RemoteAgents) > 0 {
		g.Id("RemoteAgents").Op(":").Index().Op("*").Qual(pkgLLM, "RemoteAgent").ValuesFunc(func(g *jen.Group) {
			for _, name := range l.RemoteAgents {
				g.Id(remoteVar(name))
			}
		})
	}
}

// llmHookFile is the user's file of an llm skill: its two hooks, which
// change nothing until written.
func (p *project) llmHookFile(s skillCode) ([]byte, error) {
	f := newGoFile(false)
	f.ImportName(pkgLLM, "llm")
	f.ImportName(pkgOpenAI, "openai")
	doc := fmt.Sprintf("%s adjusts every request skill %q (%s) sends to the model before it goes: params holds the model, the messages (the instructions of agent.yaml, the conversation, the message being answered), the tools and the sampling settings (see github.com/openai/openai-go/v3). An error fails the task. a2a_llm.gen.go builds the rest of the skill from agent.yaml.", s.RequestHook, s.ID, s.Name)
	if s.Extended {
		doc += " The skill is listed on the extended card only, for authenticated callers."
	}
	docLines(f, doc)
	f.Func().Id(s.RequestHook).Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Op("*").Qual(pkgServer, "Request"), jen.Id("params").Op("*").Qual(pkgOpenAI, "ChatCompletionNewParams"),
	).Error().Block(
		jen.Comment("For instance, who is asking (req.Caller) or today's date:"),
		jen.Comment(`  params.Messages = append(params.Messages, openai.SystemMessage("Today is "+time.Now().Format(time.DateOnly)))`),
		jen.Return(jen.Nil()),
	)
	f.Line()
	doc = fmt.Sprintf("%s sees the model's finished answer to skill %q before the task completes: res.Text is the answer", s.ResultHook, s.ID)
	if s.Output != nil {
		doc += "; res.Data its decoded JSON, which may be replaced before it is checked against output.schema and sent as a data artifact"
	} else {
		doc += ", already streamed to the caller as an artifact"
	}
	doc += ". Setting res.Message gives the completed status a message; an error fails the task."
	docLines(f, doc)
	f.Func().Id(s.ResultHook).Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Op("*").Qual(pkgServer, "Request"), jen.Id("res").Op("*").Qual(pkgLLM, "Result"),
	).Error().Block(jen.Return(jen.Nil()))
	return render(f)
}

// toolGoFile is the user's file of a tool: a stub that says it is not
// written yet, which the model reads as the tool's error.
func (p *project) toolGoFile(t toolCode) ([]byte, error) {
	f := newGoFile(false)
	f.ImportName(pkgLLM, "llm")
	doc := fmt.Sprintf("%s is tool %q of agent.yaml, which the model calls: %s", t.Func, t.Name, t.Description)
	if t.Input != nil {
		doc += "\n\ncall.Arguments is the model's JSON of tools[].input.schema (decode it with encoding/json; the model may get it wrong, so check it)."
	}
	doc += " The text returned is what the model reads. An error goes back to the model as \"error: ...\" so that it can recover; return &llm.NeedsInputError{Message: ...} to ask the user instead (the task becomes INPUT_REQUIRED). call.Request is the message being answered, call.Events the task's (events.Status reports progress). ctx is canceled when the task is."
	docLines(f, doc)
	f.Func().Id(t.Func).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("call").Qual(pkgLLM, "ToolCall")).Params(jen.String(), jen.Error()).Block(
		jen.Comment("Replace this with what the tool does."),
		jen.Return(jen.Lit(""), jen.Qual("errors", "New").Call(jen.Lit(fmt.Sprintf("the tool %s is not written yet (%s)", t.Name, t.File)))),
	)
	return render(f)
}

// llmTest adds to the generated test what a model-backed agent needs:
// useScriptedModel, which points the model at a scripted server on loopback
// once per test binary, and, when the agent streams, a check that every llm
// skill with a text answer streams it in chunks on every binding.
func (p *project) llmTest(f *jen.File) {
	docLines(f, "scriptedTokens are what the scripted model answers a skill without an output schema, one chunk each.")
	f.Var().Id("scriptedTokens").Op("=").Index().String().Values(jen.Lit("This is "), jen.Lit("the scripted "), jen.Lit("model's answer."))
	f.Line()
	p.llmScriptedSetup(f)
	p.llmStreamTest(f)
	p.llmToolsTest(f)
}

// useScripted is the first statement of every generated test of a
// model-backed agent: useScriptedModel(t); nothing for other agents.
func (p *project) useScripted() jen.Code {
	if !p.m.HasLLMSkills() {
		return jen.Null()
	}
	return jen.Id("useScriptedModel").Call(jen.Id("t"))
}

// llmScriptedSetup writes useScriptedModel and startScripted: the scripted
// model and remote agents, started once (sync.Once) by the first test that
// asks, so that the package needs no TestMain of its own and the user may
// write one.
func (p *project) llmScriptedSetup(f *jen.File) {
	f.Var().Defs(
		jen.Id("scriptedOnce").Qual("sync", "Once"),
		jen.Id("scriptedErr").Error(),
	)
	f.Line()
	doc := "useScriptedModel points the skills a language model answers at a scripted OpenAI-compatible server on loopback (host/llm/llmtest), so that the tests need no model and no network: it answers scriptedTokens, and a request for structured output the example (or a sample) of the skill's output.schema."
	if len(p.m.RemoteAgents) > 0 {
		doc += " Each remote agent is a scripted agent on loopback with the skills agent.yaml names (llmtest.StartAgent), and the variables of its credentials get a test secret when unset."
	}
	doc += "\n\nEvery generated test calls it first; call it first in your own tests of this package that start the agent (hosttest.Start(t, agentConfig())) too. The servers start once per test binary (sync.Once) and stop when it exits, so this package needs no TestMain: you may write your own."
	docLines(f, doc)
	f.Func().Id("useScriptedModel").Params(jen.Id("t").Qual("testing", "TB")).Block(
		jen.Id("t").Dot("Helper").Call(),
		jen.Id("scriptedOnce").Dot("Do").Call(jen.Func().Params().Block(jen.Id("scriptedErr").Op("=").Id("startScripted").Call())),
		jen.If(jen.Id("scriptedErr").Op("!=").Nil()).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit("starting the scripted model: %v"), jen.Id("scriptedErr")),
		),
	)
	f.Line()
	docLines(f, "startScripted starts what useScriptedModel describes; it runs once.")
	f.Func().Id("startScripted").Params().Error().BlockFunc(func(g *jen.Group) {
		g.List(jen.Id("scripted"), jen.Err()).Op(":=").Qual(pkgLLMTest, "Listen").Call(jen.Lit("127.0.0.1:0"))
		g.Add(returnOnErr())
		g.Id("scripted").Dot("Reply").Op("=").Add(p.scriptedReply())
		g.List(jen.Id("model").Dot("BaseURL"), jen.Id("model").Dot("Model")).Op("=").List(jen.Id("scripted").Dot("URL"), jen.Lit("scripted"))
		for _, r := range p.m.RemoteAgents {
			startRemoteAgent(g, r)
		}
		g.Return(jen.Nil())
	})
}

// returnOnErr is `if err != nil { return err }`.
func returnOnErr() jen.Code {
	return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
}

// scriptedReply is what the scripted model answers: the tokens, or the
// example of a skill's output schema, after calling every tool and remote
// agent skill once when there are any (scriptedCalls).
func (p *project) scriptedReply() jen.Code {
	answer := jen.Qual(pkgLLMTest, "Answer").Call(jen.Id("scriptedTokens"), jen.Map(jen.String()).String().CustomFunc(multi, func(g *jen.Group) {
		for _, s := range p.skills {
			if s.LLM != nil && s.Output != nil {
				g.Lit(structuredName(s.ID)).Op(":").Add(stringConst(exampleJSON(s.Output)))
			}
		}
	}))
	calls := p.scriptedCalls()
	if len(calls) == 0 {
		return answer
	}
	return jen.Qual(pkgLLMTest, "CallTools").Call(jen.Index().Qual(pkgLLMTest, "Call").CustomFunc(multi, func(g *jen.Group) {
		for _, c := range calls {
			g.Values(jen.Id("Name").Op(":").Lit(c.name), jen.Id("Arguments").Op(":").Add(stringConst(c.arguments)))
		}
	}), answer)
}

// startRemoteAgent starts the scripted agent standing in for a remote
// agent (its skills, its credentials' schemes), points the remote agent's
// URL at it and gives its credentials' variables a test secret when unset.
func startRemoteAgent(g *jen.Group, r manifest.RemoteAgent) {
	v := remoteVar(r.Name)
	args := []jen.Code{jen.Lit(r.Name), jen.Nil()}
	if len(r.Skills) > 0 {
		args[1] = stringSlice(r.Skills)
	}
	for _, c := range r.Credentials {
		args = append(args, jen.Lit(c.Scheme))
	}
	g.List(jen.Id(v+"Agent"), jen.Err()).Op(":=").Qual(pkgLLMTest, "StartAgent").Call(args...)
	g.Add(returnOnErr())
	g.Id(v).Dot("URL").Op("=").Id(v + "Agent").Dot("URL")
	for _, c := range r.Credentials {
		g.If(jen.Qual("os", "Getenv").Call(jen.Lit(c.Env)).Op("==").Lit("")).Block(
			jen.Qual("os", "Setenv").Call(jen.Lit(c.Env), jen.Lit("test-secret")),
		)
	}
}

// scriptedCall is a tool call the scripted model makes in the generated
// test: a tool of the manifest or a remote agent's skill, with arguments
// that fit its input.
type scriptedCall struct {
	name, arguments string
	remote          string // the remote agent's name; "" for a tool of the manifest
	answer          string // what the scripted remote agent answers
}

// scriptedCalls are the calls of every tool of the manifest (arguments: the
// example, or a sample, of its input schema) and of every skill of its
// remote agents (llmtest.StartAgent's skills: the ones agent.yaml names,
// else "ask"; arguments: a message).
func (p *project) scriptedCalls() []scriptedCall {
	var out []scriptedCall
	for _, t := range p.tools {
		args := "{}"
		if t.Input != nil {
			args = exampleJSON(t.Input)
		}
		out = append(out, scriptedCall{name: t.Name, arguments: args})
	}
	for _, r := range p.m.RemoteAgents {
		skills := r.Skills
		if len(skills) == 0 {
			skills = []string{"ask"}
		}
		for _, id := range skills {
			out = append(out, scriptedCall{name: structuredName(id), arguments: `{"message":"What do you say?"}`,
				remote: r.Name, answer: fmt.Sprintf("%s (skill %s) answers.", r.Name, id)})
		}
	}
	return out
}

// toolSkill is an llm skill TestLLMSkillsCallTools sends a message: the
// scripted calls it is offered (tools) and what its scripted remote agents
// answer (answers).
type toolSkill struct {
	skillCode
	tools, answers []string
}

// offeredBy reports whether an llm skill offers the model the call c: a tool
// it lists, or a skill of a remote agent it names.
func (c scriptedCall) offeredBy(l *manifest.LLMSkill) bool {
	if c.remote == "" {
		return slices.Contains(l.Tools, c.name)
	}
	return slices.Contains(l.RemoteAgents, c.remote)
}

// toolSkills are the llm skills with a text answer and text input that
// may call tools or remote agents, each with the calls it is offered.
func (p *project) toolSkills() []toolSkill {
	calls := p.scriptedCalls()
	var out []toolSkill
	for _, s := range p.skills {
		if s.LLM == nil || s.Output != nil || s.Input != nil || len(s.LLM.Tools)+len(s.LLM.RemoteAgents) == 0 {
			continue
		}
		ts := toolSkill{skillCode: s}
		for _, c := range calls {
			if !c.offeredBy(s.LLM) {
				continue
			}
			ts.tools = append(ts.tools, c.name)
			if c.remote != "" {
				ts.answers = append(ts.answers, c.answer)
			}
		}
		out = append(out, ts)
	}
	return out
}

// llmToolsTest writes TestLLMSkillsCallTools for the skills toolSkills
// lists.
func (p *project) llmToolsTest(f *jen.File) {
	skills := p.toolSkills()
	if len(skills) == 0 {
		return
	}
	codes := make([]skillCode, len(skills))
	for i, s := range skills {
		codes[i] = s.skillCode
	}
	f.Line()
	docLines(f, "TestLLMSkillsCallTools sends every skill a language model answers with text and may call tools the message llmtest.CallEveryTool on every binding: the scripted model calls each tool and remote agent the skill offers once (a tool with the example, or a sample, of its input schema; a remote agent's skill with a message), then answers what each said (llmtest.ToolAnswered). It checks that the task completes, that every tool answered the model (your tool's answer or error, whatever it is) and that each scripted remote agent's answer reached it.")
	f.Func().Id("TestLLMSkillsCallTools").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(g *jen.Group) {
		p.startAgent(g)
		declareCards(g, codes)
		g.Add(bindingSubtests(
			[]jen.Code{
				jen.Id("skill").String(),
				jen.Id("card").Op("*").Qual(pkgA2A, "AgentCard"),
				jen.Id("tools").Op(",").Id("remoteAnswers").Index().String(),
			},
			func(g *jen.Group) {
				for _, s := range skills {
					answers := jen.Code(jen.Nil())
					if len(s.answers) > 0 {
						answers = stringSlice(s.answers)
					}
					g.Values(jen.Lit(s.ID), jen.Id(s.cardVar()), stringSlice(s.tools), answers)
				}
			},
			skillClient(jen.Id("tc").Dot("card"), jen.Id("tc").Dot("skill")),
			jen.List(jen.Id("resp"), jen.Err()).Op(":=").Id("client").Dot("SendMessage").Call(jen.Qual("context", "Background").Call(), jen.Qual(pkgHostTest, "Message").Call(jen.Qual(pkgLLMTest, "CallEveryTool"), jen.Id("tc").Dot("skill"))),
			fatalOnErr(),
			jen.If(jen.Id("s").Op(":=").Id("resp").Dot("State").Call(), jen.Id("s").Op("!=").Qual(pkgA2A, "TaskState_TASK_STATE_COMPLETED")).Block(
				jen.Id("t").Dot("Fatalf").Call(jen.Lit("the task ended %s, want completed: %s"), jen.Id("s").Dot("Short").Call(), jen.Id("resp").Dot("Text").Call()),
			),
			jen.Id("answer").Op(":=").Id("resp").Dot("Text").Call(),
			jen.For(jen.List(jen.Id("_"), jen.Id("name")).Op(":=").Range().Id("tc").Dot("tools")).Block(
				jen.If(jen.Op("!").Qual("strings", "Contains").Call(jen.Id("answer"), jen.Qual(pkgLLMTest, "ToolAnswered").Call(jen.Id("name"), jen.Lit("")))).Block(
					jen.Id("t").Dot("Errorf").Call(jen.Lit("the tool %s answered the model nothing; the answer: %q"), jen.Id("name"), jen.Id("answer")),
				),
			),
			jen.For(jen.List(jen.Id("_"), jen.Id("want")).Op(":=").Range().Id("tc").Dot("remoteAnswers")).Block(
				jen.If(jen.Op("!").Qual("strings", "Contains").Call(jen.Id("answer"), jen.Id("want"))).Block(
					jen.Id("t").Dot("Errorf").Call(jen.Lit("the remote agent's answer %q did not reach the model; the answer: %q"), jen.Id("want"), jen.Id("answer")),
				),
			),
		))
	})
}

// llmStreamTest writes TestLLMSkillsStream when the agent streams and has
// an llm skill with a text answer.
func (p *project) llmStreamTest(f *jen.File) {
	var texts []skillCode
	for _, s := range p.skills {
		if s.LLM != nil && s.Output == nil {
			texts = append(texts, s)
		}
	}
	if !p.streams() || len(texts) == 0 {
		return
	}
	f.Line()
	docLines(f, "TestLLMSkillsStream sends every skill a language model answers with text a streaming message on every binding, and checks that the scripted model's tokens arrive as chunks of one artifact (append, lastChunk) and the task completes.")
	f.Func().Id("TestLLMSkillsStream").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(g *jen.Group) {
		p.startAgent(g)
		declareCards(g, texts)
		g.Add(bindingSubtests(
			[]jen.Code{jen.Id("skill").String(), jen.Id("card").Op("*").Qual(pkgA2A, "AgentCard")},
			func(g *jen.Group) {
				for _, s := range texts {
					g.Values(jen.Lit(s.ID), jen.Id(s.cardVar()))
				}
			},
			skillClient(jen.Id("tc").Dot("card"), jen.Id("tc").Dot("skill")),
			jen.Id("chunks").Op(":=").Qual(pkgLLMTest, "CheckStreamedAnswer").Call(jen.Id("t"), jen.Id("client"), jen.Qual(pkgHostTest, "Message").Call(jen.Lit("hello"), jen.Id("tc").Dot("skill"))),
			jen.If(jen.Qual("slices", "Compare").Call(jen.Id("chunks"), jen.Id("scriptedTokens")).Op("!=").Lit(0)).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("chunks %q, want the scripted model's tokens %q"), jen.Id("chunks"), jen.Id("scriptedTokens")),
			),
		))
	})
}
