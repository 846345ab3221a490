#!/usr/bin/env bash
# All-in-one embedded mode: installs what it needs, then runs the controller with PGlite, the in-process
# transport and a local agent. Environment variables (see README) still apply.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh
# The dashboard (apps/web) is built from source on this machine, never downloaded: only when stale.
node apps/web/build.mjs --if-stale
exec pnpm -s exec tsx apps/controller/src/main.ts --embedded "$@"
