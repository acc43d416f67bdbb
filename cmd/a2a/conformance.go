package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// conformance smoke-checks a live agent. With a checkout of the A2A TCK
// (--tck DIR or A2ACLI_TCK) it runs the TCK's run_tck.py against the agent
// (its Python dependencies installed by the caller; nothing of the TCK
// ships here); without, a native check of the operations every A2A agent
// answers, on the transport a2a chose.

func (a *app) conformanceCommand() *cobra.Command {
	var tf tckFlags
	cmd := &cobra.Command{
		Use:   "conformance",
		Short: "Smoke-check a live agent against the A2A protocol",
		Long: `conformance checks that an agent answers as A2A says. With --tck DIR (or
A2ACLI_TCK), a checkout of the A2A TCK (github.com/a2aproject/a2a-tck) with
its Python dependencies installed, it runs the TCK's run_tck.py against the
agent (--category, default mandatory). Without, it runs a native smoke
check on the chosen transport: the card is valid; a message is answered;
the task reads back; tasks list; an unknown task is TaskNotFoundError;
streaming, push configs and the extended card where the card declares
them. One "Check:"/"Result:" pair per check; the exit code is 1 (code
A2AGEN_CONFORMANCE_FAILED) when a check fails.`,
		Example: `  a2a conformance -a http://localhost:8080
  a2a conformance -a http://localhost:8080 --transport grpc
  a2a conformance -a http://localhost:8080 --tck ~/src/a2a-tck --category all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ref, _, err := a.agentArgs(nil)
			if err != nil {
				return err
			}
			if tf.dir != "" {
				return a.runTCK(cmd.Context(), ref, tf)
			}
			return a.withClient(cmd.Context(), ref, false, func(ctx context.Context, c *agentcard.Client) error {
				return a.smokeCheck(ctx, ref, c)
			})
		},
	}
	cmd.Flags().StringVar(&tf.dir, "tck", "", "run the A2A TCK of this checkout `DIR` instead of the native check")
	cmd.Flags().StringVar(&tf.category, "category", "mandatory", "the TCK category to run (mandatory, capabilities, quality, features, all)")
	return cmd
}

// tckFlags choose the A2A TCK run instead of the native check: the
// checkout's directory (none: the native check) and the category to run.
type tckFlags struct {
	dir      string
	category string
}

// runTCK runs the TCK's runner against the agent, its output on stderr.
func (a *app) runTCK(ctx context.Context, ref string, tf tckFlags) error {
	runner := filepath.Join(tf.dir, "run_tck.py")
	if _, err := os.Stat(runner); err != nil {
		return usagef("--tck %s: no run_tck.py there (want a checkout of github.com/a2aproject/a2a-tck): %v", tf.dir, err)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		return usagef("--tck needs python3 on PATH: %v", err)
	}
	c := exec.CommandContext(ctx, python, runner, "--sut-url", ref, "--category", tf.category)
	c.Dir = tf.dir
	c.Stdout, c.Stderr = a.env.stderr, a.env.stderr
	err = c.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return &cliError{code: errConformance, hint: "the TCK's report above says which tests failed", err: fmt.Errorf("the TCK found failures (run_tck.py exit %d)", exit.ExitCode())}
	case err != nil:
		return err
	}
	labeled(a.env.stdout, "Route", "tck "+tf.dir)
	labeled(a.env.stdout, "Result", "pass")
	return nil
}

// smokeResult is one native check's line of the report.
type smokeResult struct {
	Check  string `json:"check"`
	Result string `json:"result"`
}

// smokeRun is what the native checks share: the agent's client and the task
// the first message created ("" when it was answered by a message).
type smokeRun struct {
	a      *app
	ref    string
	c      *agentcard.Client
	taskID string
}

// nativeCheck is one check of the native smoke check; applies (nil: always)
// is asked just before the check runs, after the ones above it.
type nativeCheck struct {
	name    string
	applies func(r *smokeRun) bool
	run     func(ctx context.Context, r *smokeRun) error
}

// nativeChecks are the native smoke check's checks, in the order they run.
var nativeChecks = []nativeCheck{
	{name: "card is a valid A2A agent card", run: checkCardValid},
	{name: "SendMessage is answered with a task or a message", run: checkSendMessage},
	{name: "GetTask reads the task back", applies: hasTask, run: checkGetTask},
	{name: "ListTasks answers", run: func(ctx context.Context, r *smokeRun) error {
		_, err := r.c.ListTasks(ctx, &a2av1.ListTasksRequest{})
		return err
	}},
	{name: "an unknown task is TaskNotFoundError", run: checkUnknownTask},
	{name: "SendStreamingMessage streams to a final event", run: checkStreaming,
		applies: func(r *smokeRun) bool { return r.c.Card.GetCapabilities().GetStreaming() }},
	{name: "push configs list",
		applies: func(r *smokeRun) bool { return r.c.Card.GetCapabilities().GetPushNotifications() && hasTask(r) },
		run: func(ctx context.Context, r *smokeRun) error {
			_, err := r.c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: r.taskID})
			return err
		}},
	{name: "GetExtendedAgentCard answers an authenticated caller",
		applies: func(r *smokeRun) bool {
			return r.c.Card.GetCapabilities().GetExtendedAgentCard() && r.a.credentialsGiven()
		},
		run: func(ctx context.Context, r *smokeRun) error {
			_, err := r.c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
			return err
		}},
}

// smokeCheck runs the native checks and reports each.
func (a *app) smokeCheck(ctx context.Context, ref string, c *agentcard.Client) error {
	run := &smokeRun{a: a, ref: ref, c: c}
	var results []smokeResult
	failed := 0
	for _, check := range nativeChecks {
		if check.applies != nil && !check.applies(run) {
			continue
		}
		if err := check.run(ctx, run); err != nil {
			failed++
			results = append(results, smokeResult{check.name, "fail: " + oneLine(err.Error())})
			continue
		}
		results = append(results, smokeResult{check.name, "pass"})
	}
	a.reportSmoke(c, results, failed > 0)
	if failed > 0 {
		return &cliError{code: errConformance, hint: "the Result lines above say which checks failed",
			err: fmt.Errorf("%d check(s) failed", failed)}
	}
	return nil
}

// reportSmoke prints the native check's report: one JSON document (on
// stderr when a check failed, stdout then holding the one error document)
// or the Route, Agent and Transport lines and a Check/Result pair a check.
func (a *app) reportSmoke(c *agentcard.Client, results []smokeResult, failed bool) {
	transport := c.Interface.GetProtocolBinding() + " " + c.Interface.GetUrl()
	if a.output == "json" {
		b, _ := json.Marshal(map[string]any{"route": "native", "agent": c.Card.GetName(), "transport": transport, "checks": results})
		w := a.env.stdout
		if failed {
			w = a.env.stderr
		}
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	labeled(a.env.stdout, "Route", "native smoke check")
	labeled(a.env.stdout, "Agent", c.Card.GetName())
	labeled(a.env.stdout, "Transport", transport)
	for _, r := range results {
		labeled(a.env.stdout, "Check", r.Check)
		labeled(a.env.stdout, "Result", r.Result)
	}
}

func hasTask(r *smokeRun) bool { return r.taskID != "" }

func checkCardValid(ctx context.Context, r *smokeRun) error {
	card, err := r.a.resolveCard(ctx, r.ref)
	if err != nil {
		return err
	}
	if problems := validateCard(card.doc); len(problems) > 0 {
		return fmt.Errorf("%v", problems)
	}
	return nil
}

// checkSendMessage sends a message and keeps the task it created, if any,
// for the checks that read it.
func checkSendMessage(ctx context.Context, r *smokeRun) error {
	resp, err := r.c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello from a2a conformance")))
	if err != nil {
		return err
	}
	if resp.GetTask() == nil && resp.GetMessage() == nil {
		return errors.New("the answer holds neither")
	}
	if t := resp.GetTask(); t != nil {
		if t.GetId() == "" || t.GetContextId() == "" {
			return errors.New("the task lacks its id or context id")
		}
		r.taskID = t.GetId()
	}
	return nil
}

func checkGetTask(ctx context.Context, r *smokeRun) error {
	t, err := r.c.GetTask(ctx, &a2av1.GetTaskRequest{Id: r.taskID})
	if err == nil && t.GetId() != r.taskID {
		err = fmt.Errorf("asked for %s, got %s", r.taskID, t.GetId())
	}
	return err
}

func checkUnknownTask(ctx context.Context, r *smokeRun) error {
	_, err := r.c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "a2a-conformance-no-such-task"})
	if !errors.Is(err, runtime.ErrTaskNotFound) {
		return fmt.Errorf("got %v", err)
	}
	return nil
}

// checkStreaming wants a stream that starts with the task or a message and
// ends, within 30 seconds.
func checkStreaming(ctx context.Context, r *smokeRun) error {
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	n := 0
	for ev, err := range r.c.SendStreamingMessage(sctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello from a2a conformance"))) {
		if err != nil {
			return err
		}
		if n == 0 && ev.GetTask() == nil && ev.GetMessage() == nil {
			return errors.New("the first event is neither the task nor a message")
		}
		n++
	}
	if n == 0 {
		return errors.New("no event")
	}
	return nil
}
