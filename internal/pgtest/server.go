//go:build unix

package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ServerEnv is the environment variable that makes a missing PostgreSQL
// installation fail the tests that start a server of their own
// (StartServer) instead of skipping them; CI sets it to 1.
const ServerEnv = "A2AGEN_TEST_POSTGRES_SERVER"

// Timeouts of a private server, generous for a loaded CI machine.
const (
	initdbTimeout = 3 * time.Minute
	readyTimeout  = 90 * time.Second
	stopTimeout   = 60 * time.Second
)

// Server is a PostgreSQL server of one test: its own data directory in a
// temporary directory of the test, listening on a free port of 127.0.0.1
// only (and on a Unix socket in that directory), with trust authentication
// and PostgreSQL's default settings (fsync included). A test may stop and
// start it again — to see what clients do while the database restarts —
// without disturbing anyone else. It is killed at the test's cleanup.
type Server struct {
	// URL reaches the database "postgres" as the superuser "postgres",
	// e.g. postgres://postgres@127.0.0.1:23456/postgres?sslmode=disable.
	URL string

	postgres string // the postgres binary
	dataDir  string
	sockDir  string // "" means no Unix socket (the path would be too long)
	dir      string // working directory of the server (owned by it)
	port     int
	cred     *syscall.Credential // nil: run as this process's user
	log      *tailBuffer

	mu   sync.Mutex
	proc *serverProcess // nil while stopped
}

type serverProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// StartServer creates a database cluster with initdb and starts a server on
// it, waiting until it accepts connections. The binaries (initdb,
// postgres) are taken from PATH or else from the highest version under
// /usr/lib/postgresql/*/bin (Debian's and Ubuntu's layout). Without them the
// test skips with a line saying what to install, or fails when ServerEnv is
// 1. PostgreSQL refuses to run as root: then the server runs as the system
// user "postgres", which owns the temporary directory.
func StartServer(t testing.TB) *Server {
	t.Helper()
	binDir, err := serverBinaries()
	if err != nil {
		if os.Getenv(ServerEnv) == "1" {
			t.Fatalf("%v (%s=1 requires them)", err, ServerEnv)
		}
		t.Skipf("%v: install PostgreSQL's server (Debian: apt-get install postgresql) to run this test", err)
	}
	s := &Server{postgres: filepath.Join(binDir, "postgres"), log: &tailBuffer{max: 64 << 10}}
	base := t.TempDir()
	if os.Geteuid() == 0 {
		s.cred, err = postgresUser()
		if err != nil {
			t.Fatalf("%v; PostgreSQL does not run as root", err)
		}
		// t.TempDir's parent is private to root (0700); the server's user
		// must be able to pass through it.
		if err := os.Chmod(filepath.Dir(base), 0o711); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(base, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	s.dir = base
	s.dataDir = filepath.Join(base, "data")
	// A Unix socket path is limited to about 100 bytes; the server listens
	// on none when the directory's path leaves no room.
	if len(base)+len("/.s.PGSQL.65535.lock") < 100 {
		s.sockDir = base
	}

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), initdbTimeout)
	defer cancel()
	// --no-sync: initdb does not flush the new cluster to disk (a crash of
	// the machine would lose a throwaway directory); the server keeps every
	// default, fsync included.
	initdb := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"), "-D", s.dataDir,
		"-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	initdb.Dir = base
	initdb.Env = append(os.Environ(), "LC_ALL=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb -D %s: %v\n%s", s.dataDir, err, out)
	}
	t.Cleanup(s.kill)

	// A free port outside the range the kernel hands out to outgoing
	// connections (so that none takes it between two starts); retried
	// should another listener take it first.
	for attempt := 1; ; attempt++ {
		s.port = freePort(t)
		s.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
		err := s.start()
		if err == nil {
			break
		}
		if !errors.Is(err, errAddrInUse) || attempt == 5 {
			t.Fatalf("starting PostgreSQL on 127.0.0.1:%d: %v\nserver log:\n%s", s.port, err, s.log.String())
		}
	}
	t.Logf("PostgreSQL %s (%s) ready at %s in %v", filepath.Base(filepath.Dir(binDir)), binDir, s.URL,
		time.Since(start).Round(time.Millisecond))
	return s
}

// Stop shuts the server down as "pg_ctl stop -m fast" does (SIGINT:
// sessions are disconnected, open transactions rolled back, a checkpoint
// written) and waits until it has exited.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p == nil {
		t.Fatal("pgtest: Stop of a server that is not running")
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.exited:
	case <-time.After(stopTimeout):
		killGroup(p)
		t.Fatalf("PostgreSQL did not stop within %v of SIGINT; server log:\n%s", stopTimeout, s.log.String())
	}
}

