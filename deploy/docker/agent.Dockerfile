# Vantage probe agent image: one probe node (http, dns, tcp, ping, traceroute). See docs/containers.md.
#
#   docker build -f deploy/docker/agent.Dockerfile -t vantage-agent .      (from the repository root)
#
# NOT BUILT HERE: the machine this was written on has no Docker engine. The build commands were run outside
# Docker on Node 24 and the three files this image keeps were run on their own, as an unprivileged user, with
# a Node binary carrying the same file capability (docs/containers.md, "What was checked"); the Dockerfile
# itself is untested.
#
# The runtime stage holds the agent's build only: apps/agent/build.mjs bundles the agent with every
# dependency into vantage-agent.mjs, with raw.node (raw-socket's native addon, for ping and traceroute) and
# threadpool.cjs (sizes libuv's thread pool before Node first uses it) beside it. No node_modules, no sources.
#
# Environment (apps/agent/src/config.ts; docs/operations.md section 4; a bad value stops the agent with exit
# status 2 and one line naming it). `pnpm agent:add <id> --env-only` prints the block for a node:
#   VANTAGE_NODE_ID, VANTAGE_NODE_NAME, VANTAGE_NODE_COUNTRY, VANTAGE_NODE_REGION, VANTAGE_NODE_PROVIDER
#   NATS_URL                     nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222 (tls://… over the Internet)
#   NATS_NKEY_SEED_FILE          this node's seed, mounted read-only (e.g. /run/secrets/nats.nk), readable by uid 10001
#   NATS_TLS_CA_FILE             a private CA for tls:// URLs. NODE_EXTRA_CA_CERTS and NODE_OPTIONS do NOT work in
#                                this image: Node ignores them in a binary with file capabilities (secure mode)
#   optional: NATS_NO_RANDOMIZE, VANTAGE_AGENT_CONCURRENCY, VANTAGE_HEARTBEAT_MS, VANTAGE_LOG_LEVEL, UV_THREADPOOL_SIZE
#
# CAP_NET_RAW, and nothing else. ping and traceroute open raw ICMP sockets, which take CAP_NET_RAW in the
# process's effective set. The agent runs as uid 10001, and Docker gives a non-root process no effective
# capability of its own: `cap_add: [NET_RAW]` (with `cap_drop: [ALL]`) only puts NET_RAW into the
# container's bounding set. The two ways to carry it into a non-root process:
#   - ambient capabilities (what the systemd unit does with AmbientCapabilities=): Docker and compose have no
#     setting for them, so the container would have to start as root and drop to the user itself (setpriv
#     --ambient-caps), which needs CAP_SETUID, CAP_SETGID and CAP_SETPCAP in the bounding set as well;
#   - a file capability on the image's node binary (chosen): `setcap cap_net_raw+ep` below. At exec the
#     kernel grants the binary's permitted set masked by the bounding set, so the agent gets exactly
#     NET_RAW when the container was given it, and the process never runs as root, not even at start.
# On a host, `setcap` on /usr/bin/node would hand raw sockets to every Node program of every user (which is
# why the systemd unit uses ambient capabilities instead); in this single-purpose image the only Node
# program is the agent, so the capability reaches exactly the process it is meant for.
# Consequences, each checked outside Docker with setpriv and the same binary:
#   - without NET_RAW in the bounding set (`cap_drop: [ALL]` and no `cap_add`) the kernel refuses to run a
#     binary whose file capability it cannot grant: the container fails at once, "exec … operation not
#     permitted" (exit 126). Docker's default set includes NET_RAW, so a plain `docker run` works;
#   - `no-new-privileges` must NOT be set on the agent: the binary then starts WITHOUT the capability, and
#     the agent runs with ping and traceroute reporting icmp_unavailable (its heartbeat lacks `icmp`);
#   - Node runs such a binary in secure mode: NODE_OPTIONS and NODE_EXTRA_CA_CERTS are ignored (above).

# The build stage and the runtime stage must run the same Node major: raw.node is compiled for the Node ABI
# of the build (apps/agent/build.mjs checks that it loads and records it in build-info.json) and loads on
# that major only. One ARG for both stages keeps them on the same image. Pin a digest for reproducibility.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build ----
FROM ${NODE_IMAGE} AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# The version package.json's packageManager names; corepack is not used.
RUN npm install -g pnpm@10.34.8 && pnpm --version
# CI=true: no TTY prompts. npm_config_nodedir: node-gyp compiles raw-socket against this Node's own headers.
ENV CI=true \
    npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false
WORKDIR /app
COPY . .
# Every dependency: esbuild, which builds the bundle, is a development dependency (of apps/web).
# --config.side-effects-cache=false: raw-socket is compiled for this Node, never taken from a store cache.
RUN pnpm install --frozen-lockfile --config.side-effects-cache=false
RUN node apps/agent/build.mjs \
  && node -e "const b = require('./apps/agent/dist/build-info.json'); if (b.node_abi !== process.versions.modules) { console.error('raw.node built for ABI ' + b.node_abi); process.exit(1); }"

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
# The file capability (see above). libcap2-bin (setcap) is removed again once it is set.
RUN apt-get update \
  && apt-get install -y --no-install-recommends libcap2-bin \
  && setcap cap_net_raw+ep "$(readlink -f /usr/local/bin/node)" \
  && getcap "$(readlink -f /usr/local/bin/node)" | grep -q cap_net_raw \
  && apt-get purge -y --auto-remove libcap2-bin \
  && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 vantage \
  && useradd --system --uid 10001 --gid 10001 --home-dir /nonexistent --no-create-home \
       --shell /usr/sbin/nologin vantage
WORKDIR /opt/vantage-agent
COPY --from=build /app/apps/agent/dist/vantage-agent.mjs /app/apps/agent/dist/raw.node \
     /app/apps/agent/dist/threadpool.cjs /opt/vantage-agent/
USER 10001:10001
# The agent opens no port. Healthy = an established TCP connection to one of NATS_URL's ports (4222 when a
# URL names none), read from /proc/net/tcp{,6} of the container's own network namespace: the agent is
# connected to NATS, not merely running. While it reconnects (a NATS server lost) it is unhealthy for a while.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const fs = require('node:fs'); const ports = new Set((process.env.NATS_URL || '').split(',').map((u) => { try { return Number(new URL(u.trim()).port || 4222); } catch { return 4222; } }).map((p) => p.toString(16).toUpperCase().padStart(4, '0'))); const lines = ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((f) => { try { return fs.readFileSync(f, 'utf8').split('\\n'); } catch { return []; } }); process.exit(lines.some((l) => { const c = l.trim().split(/\\s+/); return c[3] === '01' && ports.has((c[2] || '').split(':').pop()); }) ? 0 : 1);"]
# SIGTERM: new jobs are refused, running ones finish (each at most 110 s), a last heartbeat says draining,
# exit 0. Give it `stop_grace_period: 150s` (compose.yaml does), like the unit's TimeoutStopSec=150.
STOPSIGNAL SIGTERM
# One node process (PID 1, which handles SIGTERM itself), with Node's options and the thread-pool preload
# as the unit runs it (deploy/agent-release/vantage-agent.service says why those options).
ENTRYPOINT ["node", "--optimize-for-size", "--no-maglev", "--no-opt", "--require", "/opt/vantage-agent/threadpool.cjs", "/opt/vantage-agent/vantage-agent.mjs"]
