package storeurl

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
	"unicode"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/pgtest"
	"github.com/a2agen/a2agen/internal/redact"
	"github.com/a2agen/a2agen/server/store"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want spec
	}{
		{"memory", spec{kind: kindMemory}},
		{"memory:", spec{kind: kindMemory}},
		{"MEMORY", spec{kind: kindMemory}},
		{"sqlite:data/agent.db", spec{kind: kindSQLite, path: "data/agent.db"}},
		{"sqlite:agent.db", spec{kind: kindSQLite, path: "agent.db"}},
		{"sqlite:./agent.db", spec{kind: kindSQLite, path: "./agent.db"}},
		{"sqlite:../shared/agent.db", spec{kind: kindSQLite, path: "../shared/agent.db"}},
		{"sqlite:/var/lib/agent.db", spec{kind: kindSQLite, path: "/var/lib/agent.db"}},
		{"sqlite:///var/lib/agent.db", spec{kind: kindSQLite, path: "/var/lib/agent.db"}},
		{"SQLite:///var/lib/agent.db", spec{kind: kindSQLite, path: "/var/lib/agent.db"}},
		{"sqlite:/my%20dir/a%3Fb%25.db", spec{kind: kindSQLite, path: "/my dir/a?b%.db"}},
		{"sqlite:/my dir/a.db", spec{kind: kindSQLite, path: "/my dir/a.db"}},
		{"sqlite:data/a:b@c.db", spec{kind: kindSQLite, path: "data/a:b@c.db"}},
		{"sqlite:data/agent.db?synchronous=full", spec{kind: kindSQLite, path: "data/agent.db", synchronous: "full"}},
		{"sqlite:data/agent.db?synchronous=NORMAL", spec{kind: kindSQLite, path: "data/agent.db", synchronous: "normal"}},
		{"sqlite:data/agent.db?busy_timeout=5s", spec{kind: kindSQLite, path: "data/agent.db", busyTimeout: 5 * time.Second, busySet: true}},
		{"sqlite:data/agent.db?busy_timeout=0s", spec{kind: kindSQLite, path: "data/agent.db", busySet: true}},
		{"sqlite:///srv/a.db?synchronous=full&busy_timeout=250ms", spec{kind: kindSQLite, path: "/srv/a.db", synchronous: "full", busyTimeout: 250 * time.Millisecond, busySet: true}},
		{"sqlite:data/agent.db?", spec{kind: kindSQLite, path: "data/agent.db"}},
		{"postgres://a2a:secret@db:5432/agent", spec{kind: kindPostgres, conn: "postgres://a2a:secret@db:5432/agent"}},
		{"PostgreSQL://db/agent?sslmode=disable", spec{kind: kindPostgres, conn: "postgresql://db/agent?sslmode=disable"}},
		{"postgres://db/agent?schema=tasks&sslmode=require&pool_max_conns=20&channel=agent_events",
			spec{kind: kindPostgres, conn: "postgres://db/agent?sslmode=require&pool_max_conns=20", schema: "tasks", channel: "agent_events"}},
		{"postgres://db/agent?sche%6Da=My%20Schema", spec{kind: kindPostgres, conn: "postgres://db/agent", schema: "My Schema"}},
		{"postgres:///agent?host=/run/postgresql&statement_timeout=30s",
			spec{kind: kindPostgres, conn: "postgres:///agent?host=/run/postgresql&statement_timeout=30s"}},
		{"postgres://db/agent?", spec{kind: kindPostgres, conn: "postgres://db/agent"}},
	} {
		got, err := parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// TestParseErrors pins every error of the parser: an *Error naming the
// (redacted) URL and saying what to write instead.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in      string
		url     string // Error.URL
		message string // the whole message
	}{
		{"", "", "store: no store URL given; use " + Forms},
		{"mem", "mem", "store mem: unknown store; use " + Forms},
		{"sqlite", "sqlite", "store sqlite: no database path; write sqlite:PATH, e.g. sqlite:data/agent.db"},
		{"sqlite:/a b/", "sqlite:/a b/", `store sqlite:/a b/: the path "/a b/" names a directory; name the database file, e.g. "/a b/agent.db"`},
		{"data/agent.db", "data/agent.db", "store data/agent.db: no scheme: for a SQLite file write sqlite:data/agent.db; the accepted forms are " + Forms},
		{"memory:x", "memory:x", "store memory:x: memory takes no path or parameters; write memory"},
		{"memory:?a=b", "memory:?a=b", "store memory:?a=b: memory takes no path or parameters; write memory"},
		{"mysql://root:hunter2@db/tasks", "mysql://root:xxxxx@db/tasks", `store mysql://root:xxxxx@db/tasks: unknown store scheme "mysql"; use ` + Forms},
		{"C:\\data\\agent.db", `C:\data\agent.db`, `store C:\data\agent.db: unknown store scheme "C"; use ` + Forms},
		{"postgres:db/agent", "postgres:db/agent", "store postgres:db/agent: write a PostgreSQL URL as postgres://USER:PASSWORD@HOST:PORT/DATABASE"},
		{"postgres://user:secret@host/db?pool_max_conns=many", "postgres://user:xxxxx@host/db?pool_max_conns=many",
			`store postgres://user:xxxxx@host/db?pool_max_conns=many: invalid PostgreSQL URL: cannot parse pool_max_conns (strconv.ParseInt: parsing "many": invalid syntax)`},
		{"postgresql://host/db?sslmode=sometimes&password=secret", "postgresql://host/db?sslmode=sometimes&password=xxxxx",
			"store postgresql://host/db?sslmode=sometimes&password=xxxxx: invalid PostgreSQL URL: failed to configure TLS (sslmode is invalid)"},
		{"postgres://host/db?schema=", "postgres://host/db?schema=", `store postgres://host/db?schema=: schema="": want a name`},
		{"postgres://host/db?schema=a&schema=b", "postgres://host/db?schema=a&schema=b", "store postgres://host/db?schema=a&schema=b: parameter schema is given 2 times"},
		{"postgres://host/db?channel=" + strings.Repeat("c", 64), "postgres://host/db?channel=" + strings.Repeat("c", 64),
			"store postgres://host/db?channel=" + strings.Repeat("c", 64) + ": channel=" + strings.Repeat("c", 64) + ": a channel name has at most 63 bytes"},
		{"postgres://host/db?a=%zz", "postgres://host/db?a=%zz", `store postgres://host/db?a=%zz: parameters: invalid URL escape "%zz"`},
		{"sqlite:", "sqlite:", "store sqlite:: no database path; write sqlite:PATH, e.g. sqlite:data/agent.db"},
		{"sqlite:?synchronous=full", "sqlite:?synchronous=full", "store sqlite:?synchronous=full: no database path; write sqlite:PATH, e.g. sqlite:data/agent.db"},
		{"sqlite:///", "sqlite:///", "store sqlite:///: the path / names a directory; name the database file, e.g. /agent.db"},
		{"sqlite:data/", "sqlite:data/", "store sqlite:data/: the path data/ names a directory; name the database file, e.g. data/agent.db"},
		{"sqlite://data/agent.db", "sqlite://data/agent.db", "store sqlite://data/agent.db: sqlite:// is followed by a host, not a path; " +
			"write sqlite:PATH for a relative path (sqlite:data/agent.db) or sqlite:///ABSOLUTE/PATH (or sqlite:/ABSOLUTE/PATH) for an absolute one"},
		{"sqlite:data/50%.db", "sqlite:data/50%.db", "store sqlite:data/50%.db: the path has an invalid %-escape (write % itself as %25)"},
		{"sqlite:a%00b", "sqlite:a%00b", "store sqlite:a%00b: the path contains a NUL byte"},
		{"sqlite::memory:", "sqlite::memory:", "store sqlite::memory:: the path must name a file (for a store that keeps nothing, use memory)"},
		{"sqlite:file:agent.db", "sqlite:file:agent.db", "store sqlite:file:agent.db: the path must name a file (for a store that keeps nothing, use memory)"},
		{"sqlite:a.db?mode=ro", "sqlite:a.db?mode=ro", `store sqlite:a.db?mode=ro: unknown parameter "mode"; a SQLite store accepts synchronous=normal|full and busy_timeout=DURATION`},
		{"sqlite:a.db?z=1&journal=wal&synchronous=full", "sqlite:a.db?z=1&journal=wal&synchronous=full",
			`store sqlite:a.db?z=1&journal=wal&synchronous=full: unknown parameters "journal", "z"; a SQLite store accepts synchronous=normal|full and busy_timeout=DURATION`},
		{"sqlite:a.db?synchronous=off", "sqlite:a.db?synchronous=off", "store sqlite:a.db?synchronous=off: synchronous=off: want normal or full"},
		{"sqlite:a.db?synchronous=", "sqlite:a.db?synchronous=", `store sqlite:a.db?synchronous=: synchronous="": want normal or full`},
		{"sqlite:a.db?synchronous=full&synchronous=normal", "sqlite:a.db?synchronous=full&synchronous=normal",
			"store sqlite:a.db?synchronous=full&synchronous=normal: parameter synchronous is given 2 times"},
		{"sqlite:a.db?busy_timeout=5000", "sqlite:a.db?busy_timeout=5000", "store sqlite:a.db?busy_timeout=5000: busy_timeout=5000: want a duration such as 5s or 500ms"},
		{"sqlite:a.db?busy_timeout=-1s", "sqlite:a.db?busy_timeout=-1s", "store sqlite:a.db?busy_timeout=-1s: busy_timeout=-1s: want a duration such as 5s or 500ms"},
		{"sqlite:a.db?busy_timeout=%zz", "sqlite:a.db?busy_timeout=%zz", `store sqlite:a.db?busy_timeout=%zz: parameters: invalid URL escape "%zz"`},
		{"sqlite:a.db?a=1;b=2", "sqlite:a.db?a=1;b=2", "store sqlite:a.db?a=1;b=2: parameters: invalid semicolon separator in query"},
	} {
		_, err := parse(tc.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("parse(%q) = %v, want an *Error", tc.in, err)
			continue
		}
		if e.URL != tc.url || err.Error() != tc.message {
			t.Errorf("parse(%q):\n got URL %q, %q\nwant URL %q, %q", tc.in, e.URL, err, tc.url, tc.message)
		}
	}
}

