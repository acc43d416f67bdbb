package host

import (
	"flag"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// limitUsage is the help text of the flag of each field of Limits, by field
// name: the one line a new field needs to become a flag of Main and an
// environment variable. The flag's name is the field's in lower case with
// '-' between words (LimitFlagName: MaxBodyBytes is -max-body-bytes), its
// variable EnvName of that (A2A_MAX_BODY_BYTES); its default is the
// program's Config.Limits, else DefaultLimits. Its kind follows the
// field's type: a time.Duration is a duration (0: no bound); an integer
// field whose name ends in Bytes a size (65536, 64KiB, 8MiB, 1GiB); any
// other integer a count. A field without a line here makes Main panic at
// its start (and TestLimitFlagsCoverLimits fail).
var limitUsage = map[string]string{
	"MaxBodyBytes":                "largest request body (JSON-RPC, HTTP+JSON) and gRPC request message",
	"MaxHeaderBytes":              "largest request header block (HTTP: 431 above it) and gRPC header list",
	"ReadHeaderTimeout":           "how long reading a request's header may take (and a gRPC connection's handshake)",
	"ReadTimeout":                 "how long reading a whole request, body included, may take (streams go on once the request is read)",
	"WriteTimeout":                "how long each write of an answer (a response, one stream event) may wait for a client that does not read",
	"IdleTimeout":                 "how long an HTTP keep-alive connection without a request, or a gRPC connection without a call, stays open",
	"StreamKeepAlive":             "quiet time after which an SSE stream gets a keep-alive comment and a gRPC connection a ping",
	"MaxConcurrentStreams":        "calls in progress on one gRPC connection; more wait for a slot",
	"TerminalTaskTTL":             "how long a finished task stays readable",
	"MaxTerminalTasks":            "how many finished tasks are kept, oldest removed first",
	"InterruptedTaskTTL":          "how long a task waiting for input (INPUT_REQUIRED, AUTH_REQUIRED) is kept, from its status time",
	"IdempotencyWindow":           "how long a message send's Idempotency-Key (else its messageId) is kept, so that a retry gets the first send's task (0: sends are not deduplicated)",
	"MaxStreams":                  "streams (SendStreamingMessage, SubscribeToTask) the agent holds at once; more are refused with 429/RESOURCE_EXHAUSTED",
	"MaxStreamsPerCaller":         "streams one identified caller holds at once; more are refused with 429/RESOURCE_EXHAUSTED",
	"MaxFollowUpsPerTask":         "follow-up messages a running task holds that its agent has not taken; more are refused with 429/RESOURCE_EXHAUSTED",
	"MaxHistoryPerTask":           "messages in a task's history; a client message beyond it is refused (InvalidRequest)",
	"MaxSubscriberBytes":          "bytes of events queued for one stream that its client has not read; over it the stream is dropped with an error event (resubscribe)",
	"MaxListingsPerOwner":         "ListTasks calls of one owner (anonymous callers together) served at once, encoding included; more wait their turn",
	"MaxAnonymousStreams":         "streams callers without an identity hold together (the rest of -max-streams stays for identified callers); more are refused with 429/RESOURCE_EXHAUSTED",
	"MaxPartsPerMessage":          "parts of a client message; more are refused (InvalidParams)",
	"MaxMessageBytes":             "protobuf size of a client message; larger ones are refused (InvalidParams)",
	"MaxTerminalTasksPerOwner":    "finished tasks kept of one owner (anonymous callers together are one), its oldest removed first",
	"MaxInterruptedTasksPerOwner": "tasks of one owner waiting for input (INPUT_REQUIRED, AUTH_REQUIRED), the one waiting longest removed first",
	"MaxBytesPerOwner":            "bytes of one owner's finished and waiting tasks (anonymous callers together are one), its oldest finished task removed first",
	"MaxTaskBytes":                "protobuf size of a task's history and artifacts; a client message that would take it beyond is refused (InvalidParams)",
}

// countsWithoutBound are the count fields of Limits whose flag takes 0 for
// "no bound" (the field then holds -1); the flags of the other counts start
// at 1.
var countsWithoutBound = map[string]bool{"MaxTerminalTasks": true}

// LimitFlagName is the name of Main's flag for the field of Limits named
// field: its words in lower case joined by '-' (MaxBodyBytes:
// max-body-bytes, ReadHeaderTimeout: read-header-timeout). Its environment
// variable is EnvName of it (A2A_MAX_BODY_BYTES).
func LimitFlagName(field string) string {
	var b strings.Builder
	rs := []rune(field)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			// A new word: after a lower-case letter, or an upper-case one
			// followed by a lower-case one (an acronym's end: "HTTPServer").
			if i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// limitFlags adds one flag per field of *l to flags, each bound to its
// field, with *l's values as defaults: what the command line or the
// environment sets replaces them.
func limitFlags(flags *flag.FlagSet, l *Limits) {
	v := reflect.ValueOf(l).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		usage, ok := limitUsage[f.Name]
		if !ok {
			panic(fmt.Sprintf("host: Limits.%s has no line in limitUsage (limits_flags.go), so it has no flag", f.Name))
		}
		field := v.Field(i)
		var value flag.Value
		switch {
		case f.Type == reflect.TypeFor[time.Duration]():
			value = (*durationLimit)(field.Addr().Interface().(*time.Duration))
			usage += " (a `duration` such as 30s; 0: no bound)"
		case field.CanInt() || field.CanUint():
			value = &intLimit{v: field, size: strings.HasSuffix(f.Name, "Bytes"), zeroOff: countsWithoutBound[f.Name]}
			switch {
			case strings.HasSuffix(f.Name, "Bytes"):
				usage += " (a `size` in bytes, or with KiB, MiB, GiB)"
			case countsWithoutBound[f.Name]:
				usage += " (a `number`; 0: no bound)"
			default:
				usage += " (a `number`, at least 1)"
			}
		default:
			panic(fmt.Sprintf("host: Limits.%s is a %v; limitFlags knows durations and integers", f.Name, f.Type))
		}
		flags.Var(value, LimitFlagName(f.Name), usage)
	}
}

// durationLimit is a timeout flag: a duration, 0 for no bound (a negative
// field, as Limits has it).
type durationLimit time.Duration

func (d *durationLimit) String() string {
	if d == nil || *d < 0 {
		return "0s"
	}
	return time.Duration(*d).String()
}

func (d *durationLimit) Set(s string) error {
	v, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("not a duration such as 30s or 2m (0: no bound)")
	case v < 0:
		return fmt.Errorf("must not be negative (0 means no bound)")
	case v == 0:
		v = -1 // Limits: negative is off, zero the default
	}
	*d = durationLimit(v)
	return nil
}

