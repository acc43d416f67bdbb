//go:build unix && !linux

package pgtest

import "syscall"

// sysProcAttr runs the server as cred (nil: this process's user) in a
// process group of its own (so that its backends can be killed with it).
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true}
}
