package scaffold

import "github.com/dave/jennifer/jen"

// The pieces every generated test of a project is made of: the agent
// started on loopback, the cards its skills are on, and the loop that runs
// one subtest per binding and skill.

// cardVar is the variable of the generated test that holds the card a
// skill is listed on: card (the public card) or extended.
func (s skillCode) cardVar() string {
	if s.Extended {
		return "extended"
	}
	return "card"
}

// exampleText is the text a generated test sends a skill that takes text:
// its first example, else "hello".
func (s skillCode) exampleText() string {
	if len(s.Examples) > 0 {
		return s.Examples[0]
	}
	return "hello"
}

// startAgent writes the first statements of a generated test: the
// scripted model when the agent has one, then agent, the agent started on
// loopback.
func (p *project) startAgent(g *jen.Group) {
	g.Add(p.useScripted())
	g.Id("agent").Op(":=").Qual(pkgHostTest, "Start").Call(jen.Id("t"), jen.Id("agentConfig").Call())
}

// declareCards writes the card variables the subtests of skills read
// (cardVar): card when one of them is on the public card, extended when
// one is on the extended card only.
func declareCards(g *jen.Group, skills []skillCode) {
	var public, extended bool
	for _, s := range skills {
		public, extended = public || !s.Extended, extended || s.Extended
	}
	if public {
		g.Id("card").Op(":=").Id("agent").Dot("Card").Call()
	}
	if extended {
		g.Id("extended").Op(":=").Qual(pkgHostTest, "Card").Call(jen.Id("t"), jen.Id("extendedAgentCardJSON"))
	}
}

// bindingSubtests is the loop of a table-driven generated test: for every
// binding and every case tc (a struct of fields, whose first is skill, one
// row each from rows), a subtest named <protocol>/<skill> that runs body.
func bindingSubtests(fields []jen.Code, rows func(*jen.Group), body ...jen.Code) jen.Code {
	return jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("bindings")).Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("tc")).Op(":=").Range().Index().Struct(fields...).CustomFunc(multi, rows)).Block(
			jen.Id("t").Dot("Run").Call(jen.Id("b").Dot("Protocol").Dot("String").Call().Op("+").Lit("/").Op("+").Id("tc").Dot("skill"), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(body...)),
		),
	)
}

// skillClient is the subtest's first statement: client, a client of the
// binding b for the skill on the card cardVar.
func skillClient(card, skill jen.Code) jen.Code {
	return jen.Id("client").Op(":=").Id("agent").Dot("Client").Call(jen.Id("t"), jen.Id("b"), card, skill)
}

// fatalOnErr is `if err != nil { t.Fatal(err) }`.
func fatalOnErr() jen.Code {
	return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("t").Dot("Fatal").Call(jen.Err()))
}

// endedBadly is the condition that a task state (state) is failed or
// rejected.
func endedBadly(state jen.Code) jen.Code {
	return jen.Add(state).Op("==").Qual(pkgA2A, "TaskState_TASK_STATE_FAILED").Op("||").Add(state).Op("==").Qual(pkgA2A, "TaskState_TASK_STATE_REJECTED")
}

// stringSlice is the literal []string{ss...}; []string{} when ss is empty.
func stringSlice(ss []string) jen.Code {
	return jen.Index().String().ValuesFunc(func(g *jen.Group) {
		for _, s := range ss {
			g.Lit(s)
		}
	})
}