// Start starts the stopped server again on the same port and data
// directory and waits until it accepts connections.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	// The port was free a moment ago; a listener that took it since may
	// let go of it soon.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.start()
		if err == nil {
			return
		}
		if !errors.Is(err, errAddrInUse) || time.Now().After(deadline) {
			t.Fatalf("starting PostgreSQL again on 127.0.0.1:%d: %v\nserver log:\n%s", s.port, err, s.log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Restart is Stop, then Start.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop(t)
	s.Start(t)
}

// Log is the end of what the server wrote to its standard error (the last
// 64 KiB), across starts.
func (s *Server) Log() string { return s.log.String() }

// errAddrInUse: the server could not listen on its port.
var errAddrInUse = errors.New("the port is in use")

// start starts the server process and waits until it accepts connections.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return errors.New("pgtest: the server is running already")
	}
	fmt.Fprintf(s.log, "--- pgtest: starting on port %d at %s\n", s.port, time.Now().Format(time.RFC3339Nano))
	logStart := s.log.Total()
	cmd := exec.Command(s.postgres, "-D", s.dataDir, "-p", strconv.Itoa(s.port),
		"-k", s.sockDir, "-c", "listen_addresses=127.0.0.1")
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Stdout, cmd.Stderr = s.log, s.log
	cmd.SysProcAttr = sysProcAttr(s.cred)
	if err := cmd.Start(); err != nil {
		return err
	}
	p := &serverProcess{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case <-p.exited:
			msg := s.log.Since(logStart)
			if strings.Contains(msg, "could not bind") || strings.Contains(msg, "could not create any TCP/IP sockets") {
				return fmt.Errorf("%w: %v", errAddrInUse, cmd.ProcessState)
			}
			return fmt.Errorf("postgres exited: %v", cmd.ProcessState)
		default:
		}
		if err := ping(s.URL); err == nil {
			s.proc = p
			return nil
		} else if time.Now().After(deadline) {
			killGroup(p)
			return fmt.Errorf("not accepting connections within %v: %v", readyTimeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill ends the server at the test's cleanup: an immediate shutdown
// (SIGQUIT), and SIGKILL for the whole process group when that takes more
// than 10 s.
func (s *Server) kill() {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		killGroup(p)
	}
}

// killGroup kills the server and its backends and waits for the server.
func killGroup(p *serverProcess) {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// versionedBinaries are the directories of installed PostgreSQL versions
// (Debian's and Ubuntu's layout), a pattern for filepath.Glob.
var versionedBinaries = "/usr/lib/postgresql/*/bin"

// serverBinaries returns the directory holding initdb and postgres.
func serverBinaries() (string, error) {
	if initdb, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(initdb)
		if resolved, err := filepath.EvalSymlinks(initdb); err == nil {
			dir = filepath.Dir(resolved)
		}
		if isFile(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob(versionedBinaries)
	dirs = slices.DeleteFunc(dirs, func(d string) bool {
		return !isFile(filepath.Join(d, "initdb")) || !isFile(filepath.Join(d, "postgres"))
	})
	if len(dirs) == 0 {
		return "", fmt.Errorf("PostgreSQL's initdb and postgres are neither on PATH nor under %s", versionedBinaries)
	}
	// The highest version: /usr/lib/postgresql/<major>[.<minor>]/bin.
	slices.SortFunc(dirs, func(a, b string) int { return slices.Compare(versionOf(a), versionOf(b)) })
	return dirs[len(dirs)-1], nil
}

func versionOf(binDir string) []int {
	var v []int
	for _, f := range strings.Split(filepath.Base(filepath.Dir(binDir)), ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil
		}
		v = append(v, n)
	}
	return v
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// postgresUser is the credential of the system user "postgres".
func postgresUser() (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, the test server needs the system user postgres (created by the postgresql package): %v", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("the user postgres has uid %q, gid %q", u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// freePort returns a port of 127.0.0.1 that nobody listens on, below the
// kernel's range of ports for outgoing connections when that is known.
func freePort(t testing.TB) int {
	t.Helper()
	low := ephemeralLow()
	for range 100 {
		port := 0
		if low > 11000 {
			port = 10000 + rand.IntN(low-10000)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue
		}
		port = ln.Addr().(*net.TCPAddr).Port
		_ = ln.Close()
		return port
	}
	t.Fatal("pgtest: no free port on 127.0.0.1")
	return 0
}

// ephemeralLow is the first port of the kernel's range for outgoing
// connections (Linux), or 0.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[0])
	return n
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	buf   []byte
	max   int
	total int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	b.total += int64(len(p))
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// Total is how many bytes were ever written.
func (b *tailBuffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Since is what was written after the first n bytes (as far as kept).
func (b *tailBuffer) Since(n int64) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := b.total - int64(len(b.buf))
	if n < kept {
		n = kept
	}
	return string(bytes.Clone(b.buf[n-kept:]))
}
