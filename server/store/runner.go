package store

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Runner ids name one server instance in the execution records of its tasks
// and in the leases of push deliveries. They have the form
// host/pid/process/instance (the last two random: one per process, one per
// instance), so that an instance can tell at once that another one on the
// same host is gone — its process no longer exists, or its pid is now the
// current process's under another process nonce — instead of waiting for
// its lease to end. Several instances in one process share host, pid and
// process nonce and never take each other for gone.
//
// The host part is the node name (NodeNameEnv, else the hostname) followed,
// on Linux, by "~" and the number of the process's PID namespace: pids mean
// something only within one namespace, so two containers that share a
// hostname (docker --network host, --uts host) but not their pids are
// different hosts here and never look up each other's pids. A container
// restarted gets a new PID namespace: its predecessor's tasks are settled
// when their lease ends.

// processNonce tells this process from an earlier one with the same pid.
var processNonce = randomHex(4)

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand since Go 1.24)
	return hex.EncodeToString(b)
}

// NodeNameEnv is the environment variable naming the machine this process
// runs on in runner ids (execution records and delivery leases): every
// process on one machine that sees the others' pids should get the same
// name, and processes on different machines different names. It defaults to
// the hostname; set it when hostnames are not unique, e.g. from a
// Kubernetes pod name.
const NodeNameEnv = "A2A_NODE_NAME"

// NewRunnerID returns a new runner id for an instance in this process.
func NewRunnerID() string {
	return fmt.Sprintf("%s/%d/%s/%s", runnerHost(), os.Getpid(), processNonce, randomHex(4))
}

// runnerHost is the host part of this process's runner ids: the node name
// (NodeNameEnv, else the hostname, else "localhost"), with '/' replaced,
// and the PID namespace suffix.
func runnerHost() string {
	host := os.Getenv(NodeNameEnv)
	if host == "" {
		var err error
		if host, err = os.Hostname(); err != nil || host == "" {
			host = "localhost"
		}
	}
	return strings.ReplaceAll(host, "/", "_") + pidNamespace()
}

// pidNamespace is "~" and the number of this process's PID namespace
// ("pid:[4026531836]" → "~4026531836"), or "" where there is none to read
// (not Linux, /proc not mounted).
var pidNamespace = sync.OnceValue(func() string {
	return pidNamespaceSuffix(os.Readlink("/proc/self/ns/pid"))
})

// pidNamespaceSuffix turns the target of the link /proc/self/ns/pid into
// the suffix of the host part.
func pidNamespaceSuffix(link string, err error) string {
	if err != nil {
		return ""
	}
	rest, ok1 := strings.CutPrefix(link, "pid:[")
	id, ok2 := strings.CutSuffix(rest, "]")
	if _, err := strconv.ParseUint(id, 10, 64); !ok1 || !ok2 || err != nil {
		return ""
	}
	return "~" + id
}

// RunnerHost returns the host part of a runner id ("" if it has none).
func RunnerHost(id string) string {
	host, _, ok := strings.Cut(id, "/")
	if !ok {
		return ""
	}
	return host
}

// RunnerGone reports whether the instance self, which runs in this
// process, knows that runner is no longer running: runner ran on the same
// host, and its process either does not exist or has this process's pid
// under another process nonce. For runners on other hosts (another node
// name or another PID namespace) it reports false; only their lease can
// tell.
func RunnerGone(self, runner string) bool {
	if runner == "" || runner == self {
		return false
	}
	parts := strings.SplitN(runner, "/", 4)
	if len(parts) < 3 || parts[0] != RunnerHost(self) {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return parts[2] != processNonce
	}
	return !processExists(pid)
}

// SameProcess reports whether runner ids a and b name instances of one
// process (same host, pid and process nonce).
func SameProcess(a, b string) bool {
	pa, pb := strings.SplitN(a, "/", 4), strings.SplitN(b, "/", 4)
	return len(pa) == 4 && len(pb) == 4 && pa[0] == pb[0] && pa[1] == pb[1] && pa[2] == pb[2]
}

// DeliveryID is the stable identity of the delivery of the index-th event of
// a task write (at version) to one webhook config. It is the same in every
// store, unique across tenants, and the same on every attempt, after
// restarts and from any replica, so a receiver may deduplicate on it:
//
//	<task id>/<version>.<index>/<config id>              (default tenant)
//	<tenant>:<task id>/<version>.<index>/<config id>
//
// with the tenant and task id query-escaped (so that neither holds ':' or
// '/'); the config id comes last, as is.
func DeliveryID(tenant, taskID string, version int64, index int, configID string) string {
	return DeliveryIDPrefix(tenant, taskID, version, index) + configID
}

// DeliveryIDPrefix is DeliveryID without the config id, for stores that
// append it themselves (in SQL, say).
func DeliveryIDPrefix(tenant, taskID string, version int64, index int) string {
	prefix := ""
	if tenant != "" {
		prefix = url.QueryEscape(tenant) + ":"
	}
	return prefix + url.QueryEscape(taskID) + "/" + strconv.FormatInt(version, 10) + "." + strconv.Itoa(index) + "/"
}