// TestParseControlCharacters: a path with a newline is a valid file name;
// the URL is quoted wherever it is shown.
func TestParseControlCharacters(t *testing.T) {
	sp, err := parse("sqlite:a\n.db")
	if err != nil || sp.path != "a\n.db" {
		t.Errorf("parse = %+v, %v", sp, err)
	}
	if got, want := Describe("sqlite:a\n.db"), `"sqlite:a\n.db"`; got != want {
		t.Errorf("Describe = %s, want %s", got, want)
	}
	_, err = parse("sqlite:a\n.db?synchronous=no")
	if want := `store "sqlite:a\n.db?synchronous=no": synchronous=no: want normal or full`; err == nil || err.Error() != want {
		t.Errorf("parse error %v, want %s", err, want)
	}
}

// TestOpenPostgres opens a PostgreSQL store in a schema of its own (named
// by the URL) twice, as two replicas, and sees a task written through one
// from the other.
func TestOpenPostgres(t *testing.T) {
	base := pgtest.URL(t)
	u := pgtest.WithSchema(base, pgtest.Schema(t, base))
	a, err := Open(context.Background(), u, Options{Retention: store.Retention{TerminalTaskTTL: time.Hour, MaxTerminalTasks: 10}})
	if err != nil {
		t.Fatalf("Open(%s): %v", Describe(u), err)
	}
	defer a.Close()
	b, err := Open(context.Background(), u, Options{})
	if err != nil {
		t.Fatalf("Open(%s) again: %v", Describe(u), err)
	}
	defer b.Close()
	task := &a2av1.Task{Id: "t1", Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING}}
	if _, _, err := a.CreateTask(context.Background(), store.Creation{Record: store.Record{Task: task}}); err != nil {
		t.Fatal(err)
	}
	if rec, err := b.Task(context.Background(), "", "t1"); err != nil || rec.Version != 1 {
		t.Fatalf("the other replica reads %+v, %v", rec, err)
	}
}

