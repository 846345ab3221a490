#!/usr/bin/env bash
# Every benchmark, one after the other; each prints its own table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh --bench
for script in $(node -e 'const s=require("./package.json").scripts;console.log(Object.keys(s).filter(k=>k.startsWith("bench:")).join(" "))'); do
  echo "== pnpm $script"
  pnpm -s "$script"
  echo
done
