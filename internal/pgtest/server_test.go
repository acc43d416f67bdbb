//go:build unix

package pgtest

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestServerRestart starts a private server, writes to it, restarts it and
// reads the write back: a restart keeps the data, drops the connections
// of before, and the server listens on loopback only.
func TestServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	s := StartServer(t)
	if u, err := url.Parse(s.URL); err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("URL %q, want one on 127.0.0.1", s.URL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var listen string
	if err := conn.QueryRow(ctx, "SHOW listen_addresses").Scan(&listen); err != nil || listen != "127.0.0.1" {
		t.Fatalf("listen_addresses = %q (%v), want 127.0.0.1", listen, err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE t (v text); INSERT INTO t VALUES ('kept')"); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	s.Restart(t)
	t.Logf("restarted in %v", time.Since(start).Round(time.Millisecond))
	if err := conn.Ping(ctx); err == nil {
		t.Fatal("a connection of before the restart still works")
	}
	conn2, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		t.Fatalf("after the restart: %v\n%s", err, s.Log())
	}
	defer conn2.Close(context.Background())
	var v string
	if err := conn2.QueryRow(ctx, "SELECT v FROM t").Scan(&v); err != nil || v != "kept" {
		t.Fatalf("after the restart the table holds %q (%v)", v, err)
	}

	s.Stop(t)
	if err := ping(s.URL); err == nil {
		t.Fatal("the server answers after Stop")
	}
}

func TestVersionOrder(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"/usr/lib/postgresql/9.6/bin", "/usr/lib/postgresql/15/bin", -1},
		{"/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin", 1},
		{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/15/bin", 0},
	} {
		if got := slices.Compare(versionOf(tc.a), versionOf(tc.b)); got != tc.want {
			t.Errorf("%s vs %s: %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestServerBinaries: without initdb on PATH, the highest version under
// the versioned directories that holds both binaries; none at all is an
// error naming both places.
func TestServerBinaries(t *testing.T) {
	root := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	defer func(old string) { versionedBinaries = old }(versionedBinaries)
	versionedBinaries = filepath.Join(root, "*", "bin")
	if dir, err := serverBinaries(); err == nil || !strings.Contains(err.Error(), "neither on PATH nor under") {
		t.Fatalf("without binaries: %q, %v; want an error", dir, err)
	}
	for _, v := range []string{"9.6", "15", "16", "17"} {
		dir := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		names := []string{"initdb", "postgres"}
		if v == "17" {
			names = names[:1] // incomplete: no server
		}
		for _, name := range names {
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if dir, err := serverBinaries(); err != nil || dir != filepath.Join(root, "16", "bin") {
		t.Fatalf("serverBinaries() = %q, %v; want the one of version 16", dir, err)
	}
}
