package scaffold

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/a2agen/a2agen/internal/manifest"
)

// The generated Go files of a project: data taken from the manifest, and
// the few lines that hand it to package host.

// cardFile holds the card documents, exactly as CardJSON renders them (and
// a2a-scaffold card prints them).
func (p *project) cardFile() ([]byte, error) {
	f := newGoFile(true)
	public, err := CardJSON(p.m.AgentCard(""))
	if err != nil {
		return nil, err
	}
	docLines(f, ("agentCardJSON is the public agent card, served byte for byte at /.well-known/agent-card.json on every HTTP address: what `a2a-scaffold card agent.yaml` prints."))
	f.Const().Id("agentCardJSON").Op("=").Add(stringConst(string(public)))
	if p.hasExtendedCard() {
		ext, err := CardJSON(p.m.ExtendedAgentCard(""))
		if err != nil {
			return nil, err
		}
		f.Line()
		docLines(f, ("extendedAgentCardJSON is the extended agent card, which GetExtendedAgentCard serves to authenticated callers only: what `a2a-scaffold card --extended agent.yaml` prints."))
		f.Const().Id("extendedAgentCardJSON").Op("=").Add(stringConst(string(ext)))
	}
	return render(f)
}

func (p *project) hasExtendedCard() bool {
	c := p.m.Capabilities.ExtendedAgentCard
	return c != nil && *c
}

// streams reports whether the agent's card declares streaming.
func (p *project) streams() bool {
	c := p.m.Capabilities.Streaming
	return c != nil && *c
}

// skillsFile lists the skills and the user-owned functions behind them.
func (p *project) skillsFile() ([]byte, error) {
	f := newGoFile(true)
	docLines(f, (`skills are the skills of agent.yaml, each with the function that does its work (in its skill_<id>.go). A message goes to the only skill; else to the skill its metadata names under "` +
		SkillMetadataKey + `" (host.SkillMetadataKey), in the message, an earlier message of its task or the request; else to the one route (route.go) picks. The skill's securityRequirements are checked before it runs.`))
	f.Var().Id("skills").Op("=").Index().Qual(pkgHost, "Skill").CustomFunc(multiTerminated, func(g *jen.Group) {
		for _, s := range p.skills {
			note := s.Name
			if s.Extended {
				note += " (extended card only)"
			}
			var run jen.Code = jen.Id(s.Func)
			switch {
			case s.LLM != nil:
				run = jen.Id("model").Dot("Skill").Call(jen.Id(s.LLMVar))
				note += " (answered by the model: " + s.LLMVar + ")"
			case s.Input != nil:
				fromText := jen.Nil()
				if s.FromText != "" {
					fromText = jen.Id(s.FromText)
				}
				run = jen.Qual(pkgSkillData, "Run").Call(jen.Id(s.InputVar), jen.Id(s.Func), fromText)
				note += " (typed input: " + s.InputType + ")"
			}
			g.Values(jen.Id("ID").Op(":").Lit(s.ID), jen.Id("Run").Op(":").Add(run)).Op(",").Comment(note)
		}
	})
	return render(f)
}

// SkillMetadataKey is the metadata key that names a message's skill
// (host.SkillMetadataKey, repeated here so that the scaffolder does not
// link the host package).
const SkillMetadataKey = "a2a-scaffold/skill"

