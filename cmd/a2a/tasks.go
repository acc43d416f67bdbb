package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

// taskCommand is the task resource: get, list, cancel, subscribe,
// push-config, download.
func (a *app) taskCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "task",
		Short: "Read, list, cancel and follow tasks, manage their webhooks, save their artifacts",
		Long: `task acts on the tasks of an agent: get (with --wait: poll until it is
finished or interrupted), list, cancel, subscribe (follow its events),
push-config (its webhooks) and download (save its artifacts).`,
		Example: `  a2a task get -a http://localhost:8080 TASK
  a2a task list -a http://localhost:8080 --context-id CTX
  a2a task subscribe -a http://localhost:8080 TASK --stream`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown task command %q (get, list, cancel, subscribe, push-config, download)", args[0])
			}
			return usagef("task needs a command: get, list, cancel, subscribe, push-config or download")
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(a.getCommand(), a.listCommand(), a.cancelCommand(), a.subscribeCommand(), a.pushCommand(), a.downloadCommand())
	return cmd
}

// agentAndTask reads [URL] TASK.
func (a *app) agentAndTask(args []string, what string) (url, task string, err error) {
	url, rest, err := a.agentArgs(args)
	if err != nil {
		return "", "", err
	}
	if len(rest) != 1 {
		return "", "", usagef("%s takes TASK (the task id), got %d argument(s)", what, len(rest))
	}
	return url, rest[0], nil
}

// onTask is the RunE of a command about one task ([URL] TASK): run is
// called with a client of the agent (waits: without a default timeout) and
// the task's id.
func (a *app) onTask(what string, waits bool, run func(ctx context.Context, c *agentcard.Client, taskID string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		url, id, err := a.agentAndTask(args, what)
		if err != nil {
			return err
		}
		return a.withClient(cmd.Context(), url, waits, func(ctx context.Context, c *agentcard.Client) error {
			return run(ctx, c, id)
		})
	}
}

func (a *app) getCommand() *cobra.Command {
	var gf getFlags
	cmd := &cobra.Command{
		Use:   "get TASK",
		Short: "Show a task: its state, artifacts and history",
		Long: `get shows one task (GetTask): its identifiers, state, last update, status
message and artifacts, and with --history N its last N history messages.
--wait polls every --poll-interval until the task is finished or
interrupted (--watch is the same).`,
		Example: `  a2a task get -a http://localhost:8080 TASK
  a2a task get -a http://localhost:8080 TASK --history 2
  a2a task get -a http://localhost:8080 TASK --wait --timeout 5m
  a2a task get -a http://localhost:8080 TASK -o json | jq .status.state`,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, id, err := a.agentAndTask(args, "task get")
			if err != nil {
				return err
			}
			gf.historySet = cmd.Flags().Changed("history")
			req, err := gf.request(id)
			if err != nil {
				return err
			}
			return a.withClient(cmd.Context(), url, gf.wait, func(ctx context.Context, c *agentcard.Client) error {
				return a.getTask(ctx, c, req, gf.wait)
			})
		},
	}
	cmd.Flags().IntVar(&gf.history, "history", 0, "show at most the last `N` history messages (default: all the agent keeps)")
	cmd.Flags().BoolVar(&gf.wait, "wait", false, "poll until the task is finished or interrupted")
	cmd.Flags().BoolVar(&gf.wait, "watch", false, "the same as --wait")
	return cmd
}

// getFlags are task get's flags.
type getFlags struct {
	history    int
	historySet bool
	wait       bool
}

// request is the GetTaskRequest for task id the flags ask for.
func (gf getFlags) request(id string) (*a2av1.GetTaskRequest, error) {
	req := &a2av1.GetTaskRequest{Id: id}
	if gf.historySet {
		if gf.history < 0 {
			return nil, usagef("--history %d: must not be negative", gf.history)
		}
		n := int32(gf.history)
		req.HistoryLength = &n
	}
	return req, nil
}

// getTask reads the task, with wait polling until it is finished or
// interrupted, and prints it.
func (a *app) getTask(ctx context.Context, c *agentcard.Client, req *a2av1.GetTaskRequest, wait bool) error {
	var task *a2av1.Task
	var err error
	if wait {
		task, err = a.waitForTask(ctx, c, req.GetId(), req.HistoryLength)
	} else {
		task, err = c.GetTask(ctx, req)
	}
	if err != nil {
		return callError(err)
	}
	if err := a.emit(a.env.stdout, task, func(w io.Writer) { printTask(w, task, true) }); err != nil {
		return err
	}
	return a.noteOutcome(task.GetId(), task.GetContextId(), task.GetStatus().GetState())
}

