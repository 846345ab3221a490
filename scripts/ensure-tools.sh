#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine with only Node 20 and npm: pnpm, the
# dependencies and, with --test, the binaries the tests drive (nats-server, PostgreSQL, ping, traceroute,
# mtr, dig, unbound, nftables, curl, Chromium's headless shell; --bench adds testssl.sh). Safe to run again:
# it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.8
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "==> installing pnpm $PNPM_VERSION"
  npm install -g "pnpm@$PNPM_VERSION" >/dev/null
fi

if [ "${1:-}" = "--test" ] || [ "${1:-}" = "--bench" ]; then
  missing=()
  command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
  command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
  command -v ping >/dev/null 2>&1 || missing+=(iputils-ping)
  command -v traceroute >/dev/null 2>&1 || missing+=(traceroute)
  # The mtr fidelity test compares with Debian's mtr (mtr-tiny: the same program without its GUI).
  command -v mtr >/dev/null 2>&1 || missing+=(mtr-tiny)
  command -v dig >/dev/null 2>&1 || missing+=(bind9-dnsutils)
  command -v unbound >/dev/null 2>&1 || [ -x /usr/sbin/unbound ] || missing+=(unbound)
  command -v nft >/dev/null 2>&1 || [ -x /usr/sbin/nft ] || missing+=(nftables)
  command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || missing+=(iproute2)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  # The browser tests (the dashboard, the API docs page) drive Debian's old headless shell of Chromium
  # through playwright-core: a page costs a quarter of the CPU it costs in the full `chromium`.
  [ -x /usr/lib/chromium/chromium-headless-shell ] || missing+=(chromium-headless-shell)
  # bench:tls-compare puts the TLS audit's facts beside testssl.sh's.
  if [ "${1:-}" = "--bench" ]; then command -v testssl >/dev/null 2>&1 || missing+=(testssl.sh); fi
  if [ ${#missing[@]} -gt 0 ]; then
    echo "==> installing ${missing[*]} (apt-get)"
    if [ "$(id -u)" != 0 ]; then
      echo "error: ${missing[*]} missing and not root; install them with apt-get" >&2
      exit 1
    fi
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # The Debian packages start their own services; the tests spawn their own instances instead.
  fi
fi

if [ ! -d node_modules/.pnpm ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  echo "==> installing dependencies"
  pnpm install --frozen-lockfile --reporter=silent
fi
# raw-socket (ping, traceroute) built for the Node running now: one build per Node ABI is kept, so switching
# between Node 20 and 24 on one checkout rebuilds nothing after the first time.
node scripts/native-addons.mjs
# The IP data's ASN table, compiled once per install (a no-op when it is there already).
node --import tsx scripts/ip-data-cache.ts
