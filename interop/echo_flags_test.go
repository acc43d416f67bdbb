package interop

import (
	"os/exec"
	"regexp"
	"strings"
)

// echoBearer is the token examples/echo is started with (-token): the
// bearer credential that authenticates callers for the extended card.
const echoBearer = "interop-token"

// echoLoopbackFlag is the examples/echo flag that turns off the push
// sender's SSRF guard so that it delivers to this process's loopback
// webhook; "" when examples/echo has none (the push tests then say so).
// It is found in "echo -h" as the flag whose name mentions private
// networks, loopback or SSRF.
var echoLoopbackFlag string

var flagLine = regexp.MustCompile(`^\s+-{1,2}([A-Za-z0-9][-A-Za-z0-9]*)`)

// discoverEchoFlags reads examples/echo's flags from its usage text.
func discoverEchoFlags() {
	out, _ := exec.Command(echoBin, "-h").CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		m := flagLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := strings.ToLower(m[1])
		about := func(words ...string) bool {
			for _, w := range words {
				if strings.Contains(name, w) {
					return true
				}
			}
			return false
		}
		if about("private", "loopback", "ssrf") || (about("push", "webhook") && about("allow", "insecure", "unsafe")) {
			echoLoopbackFlag = m[1]
			return
		}
	}
}

// echoArgs are the flags examples/echo runs with in these tests.
func echoArgs() []string {
	args := []string{"-http", "127.0.0.1:0", "-grpc", "127.0.0.1:0", "-token", echoBearer}
	if echoLoopbackFlag != "" {
		args = append(args, "-"+echoLoopbackFlag)
	}
	return args
}