// listFlags are task list's flags.
type listFlags struct {
	contextID, state, since, pageToken string
	pageSize                           int
	pageSizeSet                        bool
	all, stream                        bool
}

func (a *app) listCommand() *cobra.Command {
	var lf listFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List tasks",
		Long: `list shows the tasks the caller may see (ListTasks), most recently updated
first. --context-id, --status and --since filter; one page is shown
(--page-size, then --page-token with the token printed last) or every page
with --all. With -o json the answer is one ListTasksResponse (all pages in
one with --all); with -o json --stream one Task per line.

Agents may show anonymous callers only the tasks of a context they name:
give --context-id, or credentials (--bearer).`,
		Example: `  a2a task list -a http://localhost:8080 --context-id CTX
  a2a task list -a http://localhost:8080 --status working --since 10m
  a2a task list -a http://localhost:8080 --bearer "$TOKEN" --all
  a2a task list -a http://localhost:8080 --page-size 10 --page-token TOKEN`,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, rest, err := a.agentArgs(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("task list takes no arguments, got %q", rest)
			}
			lf.pageSizeSet = cmd.Flags().Changed("page-size")
			req, err := lf.request(time.Now())
			if err != nil {
				return err
			}
			return a.withClient(cmd.Context(), url, false, func(ctx context.Context, c *agentcard.Client) error {
				return a.listTasks(ctx, c, req, lf)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&lf.contextID, "context-id", "", "only tasks of the context `ID`")
	f.StringVar(&lf.state, "status", "", "only tasks in `STATE` (submitted, working, completed, failed, canceled, input-required, rejected, auth-required)")
	f.StringVar(&lf.since, "since", "", "only tasks updated after `TIME` (RFC 3339) or a duration ago (10m)")
	f.IntVar(&lf.pageSize, "page-size", 0, "tasks per page, 1 to 100 (default: the agent's)")
	f.StringVar(&lf.pageToken, "page-token", "", "continue from the page `TOKEN` a previous list printed")
	f.BoolVar(&lf.all, "all", false, "fetch every page")
	f.BoolVar(&lf.stream, "stream", false, "with -o json, one Task per line")
	f.StringVar(&lf.contextID, "context", "", "deprecated: --context-id")
	f.StringVar(&lf.state, "state", "", "deprecated: --status")
	_ = f.MarkHidden("context")
	_ = f.MarkHidden("state")
	_ = cmd.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(stateNames(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// request is the first ListTasksRequest the flags ask for; a --since
// duration counts back from now.
func (lf listFlags) request(now time.Time) (*a2av1.ListTasksRequest, error) {
	req := &a2av1.ListTasksRequest{ContextId: lf.contextID, PageToken: lf.pageToken}
	if lf.state != "" {
		state, err := parseState(lf.state)
		if err != nil {
			return nil, err
		}
		req.Status = state
	}
	if lf.since != "" {
		t, err := parseSince(lf.since, now)
		if err != nil {
			return nil, err
		}
		req.StatusTimestampAfter = timestamppb.New(t)
	}
	if lf.pageSizeSet {
		if lf.pageSize < 1 || lf.pageSize > 100 {
			return nil, usagef("--page-size %d: want 1 to 100", lf.pageSize)
		}
		n := int32(lf.pageSize)
		req.PageSize = &n
	}
	return req, nil
}

// listTasks lists one page, or every page with --all, and prints them: a
// Task a line as they come with -o json --stream, else one list.
func (a *app) listTasks(ctx context.Context, c *agentcard.Client, req *a2av1.ListTasksRequest, lf listFlags) error {
	streaming := lf.stream && a.output != "text"
	merged, err := a.taskPages(ctx, c, req, lf.all, streaming)
	if err != nil || streaming {
		return err
	}
	if err := a.emit(a.env.stdout, merged, func(w io.Writer) {
		printTaskList(w, merged.GetTasks())
		if merged.NextPageToken != "" {
			labeled(w, "Next Page Token", merged.NextPageToken)
		}
	}); err != nil {
		return err
	}
	if len(merged.GetTasks()) == 0 && lf.contextID == "" && !a.credentialsGiven() {
		fmt.Fprintln(a.env.stderr, "a2a: hint: no tasks listed. Agents often show anonymous callers only the tasks of a context they name: give --context-id CTX (send prints it as Context ID), or credentials with --bearer")
	}
	return nil
}

// taskPages reads one page of tasks, or with all every page, into one
// response; with each set it also prints every page's tasks as they come.
func (a *app) taskPages(ctx context.Context, c *agentcard.Client, req *a2av1.ListTasksRequest, all, each bool) (*a2av1.ListTasksResponse, error) {
	merged := &a2av1.ListTasksResponse{}
	for {
		resp, err := c.ListTasks(ctx, req)
		if err != nil {
			return nil, callError(err)
		}
		if each {
			if err := a.emitEach(resp.GetTasks()); err != nil {
				return nil, err
			}
		}
		merged.Tasks = append(merged.Tasks, resp.GetTasks()...)
		merged.NextPageToken = resp.GetNextPageToken()
		merged.PageSize = resp.GetPageSize()
		merged.TotalSize = resp.GetTotalSize()
		if !all || merged.NextPageToken == "" {
			return merged, nil
		}
		req.PageToken = merged.NextPageToken
	}
}

// emitEach prints each task as one document on stdout.
func (a *app) emitEach(tasks []*a2av1.Task) error {
	for _, t := range tasks {
		if err := a.emit(a.env.stdout, t, nil); err != nil {
			return err
		}
	}
	return nil
}

// parseState reads a --state value: "working", "input-required",
// "TASK_STATE_WORKING"…
func parseState(s string) (a2av1.TaskState, error) {
	name := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), "-", "_"))
	if !strings.HasPrefix(name, "TASK_STATE_") {
		name = "TASK_STATE_" + name
	}
	v, ok := a2av1.TaskState_value[name]
	if !ok || v == 0 {
		return 0, usagef("--state %q: want one of %s", s, strings.Join(stateNames(), ", "))
	}
	return a2av1.TaskState(v), nil
}

func stateNames() []string {
	var names []string
	for v := int32(1); ; v++ {
		name, ok := a2av1.TaskState_name[v]
		if !ok {
			return names
		}
		names = append(names, strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, "TASK_STATE_"), "_", "-")))
	}
}

