//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// lockDatabase takes the lock that makes this process the only agent
// process using the database at abs: an exclusive flock on abs+"-lock",
// which the kernel releases when the process ends, however it ends. The
// file says who holds it, for the error another process gets.
func lockDatabase(abs string) (*os.File, error) {
	f, err := os.OpenFile(abs+"-lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot create the lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(abs + "-lock")
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("%w (held by %s); a SQLite file serves one agent process: stop the other one, or use a postgres:// store for replicas", errInUse, who)
		}
		return nil, fmt.Errorf("cannot lock %s: %w", abs+"-lock", err)
	}
	host, _ := os.Hostname()
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(fmt.Appendf(nil, "pid %d on %s\n", os.Getpid(), host), 0)
	}
	return f, nil
}
