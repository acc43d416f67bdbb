package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

// agentAndTask reads [URL] TASK.
func (a *app) agentAndTask(args []string, what string) (url, task string, err error) {
	url, rest, err := a.agentArgs(args)
	if err != nil {
		return "", "", err
	}
	if len(rest) != 1 {
		return "", "", usagef("%s takes [URL] TASK, got %d argument(s) after the URL", what, len(rest))
	}
	return url, rest[0], nil
}

func (a *app) getCommand() *cobra.Command {
	var history int
	cmd := &cobra.Command{
		Use:   "get [URL] TASK",
		Short: "Show a task",
		Long: `get shows one task (GetTask): its state, context, last update, status message
and artifacts, and its history (all of it, or the last --history N messages).`,
		Example: `  a2a get http://localhost:8080 TASK
  a2a get http://localhost:8080 TASK --history 2
  a2a get http://localhost:8080 TASK -o json | jq .status.state`,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, id, err := a.agentAndTask(args, "get")
			if err != nil {
				return err
			}
			req := &a2av1.GetTaskRequest{Id: id}
			if cmd.Flags().Changed("history") {
				if history < 0 {
					return usagef("--history %d: must not be negative", history)
				}
				n := int32(history)
				req.HistoryLength = &n
			}
			return a.withClient(cmd.Context(), url, false, func(ctx context.Context, c *agentcard.Client) error {
				task, err := c.GetTask(ctx, req)
				if err != nil {
					return callError(err)
				}
				return a.emit(a.env.stdout, task, func(w io.Writer) { printTask(w, task, true) })
			})
		},
	}
	cmd.Flags().IntVar(&history, "history", 0, "show at most the last `N` history messages (default: all the agent keeps)")
	return cmd
}

func (a *app) listCommand() *cobra.Command {
	var (
		contextID, state, since, pageToken string
		pageSize                           int
		all                                bool
	)
	cmd := &cobra.Command{
		Use:   "list [URL]",
		Short: "List tasks",
		Long: `list shows the tasks the caller may see (ListTasks), most recently updated
first, as a table: id, state, last update, context and the first line of the
last message. --context, --state and --since filter; one page is shown
(--page-size, then --page-token with the token printed below the table) or
every page with --all. With -o json each page is one ListTasksResponse line.

Agents may show anonymous callers only the tasks of a context they name:
give --context, or authenticate with --auth.`,
		Example: `  a2a list http://localhost:8080 --context CTX
  a2a list http://localhost:8080 --state working --since 10m
  a2a list http://localhost:8080 --auth "Bearer $TOKEN" --all
  a2a list http://localhost:8080 --page-size 10 --page-token TOKEN`,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, rest, err := a.agentArgs(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("list takes only the agent URL, got %q too", rest)
			}
			req := &a2av1.ListTasksRequest{ContextId: contextID, PageToken: pageToken}
			if state != "" {
				if req.Status, err = parseState(state); err != nil {
					return err
				}
			}
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return err
				}
				req.StatusTimestampAfter = timestamppb.New(t)
			}
			if cmd.Flags().Changed("page-size") {
				if pageSize < 1 || pageSize > 100 {
					return usagef("--page-size %d: want 1 to 100", pageSize)
				}
				n := int32(pageSize)
				req.PageSize = &n
			}
			return a.withClient(cmd.Context(), url, false, func(ctx context.Context, c *agentcard.Client) error {
				var tasks []*a2av1.Task
				var next string
				for {
					resp, err := c.ListTasks(ctx, req)
					if err != nil {
						return callError(err)
					}
					if a.output != "text" {
						if err := a.emit(a.env.stdout, resp, nil); err != nil {
							return err
						}
					}
					tasks = append(tasks, resp.GetTasks()...)
					next = resp.GetNextPageToken()
					if !all || next == "" {
						break
					}
					req.PageToken = next
				}
				if a.output == "text" {
					printTaskTable(a.env.stdout, tasks)
					if next != "" {
						fmt.Fprintf(a.env.stdout, "next page: --page-token %s\n", next)
					}
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&contextID, "context", "", "only tasks of the context `ID`")
	f.StringVar(&state, "state", "", "only tasks in `STATE` (submitted, working, completed, failed, canceled, input-required, rejected, auth-required)")
	f.StringVar(&since, "since", "", "only tasks updated after `TIME` (RFC 3339) or a duration ago (10m)")
	f.IntVar(&pageSize, "page-size", 0, "tasks per page, 1 to 100 (default: the agent's)")
	f.StringVar(&pageToken, "page-token", "", "continue from the page `TOKEN` a previous list printed")
	f.BoolVar(&all, "all", false, "fetch every page")
	_ = cmd.RegisterFlagCompletionFunc("state", cobra.FixedCompletions(stateNames(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
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
		Use:   "cancel [URL] TASK",
		Short: "Cancel a task",
		Long: `cancel asks the agent to stop a task (CancelTask) and shows the task as it is
afterwards. Finished tasks cannot be canceled (TaskNotCancelable, exit 3).`,
		Example: `  a2a cancel http://localhost:8080 TASK`,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, id, err := a.agentAndTask(args, "cancel")
			if err != nil {
				return err
			}
			return a.withClient(cmd.Context(), url, false, func(ctx context.Context, c *agentcard.Client) error {
				task, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: id})
				if err != nil {
					return callError(err)
				}
				return a.emit(a.env.stdout, task, func(w io.Writer) { printTask(w, task, false) })
			})
		},
	}
}

func (a *app) subscribeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "subscribe [URL] TASK",
		Short: "Follow a running task's events",
		Long: `subscribe attaches to a running task (SubscribeToTask) and prints its events
as they arrive, like send --stream: first the task as it is, then status
changes and artifact chunks. It ends when the task finishes or waits for
input; the exit code is 5 when it ended FAILED, REJECTED or CANCELED.`,
		Example: `  a2a subscribe http://localhost:8080 TASK
  a2a subscribe http://localhost:8080 TASK -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, id, err := a.agentAndTask(args, "subscribe")
			if err != nil {
				return err
			}
			return a.withClient(cmd.Context(), url, true, func(ctx context.Context, c *agentcard.Client) error {
				taskID, last, err := a.followStream(c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}))
				if err != nil {
					return err
				}
				if taskID == "" {
					taskID = id
				}
				return endedBadly(taskID, last)
			})
		},
	}
}
