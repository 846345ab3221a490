#!/usr/bin/env bash
# All-in-one embedded mode: installs what it needs, then runs the controller with PGlite, the in-process
# transport and a local agent. Environment variables (see README) still apply.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh
# The dashboard (apps/web) and the controller are built from source on this machine, never downloaded, and
# only when a source changed since the last build; then plain Node runs the built controller.
node scripts/build.mjs --if-stale web controller
exec node apps/controller/dist/main.mjs --embedded "$@"
