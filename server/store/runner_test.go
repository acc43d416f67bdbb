package store

import (
	"fmt"
	"os"
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
