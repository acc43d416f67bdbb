package store

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestRunnerGone(t *testing.T) {
	self := NewRunnerID()
	host := RunnerHost(self)
	tests := []struct {
		runner string
		gone   bool
	}{
		{self, false},
		{"", false},
		{NewRunnerID(), false}, // another instance of this process
		{fmt.Sprintf("%s/%d/other-process/x", host, os.Getpid()), true}, // an earlier process with this pid
		{fmt.Sprintf("%s/%d/0/x", host, os.Getppid()), false},           // a live process
		{host + "/2147483646/0/x", true},                                // no such process
		{"elsewhere/2147483646/0/x", false},                             // another host: only the lease tells
		{host + "/not-a-pid/0/x", false},                                // malformed
		{host, false},
	}
	for _, tc := range tests {
		if got := RunnerGone(self, tc.runner); got != tc.gone {
			t.Errorf("RunnerGone(%q) = %v, want %v", tc.runner, got, tc.gone)
		}
	}
}

func TestDeliveryIDIsStable(t *testing.T) {
	for _, tc := range []struct {
		tenant, task, config, want string
	}{
		{"", "t", "c", "t/3.1/c"},
		{"acme", "t", "c", "acme:t/3.1/c"},
		{"a/b:c", "t/1", "x/y", "a%2Fb%3Ac:t%2F1/3.1/x/y"},
		{"", "a:t", "c", "a%3At/3.1/c"}, // not tenant "a"
	} {
		if got := DeliveryID(tc.tenant, tc.task, 3, 1, tc.config); got != tc.want {
			t.Errorf("DeliveryID(%q, %q, 3, 1, %q) = %q, want %q", tc.tenant, tc.task, tc.config, got, tc.want)
		}
	}
}

func TestSameProcess(t *testing.T) {
	a, b := NewRunnerID(), NewRunnerID()
	if !SameProcess(a, b) || SameProcess(a, "elsewhere/1/x/y") || SameProcess(a, "") {
		t.Fatalf("SameProcess(%q, %q) and others wrong", a, b)
	}
}

// TestRunnerHostHasPidNamespace: on Linux the host part of a runner id ends
// with the number of this process's PID namespace, read from
// /proc/self/ns/pid, and holds no '/'.
func TestRunnerHostHasPidNamespace(t *testing.T) {
	host := RunnerHost(NewRunnerID())
	if strings.Contains(host, "/") || host == "" {
		t.Fatalf("host part %q", host)
	}
	link, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		if runtime.GOOS == "linux" {
			t.Fatalf("reading /proc/self/ns/pid: %v", err)
		}
		if strings.Contains(host, "~") && os.Getenv(NodeNameEnv) == "" {
			t.Fatalf("host part %q has a PID namespace suffix without /proc/self/ns/pid", host)
		}
		return
	}
	want := "~" + strings.TrimSuffix(strings.TrimPrefix(link, "pid:["), "]")
	if !strings.HasSuffix(host, want) || strings.Count(want, "~") != 1 || len(want) < 2 {
		t.Fatalf("host part %q, want it to end with %q (from %s)", host, want, link)
	}
}

func TestPidNamespaceSuffix(t *testing.T) {
	for _, tc := range []struct {
		link string
		err  error
		want string
	}{
		{"pid:[4026531836]", nil, "~4026531836"},
		{"pid:[1]", nil, "~1"},
		{"pid:[4026531836]", errors.New("no /proc"), ""},
		{"", nil, ""},
		{"pid:[]", nil, ""},
		{"pid:[12/34]", nil, ""},
		{"net:[4026531840]", nil, ""},
		{"pid:[4026531836", nil, ""},
		{"4026531836", nil, ""},
	} {
		if got := pidNamespaceSuffix(tc.link, tc.err); got != tc.want {
			t.Errorf("pidNamespaceSuffix(%q, %v) = %q, want %q", tc.link, tc.err, got, tc.want)
		}
	}
}

// TestNodeNameEnv: A2A_NODE_NAME replaces the hostname in the host part
// ('/' replaced, the PID namespace suffix kept); empty, it is the hostname.
func TestNodeNameEnv(t *testing.T) {
	t.Setenv(NodeNameEnv, "")
	hostname, err := os.Hostname()
	if err != nil || hostname == "" {
		hostname = "localhost"
	}
	if got, want := RunnerHost(NewRunnerID()), strings.ReplaceAll(hostname, "/", "_")+pidNamespace(); got != want {
		t.Errorf("without %s: host part %q, want %q", NodeNameEnv, got, want)
	}
	t.Setenv(NodeNameEnv, "agent-7f9c/b")
	id := NewRunnerID()
	if got, want := RunnerHost(id), "agent-7f9c_b"+pidNamespace(); got != want {
		t.Errorf("%s=agent-7f9c/b: host part %q, want %q", NodeNameEnv, got, want)
	}
	if parts := strings.Split(id, "/"); len(parts) != 4 || parts[1] != fmt.Sprint(os.Getpid()) {
		t.Errorf("runner id %q, want host/pid/process/instance", id)
	}
}

// TestRunnerGoneOnlyWithinHostAndPidNamespace: a runner is found gone by
// its pid only when it has this process's node name and PID namespace. A
// runner of another PID namespace under the same node name (a container
// sharing the hostname but not the pids) is never taken for gone, neither
// under this process's pid (pid 1 in two containers) nor under a pid that
// does not exist here; nor is a runner of another node name on this
// machine. Only their leases tell.
func TestRunnerGoneOnlyWithinHostAndPidNamespace(t *testing.T) {
	t.Setenv(NodeNameEnv, "node-a")
	self := NewRunnerID()
	ns := pidNamespace()
	otherNS := "node-a~1"
	if ns == "~1" {
		otherNS = "node-a~2"
	}
	for _, tc := range []struct {
		runner string
		gone   bool
	}{
		{fmt.Sprintf("node-a%s/2147483646/0/x", ns), true},                   // same node and namespace, no such process
		{fmt.Sprintf("node-a%s/%d/other-process/x", ns, os.Getpid()), true},  // same node and namespace, an earlier process
		{fmt.Sprintf("%s/%d/other-process/x", otherNS, os.Getpid()), false},  // another namespace, same pid
		{otherNS + "/2147483646/0/x", false},                                 // another namespace, a pid unknown here
		{"node-a/2147483646/0/x", ns == ""},                                  // no namespace (another OS, an old id)
		{fmt.Sprintf("node-b%s/2147483646/0/x", ns), false},                  // another node name
		{fmt.Sprintf("node-b%s/%d/other-process/x", ns, os.Getpid()), false}, // another node name, same pid
	} {
		if got := RunnerGone(self, tc.runner); got != tc.gone {
			t.Errorf("RunnerGone(%q, %q) = %v, want %v", self, tc.runner, got, tc.gone)
		}
	}
}
