package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// The text output (SPEC.md §11.2): one "Label: value" field per line, the
// same labels every time, no control sequences; content a line cannot hold
// (a text artifact, a data part) is a block — its "Label:" line, the
// content, and a blank line closing it. Scripts use -o json.

// labeled writes one "Label: value" line.
func labeled(w io.Writer, label, value string) { fmt.Fprintf(w, "%s: %s\n", label, value) }

// labeledBlock writes a labeled block closed by a blank line.
func labeledBlock(w io.Writer, label, content string) {
	fmt.Fprintf(w, "%s:\n%s\n\n", label, strings.TrimRight(content, "\n"))
}

// printCard writes the facts of a card a caller needs to talk to it.
func printCard(w io.Writer, card *a2av1.AgentCard) {
	labeled(w, "Name", card.GetName())
	labeled(w, "Version", card.GetVersion())
	if d := card.GetDescription(); d != "" {
		labeled(w, "Description", firstLine(d))
	}
	if p := card.GetProvider(); p != nil {
		labeled(w, "Provider", strings.TrimSpace(p.GetOrganization()+" "+p.GetUrl()))
	}
	for _, itf := range card.GetSupportedInterfaces() {
		labeled(w, "Interface", interfaceLine(itf))
	}
	caps := card.GetCapabilities()
	labeled(w, "Capabilities", listOr(capabilityNames(caps), "none"))
	for _, e := range caps.GetExtensions() {
		req := ""
		if e.GetRequired() {
			req = " (required)"
		}
		labeled(w, "Extension", e.GetUri()+req)
	}
	labeled(w, "Input Modes", listOr(card.GetDefaultInputModes(), "-"))
	labeled(w, "Output Modes", listOr(card.GetDefaultOutputModes(), "-"))
	for _, n := range slices.Sorted(maps.Keys(card.GetSecuritySchemes())) {
		labeled(w, "Security Scheme", n+" ("+schemeKind(card.GetSecuritySchemes()[n])+")")
	}
	printSkills(w, card)
}

// interfaceLine is an interface in one line: binding, protocol version,
// URL and the tenant if any.
func interfaceLine(itf *a2av1.AgentInterface) string {
	v := fmt.Sprintf("%s %s %s", itf.GetProtocolBinding(), itf.GetProtocolVersion(), itf.GetUrl())
	if t := itf.GetTenant(); t != "" {
		v += " tenant " + t
	}
	return v
}

// capabilityNames are the optional capabilities a card declares.
func capabilityNames(caps *a2av1.AgentCapabilities) []string {
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
	return on
}

// schemeKind says what a security scheme is.
func schemeKind(s *a2av1.SecurityScheme) string {
	switch {
	case s.GetHttpAuthSecurityScheme() != nil:
		return "http " + strings.ToLower(s.GetHttpAuthSecurityScheme().GetScheme())
	case s.GetApiKeySecurityScheme() != nil:
		return "api key in " + s.GetApiKeySecurityScheme().GetLocation() + " " + s.GetApiKeySecurityScheme().GetName()
	case s.GetOauth2SecurityScheme() != nil:
		return "oauth2"
	case s.GetOpenIdConnectSecurityScheme() != nil:
		return "openid connect " + s.GetOpenIdConnectSecurityScheme().GetOpenIdConnectUrl()
	case s.GetMtlsSecurityScheme() != nil:
		return "mutual tls"
	}
	return "unknown"
}

// printTask writes a task: identifiers and state, update time, status
// message, artifacts, and the history when withHistory is set.
func printTask(w io.Writer, t *a2av1.Task, withHistory bool) {
	labeled(w, "Task ID", t.GetId())
	labeled(w, "Context ID", t.GetContextId())
	labeled(w, "State", t.GetStatus().GetState().Short())
	if ts := t.GetStatus().GetTimestamp(); ts != nil {
		labeled(w, "Updated", formatTime(ts))
	}
	if m := t.GetStatus().GetMessage(); m != nil {
		writeParts(w, "Status Message", m.GetParts())
	}
	for _, art := range t.GetArtifacts() {
		printArtifact(w, art)
	}
	if withHistory {
		for _, m := range t.GetHistory() {
			labeled(w, "History Role", roleName(m.GetRole()))
			writeParts(w, "History Message", m.GetParts())
		}
	}
}

// printArtifact writes an artifact: its id and name as fields, its parts
// as blocks.
func printArtifact(w io.Writer, art *a2av1.Artifact) {
	labeled(w, "Artifact ID", art.GetArtifactId())
	if n := art.GetName(); n != "" {
		labeled(w, "Artifact Name", n)
	}
	writeParts(w, "Artifact", art.GetParts())
}

