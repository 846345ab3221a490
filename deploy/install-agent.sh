#!/usr/bin/env bash
# Installs, upgrades or removes a Vantage probe agent from its release tarball (pnpm release:agent).
# Run as root on the agent's host, from the unpacked tarball; README.md beside this script explains it.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: install-agent.sh [options]              install, or upgrade in place (keeps the environment and seed)
       install-agent.sh --uninstall [options]  stop and remove the agent: unit, files, environment, seed, user

  --env FILE     the agent's environment, as `pnpm agent:add <id> …` prints it (the block after
                 "# agent environment"), or `-` to read it from standard input. Required on the first
                 install; later runs keep the installed one unless given again. Its NATS_NKEY_SEED_FILE is
                 rewritten to the installed seed.
  --seed FILE    the agent's nkey seed (`agent-<id>.nk` from `pnpm agent:add`), installed root-only (0600).
                 Required on the first install; later runs keep the installed one unless given again.
  --from PATH    the unpacked release folder or the .tar.gz itself (default: the folder of this script)
  --node PATH    the Node the unit runs (default: /usr/bin/node, else `node` on PATH); it must be the Node
                 major the release was built with (build-info.json), as raw.node is built for it
  --user NAME    the service user (default: vantage), created as a system user without a login
  --prefix DIR   install everything under DIR (DIR/etc/vantage, DIR/opt/vantage-agent,
                 DIR/etc/systemd/system): a throw-away tree for tests. The default user is then neither
                 created nor removed (the host's users are not the tree's); name one with --user to have it
                 created and, by --uninstall, removed all the same.
  --no-systemd   write the unit file but run no systemctl (no enable, start, restart, stop)
  --keep-config  with --uninstall: keep agent.env and agent.nk
  -h, --help     this text

Layout: /opt/vantage-agent/<version>/ (bundle, raw.node, threadpool.cjs, this script, README), the symlink
/opt/vantage-agent/current to the running version (the previous one is kept for a rollback), the
environment /etc/vantage/agent.env (0644, holds no secret), the seed /etc/vantage/agent.nk (root:root 0600,
handed to the service by systemd's LoadCredential), the unit /etc/systemd/system/vantage-agent.service
(CAP_NET_RAW for ping and traceroute is granted to the unit only, never to the node binary).
Running it again changes nothing and restarts nothing; a newer release upgrades in place and restarts.
EOF
}

die() {
  echo "install-agent: error: $*" >&2
  exit 1
}
say() { echo "install-agent: $*"; }

env_file="" seed_file="" from="" node="" user="" prefix="" systemd=1 uninstall=0 keep_config=0
while [ $# -gt 0 ]; do
  case "$1" in
    --env) env_file="${2:?--env needs a file or -}"; shift 2 ;;
    --seed) seed_file="${2:?--seed needs a file}"; shift 2 ;;
    --from) from="${2:?--from needs a path}"; shift 2 ;;
    --node) node="${2:?--node needs a path}"; shift 2 ;;
    --user) user="${2:?--user needs a name}"; shift 2 ;;
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --no-systemd) systemd=0; shift ;;
    --uninstall) uninstall=1; shift ;;
    --keep-config) keep_config=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option $1" ;;
  esac
done

[ "$(id -u)" = 0 ] || die "run me as root (sudo $0 …): I create a system user, write /etc and /opt, install a unit"

