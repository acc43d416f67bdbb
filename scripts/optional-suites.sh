#!/bin/sh
# Says which optional test suites `make test` ran and which it skipped, and
# why: go test shows a passing package as one "ok" line, so the skips of
# tests that need a tool or a server are invisible without -v. The
# conditions are those of the tests themselves (internal/pgtest,
# internal/doccmds, internal/scaffold's TestProtocCompilesTheTree); with
# A2AGEN_TEST_POSTGRES set and no server answering, the PostgreSQL tests fail
# rather than skip, so "ran" after a green run means they ran.

say() { printf 'optional suite: %s\n' "$*"; }

if [ -n "${A2AGEN_TEST_POSTGRES:-}" ]; then
	# The address only: no user, password or parameters.
	where=${A2AGEN_TEST_POSTGRES#*://}
	where=${where%%\?*}
	userinfo=${where%%/*}
	case $userinfo in *@*) where=${where#"${userinfo%@*}@"} ;; esac
	say "PostgreSQL store tests: ran on $where (A2AGEN_TEST_POSTGRES)"
else
	say "PostgreSQL store tests: SKIPPED, A2AGEN_TEST_POSTGRES is not set (e.g. A2AGEN_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' make test)"
fi

pg_bins=
if command -v initdb >/dev/null 2>&1 && command -v postgres >/dev/null 2>&1; then
	pg_bins=1
else
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && [ -x "$d/postgres" ] && pg_bins=1
	done
fi
if [ -n "$pg_bins" ]; then
	say "PostgreSQL restart tests (a private server from initdb and postgres): ran"
else
	say "PostgreSQL restart tests: SKIPPED, PostgreSQL's initdb and postgres are neither on PATH nor under /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)"
fi

for tool in protoc buf; do
	if command -v "$tool" >/dev/null 2>&1; then
		say "$tool runs the documented commands (internal/doccmds$( [ "$tool" = protoc ] && echo ', TestProtocCompilesTheTree')): ran"
	else
		say "$tool runs the documented commands: SKIPPED, $tool is not on PATH"
	fi
done