// printMessage writes a direct reply.
func printMessage(w io.Writer, m *a2av1.Message) {
	labeled(w, "Message ID", m.GetMessageId())
	labeled(w, "Role", roleName(m.GetRole()))
	if m.GetTaskId() != "" {
		labeled(w, "Task ID", m.GetTaskId())
	}
	labeled(w, "Context ID", orDash(m.GetContextId()))
	writeParts(w, "Message", m.GetParts())
}

// printSendResponse writes what SendMessage answered.
func printSendResponse(w io.Writer, r *a2av1.SendMessageResponse, verbose bool) {
	if m := r.GetMessage(); m != nil {
		printMessage(w, m)
		return
	}
	printTask(w, r.GetTask(), verbose)
}

// printTaskList writes tasks, each a group of fields closed by a blank
// line.
func printTaskList(w io.Writer, tasks []*a2av1.Task) {
	for _, t := range tasks {
		labeled(w, "Task ID", t.GetId())
		labeled(w, "Context ID", t.GetContextId())
		labeled(w, "State", t.GetStatus().GetState().Short())
		labeled(w, "Updated", formatTime(t.GetStatus().GetTimestamp()))
		if m := firstLine(t.LastMessage().Text()); m != "" {
			labeled(w, "Last Message", truncate(m, 60))
		}
		fmt.Fprintln(w)
	}
}

// printPushConfig writes one push-notification config.
func printPushConfig(w io.Writer, c *a2av1.TaskPushNotificationConfig) {
	labeled(w, "Config ID", c.GetId())
	labeled(w, "Task ID", c.GetTaskId())
	labeled(w, "URL", c.GetUrl())
	if c.GetToken() != "" {
		labeled(w, "Token", "(set)")
	}
	if a := c.GetAuthentication(); a != nil {
		labeled(w, "Auth Scheme", a.GetScheme())
	}
}

// writeParts writes parts under label: text as it is, a data part as
// indented JSON, each in its own block; a file part as a field naming it,
// its media type and size (its content is written by task download only).
// No part is left out.
func writeParts(w io.Writer, label string, parts []*a2av1.Part) {
	text := ""
	flush := func() {
		if text != "" {
			labeledBlock(w, label, text)
			text = ""
		}
	}
	for _, p := range parts {
		switch c := p.GetContent().(type) {
		case *a2av1.Part_Text:
			text += c.Text
		case *a2av1.Part_Data:
			flush()
			labeledBlock(w, label+" Data", indentedJSON(c.Data))
		case *a2av1.Part_Raw:
			flush()
			labeled(w, label+" File", fmt.Sprintf("%s (%s, %d bytes)", orDash(p.GetFilename()), orDash(p.GetMediaType()), len(c.Raw)))
		case *a2av1.Part_Url:
			flush()
			labeled(w, label+" File", fmt.Sprintf("%s (%s) %s", orDash(p.GetFilename()), orDash(p.GetMediaType()), c.Url))
		default:
			flush()
			labeled(w, label+" Part", "(a kind this tool does not know)")
		}
	}
	flush()
}

// indentedJSON is a data part's value as indented JSON.
func indentedJSON(data *structpb.Value) string {
	b, err := runtime.MarshalJSON(data)
	var out bytes.Buffer
	if err != nil || json.Indent(&out, b, "", "  ") != nil {
		return "(data that is not JSON)"
	}
	return out.String()
}

// describeParts is the content of parts in short: the text as it is,
// other parts a line each (webhook deliveries, the task list).
func describeParts(parts []*a2av1.Part) string {
	var lines []string
	text := ""
	for _, p := range parts {
		switch c := p.GetContent().(type) {
		case *a2av1.Part_Text:
			text += c.Text
			continue
		case *a2av1.Part_Data:
			b, err := compactJSON(c.Data)
			if err != nil {
				b = []byte("(data)")
			}
			lines = append(lines, "data "+truncate(string(b), 200))
		case *a2av1.Part_Raw:
			lines = append(lines, fmt.Sprintf("file %s (%s, %d bytes)", orDash(p.GetFilename()), orDash(p.GetMediaType()), len(c.Raw)))
		case *a2av1.Part_Url:
			lines = append(lines, fmt.Sprintf("file %s (%s) %s", orDash(p.GetFilename()), orDash(p.GetMediaType()), c.Url))
		}
	}
	if text != "" {
		lines = append([]string{text}, lines...)
	}
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

// describeMessage is the content of a message on few lines.
func describeMessage(m *a2av1.Message) string { return describeParts(m.GetParts()) }

// indentMore indents the lines after the first of s.
func indentMore(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}
