#!/usr/bin/env bash
# Prints a PostgreSQL admin URL for the tests. Uses VANTAGE_TEST_PG_URL if set, else the machine's server on
# 127.0.0.1:5432 if it answers, else starts a throw-away cluster on a random port (stopped by the caller
# through the PID file printed on the second line).
set -euo pipefail
if [ -n "${VANTAGE_TEST_PG_URL:-}" ]; then echo "$VANTAGE_TEST_PG_URL"; exit 0; fi
if command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432 -U postgres 2>/dev/null; then
  echo "postgres://postgres@127.0.0.1:5432/postgres"; exit 0
fi
bindir=$(dirname "$(command -v initdb 2>/dev/null || ls /usr/lib/postgresql/*/bin/initdb | tail -1)")
dir=$(mktemp -d /tmp/vantage-pg.XXXXXX)
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])' 2>/dev/null || echo 55432)
run() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ]; then id postgres >/dev/null 2>&1 || useradd -r -M postgres; chown postgres "$dir"; fi
run "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >/dev/null
run "$bindir/pg_ctl" -D "$dir/data" -o "-h 127.0.0.1 -p $port -k $dir" -l "$dir/log" -w start >/dev/null
echo "postgres://postgres@127.0.0.1:$port/postgres"
echo "$dir"
