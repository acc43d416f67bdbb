package pgtest

import "syscall"

// sysProcAttr runs the server as cred (nil: this process's user) in a
// process group of its own (so that its backends can be killed with it),
// and has it shut down at once (SIGQUIT) should the test process die
// without its cleanup (a test binary killed by its timeout).
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
}
