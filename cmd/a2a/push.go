package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

func (a *app) pushCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "push-config",
		Short: "Manage a task's push-notification configs (webhooks)",
		Long: `push creates, shows, lists and deletes the webhooks an agent posts a task's
events to (push notifications; the agent's card must declare them). Try them
locally with a2a webhook listen. Agents answer configs with their secrets
(token, credentials) removed.`,
		Example: `  a2a webhook listen 127.0.0.1:9000 --token s3cret &
  a2a task push-config create -a http://localhost:8080 TASK http://127.0.0.1:9000/hook --token s3cret
  a2a task push-config list -a http://localhost:8080 TASK
  a2a task push-config get -a http://localhost:8080 TASK CONFIG
  a2a task push-config delete -a http://localhost:8080 TASK CONFIG`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown push-config command %q (create, get, list, delete)", args[0])
			}
			return usagef("push-config needs a command: create, get, list or delete")
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(a.pushCreateCommand(),
		a.pushConfigCommand("get", "Show one push-notification config", a.getPushConfig),
		a.pushListCommand(),
		a.pushConfigCommand("delete", "Delete a push-notification config", a.deletePushConfig))
	return cmd
}

// agentTaskAnd reads [URL] TASK X.
func (a *app) agentTaskAnd(args []string, what, third string) (url, task, x string, err error) {
	url, rest, err := a.agentArgs(args)
	if err != nil {
		return "", "", "", err
	}
	if len(rest) != 2 {
		return "", "", "", usagef("%s takes TASK %s, got %d argument(s)", what, third, len(rest))
	}
	return url, rest[0], rest[1], nil
}

// withPushClient is withClient for the push-config commands, whose agent's
// card must declare push notifications.
func (a *app) withPushClient(ctx context.Context, url string, call func(context.Context, *agentcard.Client) error) error {
	return a.withClient(ctx, url, false, func(ctx context.Context, c *agentcard.Client) error {
		if err := pushCapable(c); err != nil {
			return err
		}
		return call(ctx, c)
	})
}

// onPushConfig is the RunE of a command about one push config ([URL] TASK
// CONFIG): run is called with a client of the agent.
func (a *app) onPushConfig(what string, run func(ctx context.Context, c *agentcard.Client, task, id string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		url, task, id, err := a.agentTaskAnd(args, what, "CONFIG")
		if err != nil {
			return err
		}
		return a.withPushClient(cmd.Context(), url, func(ctx context.Context, c *agentcard.Client) error {
			return run(ctx, c, task, id)
		})
	}
}

