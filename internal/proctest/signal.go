package proctest

import (
	"os"
	"testing"
	"time"
)

// Signal sends sig to the process.
func (p *Process) Signal(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to %s: %v", sig, p.name, err)
	}
}

// Exited returns a channel closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Wait waits up to d for the process to exit and returns its exit code
// (-1 when a signal killed it); it fails the test when the process still
// runs after d.
func (p *Process) Wait(t testing.TB, d time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("%s still running after %v; stderr:\n%s", p.name, d, p.errs.String())
		return 0
	}
}