# Users are the host's: under --prefix only a user named explicitly is created (and removed).
manage_user=1
if [ -n "$prefix" ]; then
  mkdir -p "$prefix"
  prefix=$(cd "$prefix" && pwd -P)
  [ "$prefix" != / ] || prefix=""
  [ -n "$user" ] || manage_user=0
  case "$prefix" in *[\#\&\\]*) die "--prefix must not contain #, & or a backslash" ;; esac
fi
user="${user:-vantage}"
etc_dir="$prefix/etc/vantage"
opt_dir="$prefix/opt/vantage-agent"
unit_dir="$prefix/etc/systemd/system"
unit_file="$unit_dir/vantage-agent.service"
unit_name=vantage-agent.service
# Marks the user as this script's own, so --uninstall never deletes a `vantage` user someone else made.
user_comment="Vantage probe agent (install-agent.sh)"

# Writes stdin to $1 with mode $2 unless $1 already holds exactly that; prints "changed" when it wrote.
write_if_changed() {
  local dest="$1" mode="$2" tmp
  tmp=$(mktemp "$dest.new.XXXXXX")
  cat >"$tmp"
  chmod "$mode" "$tmp"
  chown root:root "$tmp"
  if [ -f "$dest" ] && cmp -s "$tmp" "$dest" && [ "$(stat -c %a:%u "$dest")" = "${mode#0}:0" ]; then
    rm -f "$tmp"
  else
    mv -f "$tmp" "$dest"
    echo changed
  fi
}

systemctl_() {
  if [ "$systemd" = 1 ]; then systemctl "$@"; fi
}

if [ "$uninstall" = 1 ]; then
  if [ "$systemd" = 1 ] && systemctl cat "$unit_name" >/dev/null 2>&1; then
    say "stopping and disabling $unit_name (running jobs finish first, up to 150 s)"
    systemctl disable --now "$unit_name" >/dev/null 2>&1 || true
  fi
  if [ -f "$unit_file" ]; then
    rm -f "$unit_file"
    systemctl_ daemon-reload
    say "removed $unit_file"
  fi
  if [ -d "$opt_dir" ]; then
    rm -rf "$opt_dir"
    say "removed $opt_dir"
  fi
  if [ "$keep_config" = 0 ]; then
    for f in "$etc_dir/agent.env" "$etc_dir/agent.nk"; do
      if [ -e "$f" ]; then rm -f "$f" && say "removed $f"; fi
    done
    # The controller's files may live there too: only an empty folder goes.
    rmdir "$etc_dir" 2>/dev/null || true
  else
    say "kept $etc_dir/agent.env and $etc_dir/agent.nk (--keep-config)"
  fi
  if [ "$manage_user" = 1 ] && getent passwd "$user" >/dev/null; then
    if [ "$(getent passwd "$user" | cut -d: -f5)" = "$user_comment" ]; then
      userdel "$user" && say "removed user $user"
    else
      say "left user $user alone: install-agent.sh did not create it"
    fi
  fi
  if [ -n "$prefix" ]; then
    rmdir "$unit_dir" "$prefix/etc/systemd" "$prefix/etc" "$prefix/opt" 2>/dev/null || true
  fi
  say "uninstalled"
  exit 0
fi

# ---- the release to install -------------------------------------------------------------------------------
work=""
cleanup() { if [ -n "$work" ]; then rm -rf "$work"; fi; }
trap cleanup EXIT
src="${from:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)}"
if [ -f "$src" ]; then
  work=$(mktemp -d)
  tar -xzf "$src" -C "$work"
  src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'vantage-agent-*' | head -n 1)
  [ -n "$src" ] || die "$from holds no vantage-agent-<version>/ folder"
fi
[ -d "$src" ] || die "$src: no such folder or tarball"
src=$(cd "$src" && pwd -P)
for f in vantage-agent.mjs raw.node threadpool.cjs build-info.json vantage-agent.service install-agent.sh; do
  [ -f "$src/$f" ] || die "$src is not an unpacked release: $f is missing (run me from the unpacked tarball, or pass --from)"
done

if [ -z "$node" ]; then
  if [ -x /usr/bin/node ]; then node=/usr/bin/node; else node=$(command -v node || true); fi