// serveFile configures host for the manifest and holds runMain.
func (p *project) serveFile() ([]byte, error) {
	f := newGoFile(true)
	m := p.m

	docLines(f, ("bindings are the interfaces of agent.yaml, in its order."))
	f.Var().Id("bindings").Op("=").Index().Qual(pkgHost, "Binding").CustomFunc(multi, func(g *jen.Group) {
		for _, b := range m.Bindings {
			g.Values(bindingFields(b)...)
		}
	})
	f.Line()

	docLines(f, p.agentConfigDoc())
	f.Func().Id("agentConfig").Params().Qual(pkgHost, "Config").Block(
		jen.Id("cfg").Op(":=").Qual(pkgHost, "Config").CustomFunc(multi, p.configFields),
		jen.Id("hosting").Call(jen.Op("&").Id("cfg")),
		jen.Return(jen.Id("cfg")),
	)
	f.Line()

	docLines(f, ("runMain serves the agent until ctx is done and returns the process's exit code; host.Main reads the flags, each also from an A2A_ environment variable (-help lists both): TLS, -listen address overrides, the task store (default sqlite:data/agent.db), task retention, shutdown grace, gRPC reflection. Everything else comes from agent.yaml and hosting.go."))
	f.Func().Id("runMain").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Index().String(), jen.List(jen.Id("stdout"), jen.Id("stderr")).Qual("io", "Writer"),
	).Int().Block(
		jen.Return(jen.Qual(pkgHost, "Main").Call(jen.Id("ctx"), jen.Lit(manifest.Slug(m.Name)), jen.Id("agentConfig").Call(), jen.Id("args"), jen.Id("stdout"), jen.Id("stderr"))),
	)
	return render(f)
}

// bindingFields are the fields of the host.Binding of a binding.
func bindingFields(b manifest.Binding) []jen.Code {
	fields := []jen.Code{
		jen.Id("Protocol").Op(":").Qual(pkgRuntime, "Binding"+strings.ReplaceAll(b.Protocol.String(), "+", "")), // BindingJSONRPC, BindingHTTPJSON, BindingGRPC
		jen.Id("Address").Op(":").Lit(b.Address),
	}
	if b.Protocol.IsHTTP() {
		fields = append(fields, jen.Id("Path").Op(":").Lit(b.Path))
	}
	if b.Tenant != "" {
		fields = append(fields, jen.Id("Tenant").Op(":").Lit(b.Tenant))
	}
	return fields
}

// agentConfigDoc is the comment of agentConfig: what it holds, naming the
// security schemes and the protocol versions served beside 1.0.
func (p *project) agentConfigDoc() string {
	m := p.m
	doc := "agentConfig is the agent agent.yaml describes: its cards, bindings and skills; verifiers (auth.go) check the credentials of its security schemes"
	if len(m.SecuritySchemes) > 0 {
		names := make([]string, len(m.SecuritySchemes))
		for i, s := range m.SecuritySchemes {
			names[i] = s.Name
		}
		doc += " (" + strings.Join(names, ", ") + ")"
	}
	doc += ", route (route.go) picks the skill of messages that name none, and hosting (hosting.go) adds HTTP routes, HTTP middleware, gRPC server options and interceptors."
	if m.ServesV03() {
		doc += ` V03 serves A2A v0.3 next to v1.0 on every binding (protocolVersions: ["1.0", "0.3"]).`
	}
	if m.ServesV11Draft() {
		doc += ` ProtocolVersions serves the A2A 1.1 draft beside 1.0 on every binding (protocolVersions: ["1.0", "1.1"]).`
	}
	return doc
}

// configFields writes the fields of the agent's host.Config.
func (p *project) configFields(g *jen.Group) {
	m := p.m
	g.Id("CardJSON").Op(":").Index().Byte().Parens(jen.Id("agentCardJSON"))
	if p.hasExtendedCard() {
		g.Id("ExtendedCardJSON").Op(":").Index().Byte().Parens(jen.Id("extendedAgentCardJSON"))
	}
	g.Id("Bindings").Op(":").Id("bindings")
	if m.ServesV03() {
		g.Id("V03").Op(":").True()
	}
	if m.ServesV11Draft() {
		g.Id("ProtocolVersions").Op(":").Index().String().Values(jen.Lit(manifest.ProtocolVersion10), jen.Lit(manifest.ProtocolVersion11Draft))
	}
	g.Id("Skills").Op(":").Id("skills")
	if m.HasLLMSkills() {
		g.Id("Flags").Op(":").Id("llmFlags")
	}
	g.Id("Route").Op(":").Id("route")
	g.Id("Verifiers").Op(":").Id("verifiers").Call()
	if opts := pushOptions(m.Push); len(opts) > 0 {
		g.Id("Push").Op(":").Index().Qual(pkgPush, "Option").CustomFunc(multiTerminated, func(g *jen.Group) {
			for _, o := range opts {
				g.Add(o)
			}
		})
	}
}