// TestOpenPostgresUnreachable: a database that cannot be reached is an
// *Error naming the URL, password redacted.
func TestOpenPostgresUnreachable(t *testing.T) {
	raw := "postgres://a2a:secret@127.0.0.1:1/agent?sslmode=disable&schema=agent1"
	_, err := Open(context.Background(), raw, Options{})
	var e *Error
	if !errors.As(err, &e) || e.URL != "postgres://a2a:xxxxx@127.0.0.1:1/agent?sslmode=disable&schema=agent1" {
		t.Fatalf("Open of an unreachable database = %#v", err)
	}
	if want := "store postgres://a2a:xxxxx@127.0.0.1:1/agent?sslmode=disable&schema=agent1: cannot connect: "; !strings.HasPrefix(err.Error(), want) ||
		strings.Contains(err.Error(), "secret") {
		t.Fatalf("error %q, want it to start with %q and not show the password", err, want)
	}
	t.Log(err)
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"memory", "memory"},
		{"sqlite:data/agent.db", "sqlite:data/agent.db"},
		{"sqlite:/srv/u:p@x.db", "sqlite:/srv/u:p@x.db"}, // a path, not credentials
		{"postgres://user:secret@host:5432/db", "postgres://user:xxxxx@host:5432/db"},
		{"postgres://user@host/db", "postgres://user@host/db"},
		{"postgres://host/db", "postgres://host/db"},
		{"postgres://user:p@ss/w:rd@host/db", "postgres://user:xxxxx@host/db"}, // unescaped @ and / in the password
		{"postgres://user:@host/db", "postgres://user:xxxxx@host/db"},
		{"postgres://:secret@host/db", "postgres://:xxxxx@host/db"},
		{"user:secret@host/db", "user:xxxxx@host/db"},
		{"postgres://h/db?password=secret&sslmode=require", "postgres://h/db?password=xxxxx&sslmode=require"},
		{"postgres://h/db?sslmode=require&sslpassword=secret", "postgres://h/db?sslmode=require&sslpassword=xxxxx"},
		{"postgres://h/db?pass%77ord=secret", "postgres://h/db?pass%77ord=xxxxx"},
		{"postgres://h/db?password", "postgres://h/db?password"},
		{"postgres://u:secret@h/db\x00", `"postgres://u:xxxxx@h/db\x00"`},
	} {
		if got := Describe(tc.in); got != tc.want {
			t.Errorf("Describe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestOpenMemory(t *testing.T) {
	for _, in := range []string{"memory", "memory:"} {
		st, err := Open(context.Background(), in, Options{Retention: store.Retention{TerminalTaskTTL: time.Hour, MaxTerminalTasks: 10}})
		if err != nil {
			t.Fatalf("Open(%q): %v", in, err)
		}
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

func TestOpenNegativeBounds(t *testing.T) {
	for _, o := range []Options{{Retention: store.Retention{TerminalTaskTTL: -time.Second}}, {Retention: store.Retention{MaxTerminalTasks: -1}}} {
		_, err := Open(context.Background(), "memory", o)
		var e *Error
		if !errors.As(err, &e) || e.URL != "memory" || !strings.Contains(err.Error(), "must not be negative") {
			t.Errorf("Open(memory, %+v) = %v, want an *Error about negative bounds", o, err)
		}
	}
}

// TestOpenSQLiteCreatesFile: the directory and the database file are
// created on first open, and a second open of the same file works.
func TestOpenSQLiteCreatesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "agent.db")
	for i := range 2 {
		st, err := Open(context.Background(), "sqlite:"+path+"?synchronous=full&busy_timeout=2s", Options{Retention: store.Retention{TerminalTaskTTL: time.Hour, MaxTerminalTasks: 5}})
		if err != nil {
			t.Fatalf("open %d: %v", i+1, err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("open %d: %v", i+1, err)
		}
		if err := st.Close(); err != nil {
			t.Errorf("close %d: %v", i+1, err)
		}
	}
	st, err := Open(context.Background(), "sqlite://"+path, Options{})
	if err != nil {
		t.Fatalf("open as sqlite://%s: %v", path, err)
	}
	st.Close()
}

// TestOpenSQLiteFailures: a database that cannot be created is an error
// naming the path, never a panic.
func TestOpenSQLiteFailures(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	notADB := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(notADB, []byte(strings.Repeat("this is not a SQLite database\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{
		"the parent is a file": filepath.Join(file, "agent.db"),
		"the path is a directory": func() string {
			d := filepath.Join(dir, "adir")
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			return d
		}(),
		"the file is not a database": notADB,
	}
	if os.Geteuid() != 0 && goruntime.GOOS != "windows" {
		ro := filepath.Join(dir, "readonly")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		paths["the directory is not writable"] = filepath.Join(ro, "sub", "agent.db")
	}
	if goruntime.GOOS == "linux" {
		paths["the directory cannot be created (even by root)"] = "/proc/a2agen-storeurl-test/agent.db"
	}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			rawURL := "sqlite:" + path
			st, err := Open(context.Background(), rawURL, Options{})
			if err == nil {
				st.Close()
				t.Fatalf("Open(%s) succeeded", rawURL)
			}
			var e *Error
			if !errors.As(err, &e) || e.URL != rawURL {
				t.Errorf("Open(%s) = %#v, want an *Error with URL %s", rawURL, err, rawURL)
			}
			if !strings.HasPrefix(err.Error(), "store "+rawURL+": ") {
				t.Errorf("error %q does not start with the store URL", err)
			}
			t.Logf("%v", err)
		})
	}
}

// FuzzParse feeds the parser store URLs: it must not panic, every error
// must be an *Error with a redacted URL, and what it accepts must be
// usable.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "memory", "memory:", "MEMORY", "memory:x",
		"sqlite:data/agent.db", "sqlite:/var/lib/agent.db", "sqlite:///var/lib/agent.db", "sqlite://host/x",
		"sqlite:a.db?synchronous=full&busy_timeout=5s", "sqlite:a.db?synchronous=off", "sqlite:a.db?busy_timeout=-1s",
		"sqlite:a.db?x=1&y=2", "sqlite:a.db?a=1;b=2", "sqlite:%zz", "sqlite:a%00b", "sqlite::memory:", "sqlite:file:a.db",
		"sqlite:data/", "sqlite:/my%20dir/a%3F.db", "sqlite:a\n.db",
		"postgres://user:secret@host:5432/db?sslmode=disable", "postgresql://h/db?password=secret",
		"postgres://u:p@ss/w:rd@h/db", "postgres://h/db?schema=s&channel=c&pool_max_conns=4", "postgres:x", "user:secret@host", "mysql://root:pw@db", "data/agent.db", "C:\\agent.db",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		sp, err := parse(raw)
		desc := Describe(raw)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.URL != desc {
				t.Fatalf("parse(%q) = %#v, want an *Error with URL %q", raw, err, desc)
			}
			_ = err.Error()
		} else {
			switch sp.kind {
			case kindMemory:
			case kindPostgres:
				if !strings.HasPrefix(sp.conn, "postgres://") && !strings.HasPrefix(sp.conn, "postgresql://") {
					t.Fatalf("parse(%q): connection string %q", raw, sp.conn)
				}
			case kindSQLite:
				if sp.path == "" || strings.ContainsRune(sp.path, 0) {
					t.Fatalf("parse(%q) accepted the path %q", raw, sp.path)
				}
				if sp.synchronous != "" && sp.synchronous != "normal" && sp.synchronous != "full" {
					t.Fatalf("parse(%q): synchronous %q", raw, sp.synchronous)
				}
				if sp.busyTimeout < 0 {
					t.Fatalf("parse(%q): busy timeout %v", raw, sp.busyTimeout)
				}
			default:
				t.Fatalf("parse(%q) = %+v without error", raw, sp)
			}
		}
		// A password (as a URL parser sees it) never shows.
		if u, perr := url.Parse(raw); perr == nil && u.User != nil && !strings.EqualFold(u.Scheme, "sqlite") && !strings.EqualFold(u.Scheme, "memory") {
			if p, ok := u.User.Password(); ok && len(p) >= 3 && strings.Count(raw, p) == 1 && !strings.Contains(redact.Mask, p) &&
				strings.IndexFunc(p, func(r rune) bool { return !unicode.IsPrint(r) || r == '\\' || r == '"' }) < 0 &&
				strings.Contains(desc, p) {
				t.Fatalf("Describe(%q) = %q shows the password %q", raw, desc, p)
			}
		}
	})
}
