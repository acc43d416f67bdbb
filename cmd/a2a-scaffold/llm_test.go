package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/host/llm/llmtest"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// TestLLMTemplateEndToEnd creates the project of a2a-scaffold new --template
// llm against this checkout and runs its tests (its skills answered by the
// scripted model on loopback, streaming on every binding); then builds and
// starts the agent with A2A_LLM_BASE_URL and A2A_LLM_MODEL naming a scripted
// server of this test, and checks that a streaming message to its chat skill
// is answered with that server's tokens, chunk by chunk.
func TestLLMTemplateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated project")
	}
	t.Parallel() // a project of its own; the links of the projects' builds overlap
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := projectDir(t, root, "assistant")
	tmp := filepath.Dir(dir)
	r := runCLI(t, "", "new", "assistant", "--template", "llm", "--dir", dir, "--a2agen", root)
	if r.code != 0 || !strings.Contains(r.stdout, "skill_chat_llm.go") || !strings.Contains(r.stdout, "a2a_llm.gen.go") {
		t.Fatalf("new --template llm: %+v", r)
	}
	goCommand(t, dir, "vet", "./...")
	goCommand(t, dir, "test", "-count=1", "./...")

	bin := buildProject(t, dir)
	tokens := []string{"A2A ", "lets agents ", "talk."}
	scripted := llmtest.Start(t)
	scripted.Reply = llmtest.Answer(tokens, nil)
	agent := proctest.Start(t, bin, proctest.Options{
		Args: []string{"-store", "memory", "-listen", ":8080=" + freeAddr(t)},
		Env:  []string{"A2A_LLM_BASE_URL=" + scripted.URL, "A2A_LLM_MODEL=from-the-environment"},
		Dir:  tmp,
	})
	client := agent.Client(t, runtime.BindingJSONRPC)
	chunks := llmtest.CheckStreamedAnswer(t, client, hosttest.Message("What is A2A?", "chat"))
	if !slices.Equal(chunks, tokens) {
		t.Errorf("the agent streamed %q, want the scripted model's tokens %q", chunks, tokens)
	}
	reqs := scripted.Requests()
	if len(reqs) != 1 || reqs[0].Model != "from-the-environment" || !reqs[0].Stream {
		t.Fatalf("the scripted model got %+v, want one streaming request for the model of A2A_LLM_MODEL", reqs)
	}
	if msgs := reqs[0].Messages; msgs[0].Role != "system" || !strings.Contains(msgs[0].Text(), "helpful assistant") || msgs[len(msgs)-1].Text() != "What is A2A?" {
		t.Errorf("messages %+v, want the instructions of agent.yaml, then the question", msgs)
	}
}

// TestLLMToolsEndToEnd creates the project of the llm-tools golden manifest
// (tools, a remote agent with credentials, typed output, an llm skill on the
// extended card, a skill in Go) and runs its tests: its remote agent is a
// scripted agent on loopback. The project gets a test file of the user's
// with a TestMain of its own and a test that starts the agent after
// useScriptedModel: the generated tests must leave TestMain to the user.
func TestLLMToolsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated project")
	}
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := projectDir(t, root, "planner")
	manifestFile := filepath.Join(root, "testdata", "golden", "scaffold", "llm-tools", "agent.yaml")
	if r := runCLI(t, "", "new", "planner", "--manifest", manifestFile, "--dir", dir, "--a2agen", root); r.code != 0 {
		t.Fatalf("new: %+v", r)
	}
	if err := os.WriteFile(filepath.Join(dir, "user_main_test.go"), []byte(userTestMain), 0o644); err != nil {
		t.Fatal(err)
	}
	out := goCommand(t, dir, "test", "-count=1", "-v", "./...")
	for _, want := range []string{"--- PASS: TestUserTestMainRan", "--- PASS: TestEverySkillOnEveryBinding", "--- PASS: TestLLMSkillsCallTools"} {
		if !strings.Contains(out, want) {
			t.Errorf("go test -v in the project printed no %q:\n%s", want, out)
		}
	}
}

// userTestMain is a test file a user adds to a generated model-backed
// project: a TestMain of its own, and a test that starts the agent the way
// the generated ones do.
const userTestMain = `package main

import (
	"os"
	"testing"

	"github.com/a2agen/a2agen/host/hosttest"
)

var userMainRan bool

func TestMain(m *testing.M) {
	userMainRan = true
	os.Exit(m.Run())
}

func TestUserTestMainRan(t *testing.T) {
	if !userMainRan {
		t.Fatal("the user's TestMain did not run")
	}
	useScriptedModel(t)
	if card := hosttest.Start(t, agentConfig()).Card(); card.GetName() == "" {
		t.Fatal("the agent serves a card without a name")
	}
}
`