// pushOptions are the push.Options of the manifest's push settings.
func pushOptions(p manifest.PushDelivery) []jen.Code {
	var out []jen.Code
	if p.Timeout > 0 {
		out = append(out, jen.Qual(pkgPush, "WithTimeout").Call(duration(p.Timeout)).Op(","))
	}
	if p.MaxRetries != nil {
		out = append(out, jen.Qual(pkgPush, "WithMaxAttempts").Call(jen.Lit(*p.MaxRetries+1)).Op(",").Comment(fmt.Sprintf("maxRetries: %d", *p.MaxRetries)))
	}
	if p.InitialBackoff > 0 || p.MaxBackoff > 0 {
		out = append(out, jen.Qual(pkgPush, "WithBackoff").Call(duration(p.InitialBackoff), duration(p.MaxBackoff)).Op(","))
	}
	if p.AllowPrivateNetworks {
		out = append(out, jen.Qual(pkgPush, "AllowPrivateNetworks").Call().Op(","))
	}
	return out
}

// testFile is the project's generated test: it starts the agent on
// loopback and calls every skill on every binding through the generated
// clients, checks the served card and, where the manifest has them, the
// extended card and the refusal of anonymous callers.
func (p *project) testFile() ([]byte, error) {
	f := newGoFile(true)
	m := p.m

	if m.HasLLMSkills() {
		p.llmTest(f)
		f.Line()
	}
	if texts := p.textSkills(); len(texts) > 0 {
		p.everySkillTest(f, texts)
		f.Line()
	}
	if len(p.typedSkills()) > 0 {
		p.typedTest(f)
		f.Line()
	}
	docLines(f, ("TestAgentCard checks that every HTTP address serves exactly the card of agent.yaml."))
	f.Func().Id("TestAgentCard").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		p.useScripted(),
		jen.Qual(pkgHostTest, "Start").Call(jen.Id("t"), jen.Id("agentConfig").Call()).Dot("CheckCard").Call(jen.Id("t"), jen.Id("bindings"), jen.Id("agentCardJSON")),
	)

	if m.ServesV03() {
		f.Line()
		p.v03Test(f)
	}

	if p.hasExtendedCard() {
		p.bindingCheckTest(f, "TestExtendedCard", "TestExtendedCard checks that every binding serves the extended card to authenticated callers only.",
			jen.Id("agent").Dot("CheckExtendedCard").Call(jen.Id("t"), jen.Id("b"), jen.Qual(pkgHostTest, "Card").Call(jen.Id("t"), jen.Id("extendedAgentCardJSON"))))
	}
	if requiresAuthentication(m.SecurityRequirements) {
		p.bindingCheckTest(f, "TestCallsNeedCredentials", "TestCallsNeedCredentials checks that every binding refuses a message without credentials, as the securityRequirements of agent.yaml say.",
			jen.Id("agent").Dot("CheckRefusesAnonymous").Call(jen.Id("t"), jen.Id("b")))
	}
	return render(f)
}

// bindingCheckTest writes the test name (doc its comment), which starts
// the agent and runs check, a check of agent, on every binding b.
func (p *project) bindingCheckTest(f *jen.File, name, doc string, check jen.Code) {
	f.Line()
	docLines(f, doc)
	f.Func().Id(name).Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		p.useScripted(),
		jen.Id("agent").Op(":=").Qual(pkgHostTest, "Start").Call(jen.Id("t"), jen.Id("agentConfig").Call()),
		jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("bindings")).Block(check),
	)
}

// textSkills are the skills without typed input, the ones
// TestEverySkillOnEveryBinding sends text (TestTypedSkills sends the
// others data).
func (p *project) textSkills() []skillCode {
	var out []skillCode
	for _, s := range p.skills {
		if s.Input == nil {
			out = append(out, s)
		}
	}
	return out
}