func (a *app) cancelCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "cancel TASK",
		Short: "Cancel a task",
		Long: `cancel asks the agent to stop a task (CancelTask) and shows the task as it is
afterwards. Canceling a canceled task shows it again; a task that finished
otherwise cannot be canceled (TaskNotCancelableError).`,
		Example: `  a2a task cancel -a http://localhost:8080 TASK`,
		RunE: a.onTask("task cancel", false, func(ctx context.Context, c *agentcard.Client, id string) error {
			task, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: id})
			if err != nil {
				return callError(err)
			}
			return a.emit(a.env.stdout, task, func(w io.Writer) { printTask(w, task, false) })
		}),
	}
}

func (a *app) subscribeCommand() *cobra.Command {
	var stream bool
	cmd := &cobra.Command{
		Use:   "subscribe TASK",
		Short: "Follow a running task's events",
		Long: `subscribe attaches to a running task (SubscribeToTask): first the task as it
is, then its status changes and artifact chunks, until it is finished or
interrupted. With --stream each event is printed as it arrives (JSON Lines
with -o json); without, the task at its end. Run it again after a
disconnect: the first event is the whole task again.`,
		Example: `  a2a task subscribe -a http://localhost:8080 TASK --stream
  a2a task subscribe -a http://localhost:8080 TASK -o json`,
		RunE: a.onTask("task subscribe", true, func(ctx context.Context, c *agentcard.Client, id string) error {
			return a.subscribe(ctx, c, id, stream)
		}),
	}
	cmd.Flags().BoolVar(&stream, "stream", false, "print every event as it arrives (JSON Lines with -o json)")
	return cmd
}

// subscribe follows the task's events: printing each with --stream (stream),
// else the task at its end.
func (a *app) subscribe(ctx context.Context, c *agentcard.Client, id string, stream bool) error {
	if !c.Card.GetCapabilities().GetStreaming() {
		return &cliError{code: errUsage, hint: "poll the task instead: a2a task get --wait " + id,
			err: fmt.Errorf("the agent's card does not declare streaming, which task subscribe needs")}
	}
	events := c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id})
	if stream {
		end, err := a.followStream(events)
		if err != nil {
			return err
		}
		if end.taskID == "" {
			end.taskID = id
		}
		return a.noteOutcome(end.taskID, end.contextID, end.state)
	}
	// Without --stream: one document, the task at the end.
	taskID, err := lastTaskID(events, id)
	if err != nil {
		return err
	}
	task, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: taskID})
	if err != nil {
		return callError(err)
	}
	if err := a.emit(a.env.stdout, task, func(w io.Writer) { printTask(w, task, false) }); err != nil {
		return err
	}
	return a.noteOutcome(task.GetId(), task.GetContextId(), task.GetStatus().GetState())
}

// lastTaskID drains the events and returns the last task id one named, or
// id when none did.
func lastTaskID(events iter.Seq2[*a2av1.StreamResponse, error], id string) (string, error) {
	for ev, err := range events {
		if err != nil {
			return "", callError(err)
		}
		if ev.TaskID() != "" {
			id = ev.TaskID()
		}
	}
	return id, nil
}
