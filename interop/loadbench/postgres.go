package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/a2agen/a2agen/server/store/postgres"
)

// postgresEnv is the environment variable -postgres defaults to (the one the
// repository's PostgreSQL tests read).
const postgresEnv = "A2AGEN_TEST_POSTGRES"

// pgServer is the PostgreSQL server the "postgres" store runs on.
type pgServer struct {
	url   string // as given to -postgres: a store URL without schema=
	admin string // the same for pgx: without the store's own parameters
	info  string // version and durability settings, for the table's header
	// local is set when the server runs on this machine (loopback or a
	// Unix socket), so that its processes' CPU time can be read; appName
	// when each cell may name its connections (the URL sets no
	// application_name of its own).
	local, appName bool
}

// openPostgres checks rawURL (a store URL as server/storeurl reads it, without
// schema=, which each cell sets) and that the server answers, and reads the
// settings the table reports.
func openPostgres(ctx context.Context, rawURL string) (*pgServer, error) {
	name := postgres.Describe(rawURL)
	lower := strings.ToLower(rawURL)
	if !strings.HasPrefix(lower, "postgres://") && !strings.HasPrefix(lower, "postgresql://") {
		return nil, fmt.Errorf("-postgres %s: want a URL postgres://USER[:PASSWORD]@HOST:PORT/DATABASE[?sslmode=…]", name)
	}
	admin, schema, err := adminURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("-postgres %s: %w", name, err)
	}
	if schema {
		return nil, fmt.Errorf("-postgres %s: leave out schema=: every cell runs in a fresh schema of its own", name)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return nil, fmt.Errorf("-postgres %s: cannot reach the PostgreSQL server: %s", name, oneLine(err))
	}
	defer conn.Close(context.Background())
	var version, syncCommit, fsync string
	if err := conn.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('synchronous_commit'), current_setting('fsync')`).
		Scan(&version, &syncCommit, &fsync); err != nil {
		return nil, fmt.Errorf("-postgres %s: reading the server's settings: %w", name, err)
	}
	p := &pgServer{url: rawURL, admin: admin,
		info:    fmt.Sprintf("PostgreSQL %s, synchronous_commit=%s, fsync=%s", version, syncCommit, fsync),
		appName: conn.Config().RuntimeParams["application_name"] == ""}
	host := conn.Config().Host
	ip := net.ParseIP(host)
	p.local = strings.HasPrefix(host, "/") || host == "localhost" || ip != nil && ip.IsLoopback()
	return p, nil
}

// adminURL is rawURL without the parameters server/storeurl takes itself
// (schema, channel), which pgx would send to the server as settings;
// schema reports whether rawURL has a schema parameter.
func adminURL(rawURL string) (admin string, schema bool, err error) {
	base, query, ok := strings.Cut(rawURL, "?")
	if !ok {
		return rawURL, false, nil
	}
	var kept []string
	for _, p := range strings.Split(query, "&") {
		k, _, _ := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			return "", false, fmt.Errorf("parameter %q: %w", k, err)
		}
		switch name {
		case "schema":
			schema = true
			continue
		case "channel":
			continue
		}
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return base, schema, nil
	}
	return base + "?" + strings.Join(kept, "&"), schema, nil
}

// withSchema is rawURL with the store parameter schema=NAME added.
func withSchema(rawURL, schema string) string {
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	return rawURL + sep + "schema=" + url.QueryEscape(schema)
}

// newSchema creates a schema with a random name for one cell and returns
// its name and the store URL that puts the store's tables in it.
func (p *pgServer) newSchema(ctx context.Context) (name, storeURL string, err error) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name = "a2agen_loadbench_" + hex.EncodeToString(b)
	if err := p.exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", "", fmt.Errorf("postgres %s: creating schema %s: %w", postgres.Describe(p.url), name, err)
	}
	storeURL = withSchema(p.url, name)
	if p.appName {
		// Names the server's connections, so that their processes can be
		// found (backends).
		storeURL += "&application_name=" + name
	}
	return name, storeURL, nil
}

// dbProcs are the PostgreSQL server processes serving one a2agen server's
// connections.
type dbProcs struct{ pids []int }

// backends finds the processes of the connections named appName, when the
// server runs on this machine; nil when they cannot be found or read.
func (p *pgServer) backends(ctx context.Context, appName string) *dbProcs {
	if !p.local || !p.appName || appName == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.admin)
	if err != nil {
		return nil
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, appName)
	if err != nil {
		return nil
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil || len(pids) == 0 {
		return nil
	}
	d := &dbProcs{}
	for _, pid := range pids {
		// The pid is the server's: on this machine only if it names a
		// PostgreSQL process (a server in a container or VM behind a
		// loopback port has pids of its own).
		comm, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			return nil
		}
		d.pids = append(d.pids, int(pid))
	}
	return d
}

// cpuTime is the CPU time the processes have used so far; ok is false when
// d is nil or one of them has ended.
func (d *dbProcs) cpuTime() (total time.Duration, ok bool) {
	if d == nil {
		return 0, false
	}
	for _, pid := range d.pids {
		t, ok := cpuTime(pid)
		if !ok {
			return 0, false
		}
		total += t
	}
	return total, true
}

// dropSchema drops a cell's schema with everything in it.
func (p *pgServer) dropSchema(name string) error {
	// Not the run's context: an interrupted run still cleans up.
	if err := p.exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
		return fmt.Errorf("postgres %s: dropping schema %s: %w", postgres.Describe(p.url), name, err)
	}
	return nil
}

func (p *pgServer) exec(ctx context.Context, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.admin)
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, sql)
	return errors.Join(err, conn.Close(context.Background()))
}

// pgHost is the host:port/database part of a PostgreSQL URL, for the
// table's header (no user, password or parameters).
func pgHost(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "the -postgres server"
	}
	return u.Host + u.Path
}

// oneLine is err's message on one line: pgx reports each address it tried
// on a line of its own, often the same twice.
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(parts, l) {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}