// everySkillTest writes TestEverySkillOnEveryBinding: a message to each
// of texts on every binding.
func (p *project) everySkillTest(f *jen.File, texts []skillCode) {
	ctx := jen.Qual("context", "Background").Call()
	docLines(f, ("TestEverySkillOnEveryBinding starts the agent on loopback ports and sends a message to every skill on every binding of agent.yaml through the generated clients, with the credentials the skill needs (see hosttest.Verifiers)."))
	f.Func().Id("TestEverySkillOnEveryBinding").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(g *jen.Group) {
		p.startAgent(g)
		declareCards(g, texts)
		g.Add(bindingSubtests(
			[]jen.Code{jen.Id("skill").Op(",").Id("text").String(), jen.Id("card").Op("*").Qual(pkgA2A, "AgentCard")},
			func(g *jen.Group) {
				for _, s := range texts {
					g.Values(jen.Lit(s.ID), jen.Lit(s.exampleText()), jen.Id(s.cardVar()))
				}
			},
			skillClient(jen.Id("tc").Dot("card"), jen.Id("tc").Dot("skill")),
			jen.List(jen.Id("resp"), jen.Err()).Op(":=").Id("client").Dot("SendMessage").Call(ctx, jen.Qual(pkgHostTest, "Message").Call(jen.Id("tc").Dot("text"), jen.Id("tc").Dot("skill"))),
			fatalOnErr(),
			jen.If(jen.Id("resp").Dot("GetTask").Call().Op("==").Nil().Op("&&").Id("resp").Dot("GetMessage").Call().Op("==").Nil()).Block(
				jen.Id("t").Dot("Fatal").Call(jen.Lit("the response holds neither a task nor a message")),
			),
			jen.If(jen.Id("s").Op(":=").Id("resp").Dot("State").Call(), endedBadly(jen.Id("s"))).Block(
				jen.Id("t").Dot("Fatalf").Call(jen.Lit("the skill's task ended %s: %s"), jen.Id("s").Dot("Short").Call(), jen.Id("resp").Dot("Text").Call()),
			),
		))
	})
}

// typedTest sends every typed skill its example input as a data part on
// every binding, checks its data against the output schema, that data
// without a required property is refused naming it, that the text fallback
// lets text through, and that a media type outside the inputModes is
// refused with ContentTypeNotSupported.
func (p *project) typedTest(f *jen.File) {
	ctx := jen.Qual("context", "Background").Call()
	docLines(f, "TestTypedSkills sends every skill of agent.yaml with an input schema its first input example (or a sample of the schema) as a data part on every binding; checks that the data it answers matches its output schema, that data lacking a required property is refused with InvalidParams naming it, that a skill which also reads text takes its input as text, and that a part of a media type the skill's inputModes do not list is refused with ContentTypeNotSupported naming the offered and accepted modes.")
	f.Func().Id("TestTypedSkills").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(g *jen.Group) {
		p.startAgent(g)
		declareCards(g, p.typedSkills())
		g.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("bindings")).BlockFunc(func(g *jen.Group) {
			for _, s := range p.typedSkills() {
				g.Id("t").Dot("Run").Call(jen.Id("b").Dot("Protocol").Dot("String").Call().Op("+").Lit("/"+s.ID), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(g *jen.Group) {
					p.typedSkillChecks(g, s, ctx)
				}))
			}
		})
	})
}

