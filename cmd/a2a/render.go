package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// The text output: short, aligned, one fact per line, for people. Scripts
// use -o json.

// printCard writes the facts of a card a caller needs to talk to it.
func printCard(w io.Writer, card *a2av1.AgentCard) {
	fmt.Fprintf(w, "%s %s\n", card.GetName(), card.GetVersion())
	if d := card.GetDescription(); d != "" {
		fmt.Fprintf(w, "  %s\n", firstLine(d))
	}
	if p := card.GetProvider(); p != nil {
		fmt.Fprintf(w, "provider    %s %s\n", p.GetOrganization(), p.GetUrl())
	}
	fmt.Fprintln(w, "interfaces")
	for _, itf := range card.GetSupportedInterfaces() {
		tenant := ""
		if t := itf.GetTenant(); t != "" {
			tenant = " tenant " + t
		}
		fmt.Fprintf(w, "  %-10s %-4s %s%s\n", itf.GetProtocolBinding(), itf.GetProtocolVersion(), itf.GetUrl(), tenant)
	}
	caps := card.GetCapabilities()
	var on []string
	if caps.GetStreaming() {
		on = append(on, "streaming")
	}
	if caps.GetPushNotifications() {
		on = append(on, "push notifications")
	}
	if caps.GetExtendedAgentCard() {
		on = append(on, "extended card")
	}
	fmt.Fprintf(w, "capabilities %s\n", listOr(on, "none"))
	for _, e := range caps.GetExtensions() {
		req := ""
		if e.GetRequired() {
			req = " (required)"
		}
		fmt.Fprintf(w, "extension   %s%s\n", e.GetUri(), req)
	}
	fmt.Fprintf(w, "input       %s\n", listOr(card.GetDefaultInputModes(), "-"))
	fmt.Fprintf(w, "output      %s\n", listOr(card.GetDefaultOutputModes(), "-"))
	if len(card.GetSecuritySchemes()) > 0 {
		names := make([]string, 0, len(card.GetSecuritySchemes()))
		for n := range card.GetSecuritySchemes() {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(w, "security    %s\n", strings.Join(names, ", "))
	}
	printSkills(w, card)
	if n := len(card.GetSignatures()); n > 0 {
		fmt.Fprintf(w, "signatures  %d\n", n)
	}
}

// printTask writes a task: id and state, context, update time, status
// message, artifacts, and the history when withHistory is set.
func printTask(w io.Writer, t *a2av1.Task, withHistory bool) {
	fmt.Fprintf(w, "task %s %s\n", t.GetId(), t.GetStatus().GetState().Short())
	fmt.Fprintf(w, "  context   %s\n", t.GetContextId())
	if ts := t.GetStatus().GetTimestamp(); ts != nil {
		fmt.Fprintf(w, "  updated   %s\n", formatTime(ts))
	}
	if m := t.GetStatus().GetMessage(); m != nil {
		fmt.Fprintf(w, "  status    %s\n", indentMore(describeMessage(m), "            "))
	}
	for _, art := range t.GetArtifacts() {
		fmt.Fprintf(w, "  artifact  %s\n", artifactName(art))
		writeIndented(w, describeParts(art.GetParts()), "    ")
	}
	if withHistory {
		for _, m := range t.GetHistory() {
			fmt.Fprintf(w, "  %-9s %s\n", roleName(m.GetRole()), indentMore(describeMessage(m), "            "))
		}
	}
}

// printMessage writes a direct reply.
func printMessage(w io.Writer, m *a2av1.Message) {
	fmt.Fprintf(w, "message from %s", roleName(m.GetRole()))
	if m.GetTaskId() != "" {
		fmt.Fprintf(w, " (task %s)", m.GetTaskId())
	}
	if m.GetContextId() != "" {
		fmt.Fprintf(w, " context %s", m.GetContextId())
	}
	fmt.Fprintln(w)
	writeIndented(w, describeMessage(m), "  ")
}

// printSendResponse writes what SendMessage answered.
func printSendResponse(w io.Writer, r *a2av1.SendMessageResponse) {
	if m := r.GetMessage(); m != nil {
		printMessage(w, m)
		return
	}
	printTask(w, r.GetTask(), false)
}

// printTaskTable writes the list of tasks as a table.
func printTaskTable(w io.Writer, tasks []*a2av1.Task) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tUPDATED\tCONTEXT\tLAST MESSAGE")
	for _, t := range tasks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.GetId(), t.GetStatus().GetState().Short(),
			formatTime(t.GetStatus().GetTimestamp()), t.GetContextId(), truncate(firstLine(t.LastMessage().Text()), 60))
	}
	tw.Flush()
}

