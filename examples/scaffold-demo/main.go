// Command scaffold-demo is `make demo`: the main job of a2agen from start to
// finish. It creates an agent project from the example manifest
// examples/travel-agent/agent.yaml with a2a-scaffold (in a temporary
// directory, built against this checkout), builds it, runs it, discovers
// it from its agent card and calls every skill on every binding it
// serves — JSON-RPC, HTTP+JSON and gRPC — then stops it.
//
// Run it from the repository root:
//
//	go run ./examples/scaffold-demo            # or: make demo
//	go run ./examples/scaffold-demo -keep      # keep the project to explore it
//
// The scaffolded skills are stubs that echo their input; the committed
// examples/travel-agent is the same manifest with the skills written.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/internal/manifest"
	"github.com/a2agen/a2agen/internal/scaffold"
	"github.com/a2agen/a2agen/runtime"
)

func main() {
	keep := flag.Bool("keep", false, "keep the scaffolded project instead of deleting it")
	flag.Parse()
	if err := run(*keep, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scaffold-demo:", err)
		os.Exit(1)
	}
}

const manifestPath = "examples/travel-agent/agent.yaml"

func run(keep bool, w io.Writer) error {
	out := &lockedWriter{w: w}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, manifestPath)); err != nil {
		return fmt.Errorf("run me from the root of the a2agen checkout: %w", err)
	}
	tmp, err := os.MkdirTemp("", "a2agen-demo-")
	if err != nil {
		return err
	}
	if keep {
		defer fmt.Fprintf(out, "\nthe project is in %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	dir, httpAddr, err := scaffoldAndBuild(out, root, tmp)
	if err != nil {
		return err
	}
	stop, err := startAgent(out, dir)
	if err != nil {
		return err
	}
	defer stop()

	base := "http://" + httpAddr
	if err := waitForCard(base + runtime.AgentCardPath); err != nil {
		return err
	}
	ctx := context.Background()
	card, err := agentcard.NewCache(http.DefaultClient).Fetch(ctx, base)
	if err != nil {
		return err
	}
	step(out, "GET %s%s", base, runtime.AgentCardPath)
	fmt.Fprintf(out, "  %s %s: %d skills, %d interfaces\n", card.GetName(), card.GetVersion(), len(card.GetSkills()), len(card.GetSupportedInterfaces()))
	for _, iface := range card.GetSupportedInterfaces() {
		if err := callInterface(ctx, out, card, iface); err != nil {
			return err
		}
	}
	fmt.Fprintln(out, "\nNext: write the skills (skill_*.go) and the credential checks (auth.go) of the project;")
	fmt.Fprintln(out, "examples/travel-agent is this project with them written.")
	return nil
}

// scaffoldAndBuild scaffolds the example manifest into tmp/travel-agent
// and builds it; it returns the project's directory and the HTTP address
// the agent will listen on. The example manifest listens on fixed ports;
// the demo moves them to free ones so that it runs wherever those ports
// are taken.
func scaffoldAndBuild(out io.Writer, root, tmp string) (dir, httpAddr string, err error) {
	dir = filepath.Join(tmp, "travel-agent")
	manifest, httpAddr, err := withFreePorts(filepath.Join(root, manifestPath), tmp)
	if err != nil {
		return "", "", err
	}
	step(out, "a2a-scaffold new travel-agent --manifest %s --dir %s --module example.com/travel-agent --a2agen .", manifest, dir)
	report, err := scaffold.NewProject(scaffold.NewOptions{
		Name: "travel-agent", Dir: dir, Manifest: manifest, Module: "example.com/travel-agent", A2agenDir: root,
	})
	if err != nil {
		return "", "", err
	}
	fmt.Fprintf(out, "  wrote %s\n", strings.Join(report.Written, " "))

	step(out, "go build -o agent . (in the project)")
	build := exec.Command("go", "build", "-o", "agent", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if b, err := build.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("building the project: %v\n%s", err, b)
	}
	return dir, httpAddr, nil
}

// startAgent runs the built agent, its output prefixed in out; stop
// interrupts it and waits for it.
func startAgent(out io.Writer, dir string) (stop func(), err error) {
	step(out, "./agent")
	agent := exec.Command(filepath.Join(dir, "agent"))
	agent.Dir = dir
	stdout := &linePrefixer{out: out, prefix: "  agent| "}
	stderr := &linePrefixer{out: out, prefix: "  agent| "}
	agent.Stdout, agent.Stderr = stdout, stderr
	if err := agent.Start(); err != nil {
		return nil, err
	}
	return func() {
		_ = agent.Process.Signal(os.Interrupt)
		_ = agent.Wait() // after Wait, os/exec has stopped copying output
		stdout.flush()
		stderr.flush()
	}, nil
}

// callInterface sends each skill its example over one interface of the
// card, then asks for the extended card without credentials.
func callInterface(ctx context.Context, out io.Writer, card *a2av1.AgentCard, iface *a2av1.AgentInterface) error {
	c, err := agentcard.NewClient(card, agentcard.WithBindings(runtime.Binding(iface.GetProtocolBinding())))
	if err != nil {
		return err
	}
	defer c.Close()
	for _, skill := range card.GetSkills() {
		if err := callSkill(ctx, out, c, card, iface, skill); err != nil {
			return err
		}
	}
	if _, err := c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{}); err != nil {
		fmt.Fprintf(out, "  GetExtendedAgentCard without credentials: %v\n", err)
	}
	return nil
}