// typedSkillChecks is the subtest of one typed skill on one binding (b):
// its example input answered with data of its output schema, data lacking
// a required property refused, the text fallback and a refused media type.
func (p *project) typedSkillChecks(g *jen.Group, s skillCode, ctx jen.Code) {
	g.Add(skillClient(jen.Id(s.cardVar()), jen.Lit(s.ID)))
	g.List(jen.Id("resp"), jen.Err()).Op(":=").Add(typedExampleSend(s, ctx))
	g.Add(fatalOnErr())
	g.If(jen.Id("s").Op(":=").Id("resp").Dot("State").Call(), endedBadly(jen.Id("s"))).Block(
		jen.Id("t").Dot("Fatalf").Call(jen.Lit("the skill's task ended %s: %s"), jen.Id("s").Dot("Short").Call(), jen.Id("resp").Dot("Text").Call()),
	)
	if s.Output != nil {
		g.For(jen.List(jen.Id("_"), jen.Id("data")).Op(":=").Range().Qual(pkgHostTest, "DataParts").Call(jen.Id("resp"))).Block(
			jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id(s.OutputVar).Dot("Decode").Call(jen.Id("data")), jen.Err().Op("!=").Nil()).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("the skill answered data that does not match its output schema: %v"), jen.Err()),
			),
		)
	}
	if s.Input != nil && len(s.Input.Schema.Required) > 0 {
		requiredCheck(g, s, ctx)
	}
	if s.FromText != "" {
		textFallbackCheck(g, s, ctx)
	}
	if mt := p.refusedMedia(s); mt != "" {
		p.refusedMediaCheck(g, s, ctx, mt)
	}
}

// dataSend is client.SendMessage of data (JSON) as a data part to skill s.
func dataSend(s skillCode, ctx jen.Code, data string) jen.Code {
	return jen.Id("client").Dot("SendMessage").Call(ctx, jen.Qual(pkgHostTest, "DataMessage").Call(jen.Id("t"), stringConst(data), jen.Lit(s.ID)))
}

// typedExampleSend sends a typed skill its example: its example input as
// data, or, for a skill with typed output only, its example text.
func typedExampleSend(s skillCode, ctx jen.Code) jen.Code {
	if s.Input == nil {
		return jen.Id("client").Dot("SendMessage").Call(ctx, jen.Qual(pkgHostTest, "Message").Call(jen.Lit(s.exampleText()), jen.Lit(s.ID)))
	}
	return dataSend(s, ctx, exampleJSON(s.Input))
}

// requiredCheck checks that data lacking the skill's first required
// property is refused with InvalidParams naming it.
func requiredCheck(g *jen.Group, s skillCode, ctx jen.Code) {
	name := s.Input.Schema.Required[0]
	want := "data." + name + ": required"
	g.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(dataSend(s, ctx, "{}")), jen.Op("!").Qual("errors", "Is").Call(jen.Err(), jen.Qual(pkgRuntime, "ErrInvalidParams")).Op("||").Op("!").Qual("strings", "Contains").Call(jen.Err().Dot("Error").Call(), jen.Lit(want))).Block(
		jen.Id("t").Dot("Errorf").Call(jen.Lit("data without "+name+": %v, want InvalidParams naming "+want), jen.Err()),
	)
}

// textFallbackCheck sends the example input as JSON text to a skill whose
// FromText reads text, and checks that it is let through.
func textFallbackCheck(g *jen.Group, s skillCode, ctx jen.Code) {
	g.Comment("The text fallback: the example input as JSON text, which the starter")
	g.Comment(s.FromText + " reads; one that reads plain language only may refuse it")
	g.Comment("with InvalidParams, but the skill's inputModes let text through.")
	g.List(jen.Id("resp"), jen.Err()).Op("=").Id("client").Dot("SendMessage").Call(ctx, jen.Qual(pkgHostTest, "Message").Call(stringConst(exampleJSON(s.Input)), jen.Lit(s.ID)))
	g.Switch().Block(
		jen.Case(jen.Err().Op("!=").Nil().Op("&&").Op("!").Qual("errors", "Is").Call(jen.Err(), jen.Qual(pkgRuntime, "ErrInvalidParams"))).Block(
			jen.Id("t").Dot("Errorf").Call(jen.Lit("the input as text: %v, want "+s.FromText+" to read it"), jen.Err()),
		),
		jen.Case(jen.Err().Op("==").Nil().Op("&&").Parens(endedBadly(jen.Id("resp").Dot("State").Call()))).Block(
			jen.Id("t").Dot("Errorf").Call(jen.Lit("the input as text: the skill's task ended %s: %s"), jen.Id("resp").Dot("State").Call().Dot("Short").Call(), jen.Id("resp").Dot("Text").Call()),
		),
	)
}

