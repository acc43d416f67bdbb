//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// lockDatabase takes the lock that makes this process the only agent
// process using the database at abs: an exclusive flock on abs+"-lock",
// which the kernel releases when the process ends, however it ends. The
// file says who holds it, for the error another process gets. created
// reports whether this call made the file (Open removes it again when it
// fails afterwards, so that a failed Open leaves nothing behind).
func lockDatabase(abs string) (f *os.File, created bool, err error) {
	f, err = os.OpenFile(abs+"-lock", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	created = err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(abs+"-lock", os.O_RDWR, 0o644)
	}
	if err != nil {
		return nil, false, fmt.Errorf("cannot create the lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(abs + "-lock")
		f.Close()
		created = false // someone else's now
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, false, fmt.Errorf("%w (held by %s); a SQLite file serves one agent process: stop the other one, or use a postgres:// store for replicas", errInUse, who)
		}
		return nil, false, fmt.Errorf("cannot lock %s: %w", abs+"-lock", err)
	}
	host, _ := os.Hostname()
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(fmt.Appendf(nil, "pid %d on %s\n", os.Getpid(), host), 0)
	}
	return f, created, nil
}
