package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestFastCommits: the sessions of URL's connection string commit without
// waiting for the disk; the parameter is added once, to either form of
// connection string, and one the string sets itself is kept.
func TestFastCommits(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u@h/db":                         "postgres://u@h/db?synchronous_commit=off",
		"postgres://u@h/db?sslmode=disable":         "postgres://u@h/db?sslmode=disable&synchronous_commit=off",
		"postgresql://u@h/db?synchronous_commit=on": "postgresql://u@h/db?synchronous_commit=on",
		"host=127.0.0.1 dbname=test":                "host=127.0.0.1 dbname=test synchronous_commit=off",
	} {
		if got := FastCommits(in); got != want {
			t.Errorf("FastCommits(%q) = %q, want %q", in, got, want)
		}
	}
	url := URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var sc string
	if err := conn.QueryRow(ctx, "SHOW synchronous_commit").Scan(&sc); err != nil || sc != "off" {
		t.Fatalf("synchronous_commit = %q (%v) in a session of %s, want off", sc, err, redact(url))
	}
}