// refusedMediaCheck checks that a part of media type mt, which the skill's
// inputModes do not list, is refused before the skill runs, naming what
// was offered and what it accepts.
func (p *project) refusedMediaCheck(g *jen.Group, s skillCode, ctx jen.Code, mt string) {
	msg := jen.Qual(pkgHostTest, "RawMessage").Call(jen.Index().Byte().Parens(jen.Lit("x")), jen.Lit(mt), jen.Lit(s.ID))
	if mt == "text/plain" {
		msg = jen.Qual(pkgHostTest, "Message").Call(jen.Lit("hello"), jen.Lit(s.ID))
	}
	want := "offered " + mt + "; accepted " + strings.Join(p.inputModes(s), ", ")
	g.Comment("A media type the skill's inputModes do not list: refused before it runs,")
	g.Comment("naming what was offered and what it accepts.")
	g.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("client").Dot("SendMessage").Call(ctx, msg), jen.Op("!").Qual("errors", "Is").Call(jen.Err(), jen.Qual(pkgRuntime, "ErrContentTypeNotSupported")).Op("||").Op("!").Qual("strings", "Contains").Call(jen.Err().Dot("Error").Call(), jen.Lit(want))).Block(
		jen.Id("t").Dot("Errorf").Call(jen.Lit("a part of "+mt+": %v, want ContentTypeNotSupported: "+want), jen.Err()),
	)
}

// requiresAuthentication reports whether reqs refuse anonymous callers:
// there is a requirement and none of them is empty.
func requiresAuthentication(reqs []manifest.SecurityRequirement) bool {
	for _, r := range reqs {
		if len(r.Schemes) == 0 {
			return false
		}
	}
	return len(reqs) > 0
}

// v03Test checks what protocolVersions: ["1.0", "0.3"] adds: the dual card
// on every HTTP address, and an answer to a v0.3 message/send (on its
// binding's v0.3 wire form) from every skill that takes text, on every
// binding; v0.3 has no tenants, so on a binding with a tenant the request
// is served in that tenant (hosttest.SendV03 reads the task back there).
func (p *project) v03Test(f *jen.File) {
	docLines(f, `TestV03 checks that the agent serves A2A v0.3 next to v1.0 (protocolVersions: ["1.0", "0.3"]): every HTTP address serves the dual card, and every skill that takes text answers a v0.3 message/send on every binding — JSON-RPC message/send, HTTP+JSON POST /v1/message:send, gRPC a2a.v1.A2AService/SendMessage — sent without an A2A-Version header, as v0.3 clients send it. v0.3 has no tenants: on a binding with a tenant the request is served in that tenant, where the task it makes is read back over v1.0.`)
	var texts []skillCode
	for _, s := range p.skills {
		if s.Input == nil && !s.Extended {
			texts = append(texts, s)
		}
	}
	f.Func().Id("TestV03").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(g *jen.Group) {
		p.startAgent(g)
		g.Id("agent").Dot("CheckV03Card").Call(jen.Id("t"), jen.Id("bindings"))
		if len(texts) == 0 {
			return
		}
		g.Id("card").Op(":=").Id("agent").Dot("Card").Call()
		g.Add(bindingSubtests(
			[]jen.Code{jen.Id("skill").Op(",").Id("text").String()},
			func(g *jen.Group) {
				for _, s := range texts {
					g.Values(jen.Lit(s.ID), jen.Lit(s.exampleText()))
				}
			},
			jen.Id("answer").Op(":=").Id("agent").Dot("SendV03").Call(jen.Id("t"), jen.Id("b"), jen.Id("card"), jen.Id("tc").Dot("skill"), jen.Id("tc").Dot("text")),
			jen.If(jen.Id("answer").Dot("State").Op("==").Lit("failed").Op("||").Id("answer").Dot("State").Op("==").Lit("rejected")).Block(
				jen.Id("t").Dot("Fatalf").Call(jen.Lit("the skill's v0.3 task ended %s"), jen.Id("answer").Dot("State")),
			),
		))
	})
}