fi
{ [ -n "$node" ] && [ -x "$node" ]; } || die "no Node found: install Node (the major in $src/build-info.json) or pass --node"
case "$node" in /*) ;; *) die "--node must be an absolute path" ;; esac
case "$node" in
  /home/* | /root/* | /run/user/*) say "warning: the unit's ProtectHome=true hides $node from the service: install Node outside home folders" ;;
esac

info() { "$node" -e 'const i = require(process.argv[1]); process.stdout.write(String(i[process.argv[2]]))' "$src/build-info.json" "$1"; }
version=$(info version)
built_major=$(info node_major)
built_abi=$(info node_abi)
[[ "$version" =~ ^[0-9A-Za-z.+-]+$ ]] || die "build-info.json names no usable version: $version"
host_node=$("$node" -p process.versions.node)
host_abi=$("$node" -p process.versions.modules)
if [ "$host_abi" != "$built_abi" ]; then
  die "this release was built with Node $built_major (ABI $built_abi) and $node is Node $host_node (ABI $host_abi): its raw.node (ping, traceroute) loads only on Node $built_major. Install Node $built_major, or build the release with Node ${host_node%%.*} (pnpm release:agent)"
fi
"$node" -e 'process.dlopen({ exports: {} }, process.argv[1])' "$src/raw.node" ||
  die "$src/raw.node does not load on $node (Node $host_node)"

# ---- environment and seed ---------------------------------------------------------------------------------
env_text=""
if [ -n "$env_file" ]; then
  if [ "$env_file" = - ]; then env_text=$(cat); else env_text=$(cat -- "$env_file"); fi
elif [ -f "$etc_dir/agent.env" ]; then
  env_text=$(cat "$etc_dir/agent.env")
else
  die "first install: pass the agent's environment with --env FILE (or --env - to read it from stdin), as \`pnpm agent:add <id> …\` prints it"
fi
# Only what systemd's EnvironmentFile= and a shell both read: comments, blank lines, NAME=value.
lineno=0
declare -A env_values=()
while IFS= read -r line || [ -n "$line" ]; do
  lineno=$((lineno + 1))
  case "$line" in '' | '#'*) continue ;; esac
  [[ "$line" =~ ^([A-Z_][A-Z0-9_]*)=(.*)$ ]] ||
    die "environment line $lineno is not NAME=value: $line (pass only the block after \"# agent environment\")"
  value="${BASH_REMATCH[2]}"
  value="${value#\"}"
  value="${value%\"}"
  env_values["${BASH_REMATCH[1]}"]="$value"
done <<<"$env_text"
for name in VANTAGE_NODE_ID VANTAGE_NODE_COUNTRY VANTAGE_NODE_REGION VANTAGE_NODE_PROVIDER NATS_URL; do
  [ -n "${env_values[$name]:-}" ] || die "the environment lacks $name: fill it in (pnpm agent:add left it empty)"
done
seed_path="$etc_dir/agent.nk"
seed_note="# install-agent.sh: the installed seed (the unit hands the service its own copy of it)"
env_out=$(printf '%s\n' "$env_text" | grep -v -e '^NATS_NKEY_SEED_FILE=' -e "^$seed_note" || true)
env_out=$(printf '%s\n%s\nNATS_NKEY_SEED_FILE="%s"' "$env_out" "$seed_note" "$seed_path")

if [ -n "$seed_file" ]; then
  seed=$(tr -d ' \r\n' <"$seed_file")
  [[ "$seed" =~ ^SU[A-Z2-7]{56}$ ]] || die "$seed_file holds no nkey user seed (SU…, 58 characters): pass the agent-<id>.nk that pnpm agent:add wrote"
elif [ -f "$seed_path" ]; then
  seed=$(cat "$seed_path")
else
  die "first install: pass the agent's nkey seed with --seed FILE (the agent-<id>.nk that pnpm agent:add wrote)"
fi

mkdir -p "$etc_dir" "$opt_dir" "$unit_dir"
chmod 755 "$etc_dir"
changed=0
[ -z "$(printf '%s\n' "$seed" | write_if_changed "$seed_path" 600)" ] || { changed=1; say "installed the seed $seed_path (root:root 0600)"; }
[ -z "$(printf '%s\n' "$env_out" | write_if_changed "$etc_dir/agent.env" 644)" ] || { changed=1; say "wrote $etc_dir/agent.env (node ${env_values[VANTAGE_NODE_ID]})"; }

# ---- user ---------------------------------------------------------------------------------------------------
if [ "$manage_user" = 1 ] && ! getent passwd "$user" >/dev/null; then
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
    --comment "$user_comment" "$user"
  say "created the system user $user"
fi

# ---- the release files: <version>/ beside the others, then `current` switched ------------------------------
release_dir="$opt_dir/$version"
stage=$(mktemp -d "$opt_dir/.stage-$version.XXXXXX")
for f in vantage-agent.mjs threadpool.cjs build-info.json vantage-agent.service README.md LICENSE THIRD-PARTY-NOTICES.md; do
  if [ -f "$src/$f" ]; then install -m 644 -o root -g root "$src/$f" "$stage/$f"; fi
done
install -m 755 -o root -g root "$src/raw.node" "$stage/raw.node"
install -m 755 -o root -g root "$src/install-agent.sh" "$stage/install-agent.sh"
chmod 755 "$stage"
if [ -d "$release_dir" ] && diff -r -q "$stage" "$release_dir" >/dev/null 2>&1; then
  rm -rf "$stage"
else
  if [ -d "$release_dir" ]; then
    rm -rf "$release_dir.old"
    mv "$release_dir" "$release_dir.old"
  fi
  mv "$stage" "$release_dir"
  rm -rf "$release_dir.old"
  changed=1
  say "installed release $version in $release_dir"
fi
previous=$(readlink "$opt_dir/current" 2>/dev/null || true)
if [ "$previous" != "$version" ]; then
  ln -sfn "$version" "$opt_dir/.current.new"
  mv -T "$opt_dir/.current.new" "$opt_dir/current"
  changed=1
  say "switched $opt_dir/current to $version${previous:+ (was $previous)}"
fi
# Keep the running release and the newest other one (a rollback: point `current` back and restart).
kept=""
while IFS= read -r name; do
  [ "$name" != "$version" ] || continue
  if [ -z "$kept" ]; then
    kept="$name"
  else
    rm -rf "${opt_dir:?}/$name"
    say "removed the old release $name"
  fi
done < <(find "$opt_dir" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*' -printf '%T@ %f\n' | sort -rn | cut -d' ' -f2-)

# ---- the unit --------------------------------------------------------------------------------------------
unit_changed=$(sed \
  -e "s#/usr/bin/node#$node#g" \
  -e "s#/opt/vantage-agent#$opt_dir#g" \
  -e "s#/etc/vantage/#$etc_dir/#g" \
  -e "s#^User=vantage\$#User=$user#" \
  -e "s#^Group=vantage\$#Group=$user#" \
  "$src/vantage-agent.service" | write_if_changed "$unit_file" 644)
if [ -n "$unit_changed" ]; then
  changed=1
  say "wrote $unit_file"
  systemctl_ daemon-reload
fi

if [ "$systemd" = 1 ]; then
  systemctl enable "$unit_name" >/dev/null 2>&1
  if [ "$changed" = 1 ]; then
    say "restarting $unit_name"
    systemctl restart "$unit_name"
  else
    systemctl start "$unit_name"
  fi
  sleep 3
  if systemctl is-active --quiet "$unit_name"; then
    say "$unit_name is running: journalctl -u vantage-agent shows \`connected to NATS\` and \`agent serving jobs\`"
  else
    die "$unit_name is not running: journalctl -u vantage-agent -n 50 says why (exit status 2 is a configuration error)"
  fi
else
  say "--no-systemd: not started; run it as the unit would: $node --optimize-for-size --no-maglev --no-opt --require $opt_dir/current/threadpool.cjs $opt_dir/current/vantage-agent.mjs (with $etc_dir/agent.env)"
fi
[ "$changed" = 1 ] || say "nothing changed: release $version is installed and configured as given"