// intLimit is a size or count flag bound to an integer field; it must be at
// least 1, or 0 for no bound where zeroOff.
type intLimit struct {
	v       reflect.Value
	size    bool // a size in bytes: accepts KiB, MiB, GiB
	zeroOff bool // 0 is no bound (the field holds -1)
}

var sizeUnits = []struct {
	suffix string
	n      int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

func (l *intLimit) String() string {
	if l == nil || !l.v.IsValid() {
		return ""
	}
	var n int64
	if l.v.CanInt() {
		n = l.v.Int()
	} else {
		n = int64(l.v.Uint())
	}
	if l.zeroOff && n < 0 {
		return "0"
	}
	if l.size {
		for _, u := range sizeUnits {
			if n >= u.n && n%u.n == 0 {
				return strconv.FormatInt(n/u.n, 10) + u.suffix
			}
		}
	}
	return strconv.FormatInt(n, 10)
}

func (l *intLimit) Set(s string) error {
	n, mult, err := l.parse(s)
	if err != nil {
		return err
	}
	switch {
	case l.zeroOff && n < 0:
		return fmt.Errorf("must not be negative (0 means no bound)")
	case l.zeroOff && n == 0:
		n = -1 // Limits: negative is off, zero the default
	case n < 1:
		return fmt.Errorf("must be at least 1")
	}
	return l.set(n, mult)
}

// parse reads a whole number, for a size with an optional unit (its
// multiplier mult).
func (l *intLimit) parse(s string) (n, mult int64, err error) {
	num, mult := strings.TrimSpace(s), int64(1)
	if l.size {
		for _, u := range sizeUnits {
			if n, ok := strings.CutSuffix(num, u.suffix); ok {
				num, mult = strings.TrimSpace(n), u.n
				break
			}
		}
	}
	n, err = strconv.ParseInt(num, 10, 64)
	switch {
	case err != nil && l.size:
		return 0, 0, fmt.Errorf("not a size such as 65536, 64KiB or 8MiB")
	case err != nil:
		return 0, 0, fmt.Errorf("not a whole number")
	}
	return n, mult, nil
}

// set stores n×mult in the field, refusing what it cannot hold.
func (l *intLimit) set(n, mult int64) error {
	if n > (1<<63-1)/mult || (l.v.CanInt() && l.v.OverflowInt(n*mult)) || (l.v.CanUint() && l.v.OverflowUint(uint64(n*mult))) {
		return fmt.Errorf("too large")
	}
	if l.v.CanInt() {
		l.v.SetInt(n * mult)
	} else {
		l.v.SetUint(uint64(n * mult))
	}
	return nil
}