// callSkill sends the skill its first example, or, where the card's schema
// extension says the skill takes data, its JSON example (the last example)
// as a data part and then an empty object, which the agent refuses.
func callSkill(ctx context.Context, out io.Writer, c *agentcard.Client, card *a2av1.AgentCard, iface *a2av1.AgentInterface, skill *a2av1.AgentSkill) error {
	typed := typedInput(card, skill.GetId())
	req, what := message(skill.GetExamples()[0], skill.GetId()), fmt.Sprintf("%q", skill.GetExamples()[0])
	if typed {
		example := skill.GetExamples()[len(skill.GetExamples())-1]
		var err error
		if req, err = dataMessage(example, skill.GetId()); err != nil {
			return err
		}
		what = "data " + example
	}
	step(out, "%s %s: SendMessage %s to skill %s", iface.GetProtocolBinding(), iface.GetUrl(), what, skill.GetId())
	resp, err := c.SendMessage(ctx, req)
	if err != nil {
		return err
	}
	task := resp.GetTask()
	fmt.Fprintf(out, "  task %s: %s, artifact %s\n", task.GetId(), task.GetStatus().GetState(), artifactText(task))
	if typed {
		bad, _ := dataMessage("{}", skill.GetId())
		_, err := c.SendMessage(ctx, bad)
		fmt.Fprintf(out, "  data {} to skill %s: %v\n", skill.GetId(), err)
	}
	return nil
}

// Addresses of the example manifest.
const (
	exampleHTTPAddr = "127.0.0.1:18080"
	exampleGRPCAddr = "127.0.0.1:19090"
)

// withFreePorts writes a copy of the manifest into dir with its listen
// addresses moved to free loopback ports, and returns the copy's path and the
// new HTTP address.
func withFreePorts(manifest, dir string) (path, httpAddr string, err error) {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return "", "", err
	}
	if !bytes.Contains(data, []byte(exampleHTTPAddr)) || !bytes.Contains(data, []byte(exampleGRPCAddr)) {
		return "", "", fmt.Errorf("%s no longer listens on %s and %s; update the demo", manifest, exampleHTTPAddr, exampleGRPCAddr)
	}
	httpAddr, err = freeLoopbackAddr()
	if err != nil {
		return "", "", err
	}
	grpcAddr, err := freeLoopbackAddr()
	if err != nil {
		return "", "", err
	}
	data = bytes.ReplaceAll(data, []byte(exampleHTTPAddr), []byte(httpAddr))
	data = bytes.ReplaceAll(data, []byte(exampleGRPCAddr), []byte(grpcAddr))
	path = filepath.Join(dir, "agent.yaml")
	return path, httpAddr, os.WriteFile(path, data, 0o644)
}

// freeLoopbackAddr returns a loopback address whose port was free a moment ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// step prints what the demo does next, shell style.
func step(out io.Writer, format string, args ...any) {
	fmt.Fprintf(out, "\n$ "+format+"\n", args...)
}

// waitForCard polls the card URL until the agent answers (at most 10s).
func waitForCard(url string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.Join(errors.New("the agent did not serve its card within 10s"), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// message is a user message naming its skill in the metadata key the
// scaffolded routing reads.
func message(text, skill string) *a2av1.SendMessageRequest {
	md, _ := structpb.NewStruct(map[string]any{scaffold.SkillMetadataKey: skill})
	m := a2av1.NewTextMessage(text)
	m.Metadata = md
	return a2av1.NewSendMessageRequest(m)
}

// typedInput reports whether the card's skill-schemas extension gives the
// skill an input schema.
func typedInput(card *a2av1.AgentCard, skill string) bool {
	for _, e := range card.GetCapabilities().GetExtensions() {
		if e.GetUri() == manifest.SkillSchemasExtension {
			s := e.GetParams().GetFields()["skills"].GetStructValue().GetFields()[skill].GetStructValue()
			return s.GetFields()["input"] != nil
		}
	}
	return false
}

// dataMessage is message with the JSON value data as a data part.
func dataMessage(data, skill string) (*a2av1.SendMessageRequest, error) {
	part, err := a2av1.NewJSONDataPart([]byte(data))
	if err != nil {
		return nil, err
	}
	req := message("", skill)
	req.Message.Parts = []*a2av1.Part{part}
	return req, nil
}

// artifactText shows a task's artifacts: text as it is, data as JSON.
func artifactText(task *a2av1.Task) string {
	var parts []string
	for _, a := range task.GetArtifacts() {
		for _, p := range a.GetParts() {
			if d := p.GetData(); d != nil {
				b, _ := protojson.Marshal(d)
				parts = append(parts, "data "+string(b))
			} else if p.GetText() != "" {
				parts = append(parts, strconv.Quote(p.GetText()))
			}
		}
	}
	return strings.Join(parts, ", ")
}

// lockedWriter serialises writes to one writer: the demo's own output and
// the agent's stdout and stderr (copied by os/exec goroutines) all go to out.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// linePrefixer writes each complete line it receives to out with a prefix.
// A partial line waits for its end or for flush.
type linePrefixer struct {
	out     io.Writer
	prefix  string
	pending []byte
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		if _, err := fmt.Fprintf(l.out, "%s%s\n", l.prefix, l.pending[:i]); err != nil {
			return 0, err
		}
		l.pending = l.pending[i+1:]
	}
}

// flush writes a last line that ended without a newline.
func (l *linePrefixer) flush() {
	if len(l.pending) > 0 {
		fmt.Fprintf(l.out, "%s%s\n", l.prefix, l.pending)
		l.pending = nil
	}
}
