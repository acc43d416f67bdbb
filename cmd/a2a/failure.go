package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// Exit codes of the a2a-cli specification (SPEC.md §11.6): the code says
// whether the command did its job, never how the agent's task turned out
// (a task that ended FAILED, REJECTED or waits for input exits 0).
const (
	exitOK          = 0
	exitFail        = 1 // the command could not do its job; no more specific code applies
	exitUsage       = 2 // invalid arguments, flags or flag combination
	exitUnreachable = 3 // the agent or its card could not be reached or resolved
	exitAuth        = 4 // authentication required and not supplied, or rejected
	exitTimeout     = 5 // --timeout expired before a terminal state
)

// The CLI-local error codes of the specification (Appendix D). Failures the
// A2A protocol names carry that name instead (see a2aErrorName).
const (
	errUsage              = "A2ACLI_ERR_USAGE"
	errCardNotFound       = "A2ACLI_ERR_CARD_NOT_FOUND"
	errCardInvalid        = "A2ACLI_ERR_CARD_INVALID"
	errUnreachable        = "A2ACLI_ERR_UNREACHABLE"
	errCredentialsMissing = "A2ACLI_ERR_CREDENTIALS_MISSING"
	errAuthFailed         = "A2ACLI_ERR_AUTH_FAILED"
	errTimeout            = "A2ACLI_ERR_TIMEOUT"
	errInternal           = "A2ACLI_ERR_INTERNAL"
)

// This tool's own codes, for conditions neither A2A nor the specification
// names (the specification reserves its A2ACLI_ERR_ prefix and asks vendors
// for another).
const (
	errResourceExhausted = "A2AGEN_RESOURCE_EXHAUSTED" // an agent at one of its limits
	errConformance       = "A2AGEN_CONFORMANCE_FAILED" // an agent that failed a conformance check
)

// exitOf is the exit code each CLI-local error code maps to (Appendix D).
var exitOf = map[string]int{
	errUsage:              exitUsage,
	errCardNotFound:       exitUnreachable,
	errCardInvalid:        exitFail,
	errUnreachable:        exitUnreachable,
	errCredentialsMissing: exitAuth,
	errAuthFailed:         exitAuth,
	errTimeout:            exitTimeout,
	errInternal:           exitFail,
}

// failure is the error envelope of SPEC.md Appendix B: what went wrong in a
// form scripts switch on (code), people read (message) and act on (hint).
type failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	A2ACode any    `json:"a2aCode"` // the A2A error's JSON-RPC code, the same on every binding; null for CLI-local failures
	exit    int
}

// cliError is a CLI-local failure with its code and hint, wrapping the
// cause.
type cliError struct {
	code string
	hint string
	err  error
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

// usageError marks command-line mistakes (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// unreachable marks a failure to reach the agent or its card.
func unreachable(err error, hint string) error {
	return &cliError{code: errUnreachable, hint: hint, err: err}
}

// callError classifies the error of a client call: A2A errors stay as they
// are (their names are the protocol's); a call that never reached the agent
// is UNREACHABLE.
func callError(err error) error {
	if err == nil {
		return nil
	}
	var e *runtime.Error
	if errors.As(err, &e) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	var ce *cliError
	if errors.As(err, &ce) {
		return err
	}
	if isNetworkError(err) {
		return unreachable(err, "check that the agent is running and that the address on its card is reachable from here")
	}
	return err
}

// isNetworkError reports errors of dialling, DNS and TLS.
func isNetworkError(err error) bool {
	var (
		ue *url.Error
		oe *net.OpError
		de *net.DNSError
	)
	return errors.As(err, &ue) || errors.As(err, &oe) || errors.As(err, &de) ||
		strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "Unavailable")
}

// a2aErrorName is the A2A specification's name of an error code (§3.3.2:
// TaskNotFoundError…; the JSON-RPC standard errors as A2A names them), or
// "" when A2A names none (authentication, this project's ResourceExhausted).
func a2aErrorName(c runtime.ErrorCode) string {
	switch c {
	case runtime.CodeUnauthenticated, runtime.CodeUnauthorized, runtime.CodeResourceExhausted:
		return ""
	case runtime.CodeParseError:
		return "JSONParseError"
	case runtime.CodeInternal:
		return "InternalError"
	}
	return c.String() + "Error"
}

