#!/usr/bin/env bash
# The whole test suite: installs what it needs, type-checks, lints, runs every test against PGlite and
# PostgreSQL, and ends with one plain line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time, printed at the end (where a run's minutes went: install, checks, tests).
phases=""
phase_start=$SECONDS
phase_done() { phases="$phases$(printf '%6d s  %s' $((SECONDS - phase_start)) "$1")\n"; phase_start=$SECONDS; }
bash scripts/ensure-tools.sh --test || exit 1
phase_done "install (ensure-tools.sh --test)"

pg_out=$(bash scripts/test-postgres.sh) || { echo "error: no PostgreSQL for the tests" >&2; exit 1; }
export VANTAGE_TEST_PG_URL=$(echo "$pg_out" | sed -n 1p)
pg_dir=$(echo "$pg_out" | sed -n 2p)
phase_done "PostgreSQL for the tests (test-postgres.sh)"
cleanup() {
  if [ -n "$pg_dir" ]; then
    bindir=$(dirname "$(command -v pg_ctl 2>/dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl | tail -1)")
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$bindir/pg_ctl" -D "$pg_dir/data" -m fast stop >/dev/null 2>&1
    else "$bindir/pg_ctl" -D "$pg_dir/data" -m fast stop >/dev/null 2>&1; fi
    rm -rf "$pg_dir"
  fi
}
trap cleanup EXIT
export PATH="$PATH:/usr/sbin:/sbin"

status=0
# The type-check first, so that a type error shows in the first minute. It is incremental
# (node_modules/.cache/vantage-tsc): a second run on the same sources, such as CI's Node 24 leg, re-checks
# what changed, about 11 s instead of 36. (Run beside the tests instead, it gained nothing on two cores:
# the main project keeps both busy and took as much longer; docs/benchmarks.md, twenty-fourth session.)
echo "==> type-check"
pnpm -s typecheck || { status=1; echo "FAILED: type-check"; }
phase_done "type-check"
echo "==> lint"
pnpm -s lint || status=1
phase_done "lint"

echo "==> tests (PostgreSQL at ${VANTAGE_TEST_PG_URL%%/postgres})"
# VANTAGE_TEST_JSON=<file> keeps vitest's JSON report there (file times: scripts/test-durations.mjs).
json=${VANTAGE_TEST_JSON:-$(mktemp /tmp/vantage-vitest.XXXXXX.json)}
VITEST_JSON_OUT="$json" pnpm -s exec vitest run "$@"
vitest_status=$?
[ $vitest_status -ne 0 ] && status=1
phase_done "tests (vitest)"
echo "==> time per phase"
printf "$phases"

node -e '
  const fs = require("fs");
  let r = {};
  try { r = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch {}
  const passed = r.numPassedTests ?? 0, failed = r.numFailedTests ?? 0;
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A file that failed outside any test (import, beforeAll) counts once; its tests show as skipped.
  const suiteFailures = (r.testResults ?? []).filter((t) => t.status === "failed" && !(t.assertionResults ?? []).some((a) => a.status === "failed")).length;
  // Where the time goes: the slowest files (wall time from start to end, as vitest reports them).
  const files = (r.testResults ?? []).map((t) => ({ s: ((t.endTime ?? 0) - (t.startTime ?? 0)) / 1000, f: t.name ?? "" }));
  const total = files.reduce((a, t) => a + t.s, 0);
  console.log(`==> slowest test files (sum of file times ${Math.round(total)} s over ${files.length} files)`);
  for (const t of files.sort((a, b) => b.s - a.s).slice(0, 12))
    console.log(`${t.s.toFixed(1).padStart(8)} s  ${require("path").relative(process.cwd(), t.f)}`);
  // What failed, by name, just above the summary: a log cut to its tail (CI) still says which test it was.
  for (const t of r.testResults ?? []) {
    const file = require("path").relative(process.cwd(), t.name ?? "");
    const failedTests = (t.assertionResults ?? []).filter((a) => a.status === "failed");
    if (t.status === "failed" && failedTests.length === 0) console.log(`FAILED: ${file} (outside any test)`);
    for (const a of failedTests) {
      console.log(`FAILED: ${file} > ${a.fullName ?? a.title}`);
      // The first lines of why, so that a log cut to its tail still says what was expected and what came.
      const why = String((a.failureMessages ?? [])[0] ?? "").split("\n").filter((l) => l.trim() && !/^\s+at /.test(l));
      for (const l of why.slice(0, 8)) console.log(`  | ${l.slice(0, 300)}`);
    }
  }
  console.log(`${passed} passed, ${failed + suiteFailures} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$json"
[ -z "${VANTAGE_TEST_JSON:-}" ] && rm -f "$json"
exit $status
