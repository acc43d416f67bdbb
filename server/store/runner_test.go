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
	if a, b := DeliveryID("t", 3, 1, "c"), DeliveryID("t", 3, 1, "c"); a != b || a != "t/3.1/c" {
		t.Fatalf("DeliveryID = %q and %q, want t/3.1/c twice", a, b)
	}
}