// classify turns the error of a command into its envelope. credentialsGiven
// says whether the caller supplied credentials, which decides between
// CREDENTIALS_MISSING and AUTH_FAILED.
func classify(err error, credentialsGiven bool) failure {
	var (
		usage usageError
		ce    *cliError
		a2a   *runtime.Error
		sig   *agentcard.SignatureError
		none  *agentcard.NoInterfaceError
	)
	switch {
	case errors.As(err, &usage):
		return failure{Code: errUsage, Message: err.Error(), Hint: "run 'a2a help' or 'a2a <command> --help' for usage", exit: exitUsage}
	case errors.As(err, &ce):
		return failure{Code: ce.code, Message: ce.err.Error(), Hint: ce.hint, exit: exitCodeOf(ce.code)}
	case errors.Is(err, context.DeadlineExceeded):
		return failure{Code: errTimeout, Message: err.Error(), Hint: "raise --timeout, or use --async and poll with 'a2a task get --wait ID'", exit: exitTimeout}
	case errors.As(err, &a2a):
		f := classifyA2A(a2a, credentialsGiven)
		// What the command added around the agent's error (which task
		// it was about, what it did not do) stays in front.
		f.Message = strings.TrimSuffix(err.Error(), a2a.Error()) + f.Message
		return f
	case errors.As(err, &sig):
		return failure{Code: errCardInvalid, Message: err.Error(), Hint: "check --verify-key names the key the agent signs with", exit: exitFail}
	case errors.As(err, &none):
		return failure{Code: errCardInvalid, Message: err.Error(), Hint: "the card declares no interface this tool can use with the given --transport; run 'a2a card get' to see them", exit: exitFail}
	case isNetworkError(err):
		return failure{Code: errUnreachable, Message: err.Error(), Hint: "check that the agent is running and reachable", exit: exitUnreachable}
	}
	return failure{Code: errInternal, Message: err.Error(), exit: exitFail}
}

func exitCodeOf(code string) int {
	if c, ok := exitOf[code]; ok {
		return c
	}
	return exitFail
}

// classifyA2A is the envelope of an error the agent answered.
func classifyA2A(e *runtime.Error, credentialsGiven bool) failure {
	msg := e.Message()
	md := e.Metadata()
	for _, k := range slices.Sorted(maps.Keys(md)) {
		msg += fmt.Sprintf("; %s: %s", k, md[k])
	}
	for _, v := range e.FieldViolations() {
		if !strings.Contains(msg, v.Field) {
			msg += fmt.Sprintf("; field %s: %s", v.Field, v.Description)
		}
	}
	f := failure{Message: msg, A2ACode: e.Code().JSONRPCCode(), exit: exitFail}
	switch e.Code() {
	case runtime.CodeUnauthenticated:
		if credentialsGiven {
			f.Code, f.Hint = errAuthFailed, "the agent refused the credentials: check --bearer / --api-key (or A2ACLI_BEARER / A2ACLI_API_KEY), or run 'a2a auth login'"
		} else {
			f.Code, f.Hint = errCredentialsMissing, "the agent wants credentials: give --bearer TOKEN or --api-key KEY (or set A2ACLI_BEARER / A2ACLI_API_KEY); 'a2a card get' lists its security schemes"
		}
		f.exit = exitAuth
	case runtime.CodeUnauthorized:
		f.Code, f.Hint, f.exit = errAuthFailed, "the credentials were accepted but do not allow this operation", exitAuth
	case runtime.CodeResourceExhausted:
		f.Code, f.Hint = errResourceExhausted, "the agent is at one of its limits; try again later"
	default:
		f.Code = a2aErrorName(e.Code())
		f.Hint = a2aHint(e.Code())
	}
	return f
}

// a2aHints are the next steps for the A2A errors where there is something
// useful to say.
var a2aHints = map[runtime.ErrorCode]string{
	runtime.CodeTaskNotFound:                 "check the task id; anonymous callers see only their own tasks: give the same credentials as when it was created",
	runtime.CodeVersionNotSupported:          "run 'a2a card get' to see the protocol versions the agent's interfaces declare, then pass one with --a2a-version",
	runtime.CodeExtensionSupportRequired:     "request the extension the agent requires with --extension URI ('a2a card get' lists them)",
	runtime.CodeUnsupportedOperation:         "the agent does not support this here; 'a2a card get' shows its capabilities",
	runtime.CodePushNotificationNotSupported: "the agent's card does not declare push notifications",
	runtime.CodeTaskNotCancelable:            "the task is already finished; 'a2a task get ID' shows its state",
}

// a2aHint is the next step for an A2A error: its entry in a2aHints, else
// the advice to look at the exchange.
func a2aHint(c runtime.ErrorCode) string {
	if hint, ok := a2aHints[c]; ok {
		return hint
	}
	return "re-run with --debug to see the exchange with the agent"
}

// report writes the failure: the envelope as the one JSON document on
// stdout with -o json (it is the command's result), else "Error:" lines on
// stderr.
func (a *app) report(f failure) {
	if a.output == "json" {
		b, err := json.Marshal(map[string]failure{"error": f})
		if err == nil {
			fmt.Fprintf(a.env.stdout, "%s\n", b)
			return
		}
	}
	writeFailureText(a.env.stderr, f)
}

func writeFailureText(w io.Writer, f failure) {
	fmt.Fprintf(w, "Error: %s\n", strings.TrimPrefix(oneLine(f.Message), "a2a: "))
	fmt.Fprintf(w, "Code: %s\n", f.Code)
	if f.Hint != "" {
		fmt.Fprintf(w, "Hint: %s\n", f.Hint)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
