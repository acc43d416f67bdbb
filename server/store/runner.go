package store

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Runner ids name one server instance (one process) in the execution records
// of its tasks and in the leases of push deliveries. They have the form
// host/pid/random, so that an instance can tell at once that another one on
// the same host is gone — its process no longer exists, or has the same pid
// as the current process (a container restarted) — instead of waiting for
// its lease to end.

// NewRunnerID returns a new runner id for this process.
func NewRunnerID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	host = strings.ReplaceAll(host, "/", "_")
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// RunnerHost returns the host part of a runner id ("" if it has none).
func RunnerHost(id string) string {
	host, _, ok := strings.Cut(id, "/")
	if !ok {
		return ""
	}
	return host
}

// RunnerGone reports whether the runner id self knows that runner is no
// longer running: it ran on the same host, and its process either has the
// pid of self's process (which it then cannot be) or does not exist. For
// runners on other hosts it reports false; only their lease can tell.
func RunnerGone(self, runner string) bool {
	if runner == "" || runner == self {
		return false
	}
	host, rest, ok := strings.Cut(runner, "/")
	if !ok || host != RunnerHost(self) {
		return false
	}
	pidText, _, _ := strings.Cut(rest, "/")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	return !processExists(pid)
}

// DeliveryID is the stable identity of the delivery of the index-th event of
// the task write with the given version to one webhook config. It is the
// same in every store, so a receiver may deduplicate deliveries on it.
func DeliveryID(taskID string, version int64, index int, configID string) string {
	return taskID + "/" + strconv.FormatInt(version, 10) + "." + strconv.Itoa(index) + "/" + configID
}