// printPushConfig writes one push-notification config.
func printPushConfig(w io.Writer, c *a2av1.TaskPushNotificationConfig) {
	fmt.Fprintf(w, "push config %s for task %s\n", c.GetId(), c.GetTaskId())
	fmt.Fprintf(w, "  url       %s\n", c.GetUrl())
	if c.GetToken() != "" {
		fmt.Fprintln(w, "  token     (set)")
	}
	if a := c.GetAuthentication(); a != nil {
		fmt.Fprintf(w, "  auth      %s\n", a.GetScheme())
	}
}

// describeMessage is the content of a message for people: its text parts
// as they are, other parts as one line each.
func describeMessage(m *a2av1.Message) string { return describeParts(m.GetParts()) }

func describeParts(parts []*a2av1.Part) string {
	var lines []string
	text := ""
	flush := func() {
		if text != "" {
			lines = append(lines, text)
			text = ""
		}
	}
	for _, p := range parts {
		switch c := p.GetContent().(type) {
		case *a2av1.Part_Text:
			text += c.Text
		case *a2av1.Part_Data:
			flush()
			b, err := compactJSON(c.Data)
			if err != nil {
				b = []byte("(data)")
			}
			lines = append(lines, "data "+truncate(string(b), 200))
		case *a2av1.Part_Raw:
			flush()
			lines = append(lines, fmt.Sprintf("file %s (%s, %d bytes)", orDash(p.GetFilename()), orDash(p.GetMediaType()), len(c.Raw)))
		case *a2av1.Part_Url:
			flush()
			lines = append(lines, fmt.Sprintf("file %s (%s) %s", orDash(p.GetFilename()), orDash(p.GetMediaType()), c.Url))
		}
	}
	flush()
	return strings.Join(lines, "\n")
}

func artifactName(a *a2av1.Artifact) string {
	if a.GetName() != "" {
		return a.GetName() + " (" + a.GetArtifactId() + ")"
	}
	return a.GetArtifactId()
}

func roleName(r a2av1.Role) string {
	switch r {
	case a2av1.Role_ROLE_USER:
		return "user"
	case a2av1.Role_ROLE_AGENT:
		return "agent"
	}
	return "?"
}

// formatTime is an RFC 3339 UTC time with milliseconds, "-" for none.
func formatTime(ts *timestamppb.Timestamp) string {
	if ts == nil {
		return "-"
	}
	return ts.AsTime().UTC().Format("2006-01-02T15:04:05.000Z")
}

func writeIndented(w io.Writer, s, indent string) {
	if s == "" {
		return
	}
	for _, l := range strings.Split(s, "\n") {
		fmt.Fprintf(w, "%s%s\n", indent, l)
	}
}

// indentMore indents the lines after the first of s.
func indentMore(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func listOr(items []string, none string) string {
	if len(items) == 0 {
		return none
	}
	return strings.Join(items, ", ")
}

// parseSince reads a --since value: an RFC 3339 time or a duration ago.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, usagef("--since %q: want an RFC 3339 time (2026-01-02T15:04:05Z) or a duration ago (10m)", s)
	}
	return t, nil
}