func (a *app) pushCreateCommand() *cobra.Command {
	var pf pushCreateFlags
	cmd := &cobra.Command{
		Use:   "create TASK WEBHOOK-URL",
		Short: "Register a webhook for a task's events",
		Long: `create registers WEBHOOK-URL for the task's events
(CreateTaskPushNotificationConfig). --token is sent with every delivery
(X-A2A-Notification-Token), --auth-scheme and --auth-credentials as its
Authorization header. An --id of an existing config replaces it.`,
		Example: `  a2a task push-config create -a http://localhost:8080 TASK http://127.0.0.1:9000/hook --token s3cret
  a2a task push-config create -a http://localhost:8080 TASK https://hooks.example.com/a2a --auth-scheme Bearer --auth-credentials "$HOOK_TOKEN"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, task, hook, err := a.agentTaskAnd(args, "task push-config create", "WEBHOOK-URL")
			if err != nil {
				return err
			}
			req, err := pf.config(task, hook)
			if err != nil {
				return err
			}
			return a.withPushClient(cmd.Context(), url, func(ctx context.Context, c *agentcard.Client) error {
				cfg, err := c.CreateTaskPushNotificationConfig(ctx, req)
				if err != nil {
					return callError(err)
				}
				return a.emit(a.env.stdout, cfg, func(w io.Writer) { printPushConfig(w, cfg) })
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&pf.id, "id", "", "config `ID` (default: the agent assigns one)")
	f.StringVar(&pf.token, "token", "", "token the agent sends with each delivery")
	f.StringVar(&pf.authScheme, "auth-scheme", "", "Authorization scheme of the deliveries, e.g. Bearer")
	f.StringVar(&pf.authCredentials, "auth-credentials", "", "Authorization credentials of the deliveries")
	return cmd
}

// pushCreateFlags are push-config create's flags.
type pushCreateFlags struct {
	id, token, authScheme, authCredentials string
}

// config is the push config the flags ask for: hook receiving task's events.
func (pf pushCreateFlags) config(task, hook string) (*a2av1.TaskPushNotificationConfig, error) {
	if !isHTTPURL(hook) {
		return nil, usagef("webhook URL %q: want http:// or https://", hook)
	}
	cfg := &a2av1.TaskPushNotificationConfig{TaskId: task, Id: pf.id, Url: hook, Token: pf.token}
	if pf.authScheme != "" || pf.authCredentials != "" {
		if pf.authScheme == "" {
			return nil, usagef("--auth-credentials needs --auth-scheme")
		}
		cfg.Authentication = &a2av1.AuthenticationInfo{Scheme: pf.authScheme, Credentials: pf.authCredentials}
	}
	return cfg, nil
}

// pushConfigCommand is the command verb about one push config (TASK
// CONFIG), which run carries out.
func (a *app) pushConfigCommand(verb, short string, run func(ctx context.Context, c *agentcard.Client, task, id string) error) *cobra.Command {
	return &cobra.Command{
		Use:     verb + " TASK CONFIG",
		Short:   short,
		Example: "  a2a task push-config " + verb + " -a http://localhost:8080 TASK CONFIG",
		RunE:    a.onPushConfig("task push-config "+verb, run),
	}
}

// getPushConfig reads and prints the task's push config id.
func (a *app) getPushConfig(ctx context.Context, c *agentcard.Client, task, id string) error {
	cfg, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: task, Id: id})
	if err != nil {
		return callError(err)
	}
	return a.emit(a.env.stdout, cfg, func(w io.Writer) { printPushConfig(w, cfg) })
}

func (a *app) pushListCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "list TASK",
		Short:   "List a task's push-notification configs",
		Example: `  a2a task push-config list -a http://localhost:8080 TASK`,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, task, err := a.agentAndTask(args, "task push-config list")
			if err != nil {
				return err
			}
			return a.withPushClient(cmd.Context(), url, func(ctx context.Context, c *agentcard.Client) error {
				return a.listPushConfigs(ctx, c, task)
			})
		},
	}
}

// listPushConfigs reads every page of the task's push configs and prints
// them as one list.
func (a *app) listPushConfigs(ctx context.Context, c *agentcard.Client, task string) error {
	req := &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: task}
	merged := &a2av1.ListTaskPushNotificationConfigsResponse{}
	for {
		resp, err := c.ListTaskPushNotificationConfigs(ctx, req)
		if err != nil {
			return callError(err)
		}
		merged.Configs = append(merged.Configs, resp.GetConfigs()...)
		if resp.GetNextPageToken() == "" || resp.GetNextPageToken() == req.PageToken {
			break
		}
		req.PageToken = resp.GetNextPageToken()
	}
	return a.emit(a.env.stdout, merged, func(w io.Writer) {
		labeled(w, "Task ID", task)
		labeled(w, "Push Configs", fmt.Sprint(len(merged.GetConfigs())))
		for _, cfg := range merged.GetConfigs() {
			fmt.Fprintln(w)
			printPushConfig(w, cfg)
		}
	})
}

// deletePushConfig deletes the task's push config id and says so.
func (a *app) deletePushConfig(ctx context.Context, c *agentcard.Client, task, id string) error {
	empty, err := c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: task, Id: id})
	if err != nil {
		return callError(err)
	}
	return a.emit(a.env.stdout, empty, func(w io.Writer) {
		labeled(w, "Deleted Config ID", id)
		labeled(w, "Task ID", task)
	})
}

// pushCapable checks the card declares push notifications (SPEC.md §13.3).
func pushCapable(c *agentcard.Client) error {
	if c.Card.GetCapabilities().GetPushNotifications() {
		return nil
	}
	return &cliError{code: errUsage, hint: "'a2a card get' shows the agent's capabilities",
		err: fmt.Errorf("the agent's card does not declare push notifications, which push configs need")}
}
