# Vantage controller image (HTTP API, scheduler, notifier, presence). See docs/containers.md.
#
#   docker build -f deploy/docker/controller.Dockerfile -t vantage-controller .      (from the repository root)
#
# NOT BUILT HERE: the machine this was written on has no Docker engine. The commands of every stage were run
# outside Docker on Node 24 (docs/containers.md, "What was checked"); the Dockerfile itself is untested.
#
# Why the runtime stage holds the whole workspace. apps/controller/build.mjs bundles the workspace sources
# (@vantage/*) but keeps every npm package external: the bundle in apps/controller/dist imports them from
# node_modules at run time, some by bare name (resolved through apps/controller/node_modules) and some by
# relative path into node_modules/.pnpm/<package>@<version>/… (dependencies of workspace packages only,
# e.g. maxmind, pkijs, raw-socket). Data is read beside the sources too: packages/lookups/data, apps/web/dist
# (the dashboard), apps/agent/package.json, node_modules/.cache/vantage-ip-data, Scalar's browser bundle and
# PGlite's files in node_modules. The build "is not relocatable": it runs from the checkout it was built in.
# So the runtime stage is that checkout, minus the development dependencies:
#   - the `deps` stage installs the workspace again with `pnpm install --prod` from the same lockfile, which
#     gives the same node_modules/.pnpm directory names the bundle points at (checked: every relative import
#     of the bundle resolves in such a tree) and leaves out esbuild, TypeScript, vitest, playwright-core, …;
#   - the `build` stage's outputs are copied on top: apps/controller/dist, apps/web/dist, the compiled ASN
#     table (node_modules/.cache/vantage-ip-data; without it each start compiles it in memory, about 3 s)
#     and the migrated template of new embedded databases (node_modules/.cache/vantage-pglite).
# `pnpm prune --prod` on the build stage would be shorter, but in a workspace it empties every project's
# node_modules (tried: the controller then fails with "Cannot find package 'zod'"); `pnpm deploy` (not tried)
# makes a standalone copy of one package, which would break the bundle's relative paths into the workspace.
# The image is therefore correct rather than small (node_modules alone is about 470 MB).
#
# Environment (every variable of the README's "Configuration (controller)" table is read; a bad value stops
# the process with exit status 2 and one line naming it). Set by this image:
#   HOST=0.0.0.0                 listen on the container's interfaces (the controller's default is loopback)
#   PORT=8080                    the HTTP port (EXPOSE below; the HEALTHCHECK follows PORT)
#   VANTAGE_DATA_DIR=/var/lib/vantage   writable by the vantage user (a volume in compose.yaml); with the
#                                secrets below set, the controller writes nothing there
# Required in distributed mode (compose.yaml passes them; see docs/containers.md for how to make them):
#   DATABASE_URL                 postgres://vantage:<password>@postgres:5432/vantage
#   NATS_URL                     nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222
#   NATS_NKEY_SEED_FILE          the controller's nkey seed (`pnpm nats:controller-user`), e.g. /run/secrets/nats.nk
#   VANTAGE_JWT_SECRET           ≥ 32 characters, the same on every controller
#   VANTAGE_SECRET_KEY           32 random bytes, base64 (`openssl rand -base64 32`), the same on every controller
# Recommended: VANTAGE_METRICS_TOKEN (or VANTAGE_METRICS_LISTEN; otherwise /metrics is public on the API port
# and the controller warns at start), VANTAGE_PUBLIC_URL, VANTAGE_TRUSTED_PROXIES (behind a reverse proxy),
# SMTP_URL and SMTP_FROM (mail), STRIPE_* (billing). Without DATABASE_URL and NATS_URL the controller runs
# embedded (PGlite in VANTAGE_DATA_DIR, an in-process agent without raw sockets: no ping or traceroute).
#
# The operator commands are in the image too: `node apps/controller/dist/migrate.mjs`, `account-plan.mjs`,
# `secrets-rotate.mjs`, `add-agent.mjs` (what `pnpm migrate`, `pnpm account:plan`, … run), e.g.
#   docker compose run --rm controller node apps/controller/dist/account-plan.mjs someone@example.net pro

# One Node for every stage: raw-socket (a dependency of @vantage/probes, loaded by the controller) is
# compiled in the deps stage and must load on the runtime stage's Node. Node 24 LTS; 22 also works
# (package.json engines: ^20.19 || ^22.12 || ^24). Pin a digest for reproducible builds:
# --build-arg NODE_IMAGE=node:24-bookworm-slim@sha256:…
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- toolchain: pnpm, the compilers node-gyp needs for raw-socket, and the sources ----
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# The version package.json's packageManager names; corepack is not used.
RUN npm install -g pnpm@10.34.8 && pnpm --version
# CI=true: pnpm never waits for a TTY prompt. npm_config_nodedir: node-gyp builds against this Node's own
# headers (the official image ships them in /usr/local/include/node) instead of downloading them.
ENV CI=true \
    npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false
WORKDIR /app
COPY . .

# ---- build: every dependency (esbuild is a development dependency), `pnpm build`, the ASN table ----
FROM toolchain AS build
# --config.side-effects-cache=false: raw-socket is compiled here, for this Node, never taken from a store
# cache that another Node's build filled (seen outside Docker: a store shared with Node 20 handed Node 24 a
# raw.node of the wrong ABI).
RUN pnpm install --frozen-lockfile --config.side-effects-cache=false
# The dashboard (apps/web/dist), the CLI, the agent bundle and the controller (apps/controller/dist).
RUN pnpm build
# The IP data's compiled ASN table into node_modules/.cache/vantage-ip-data (what scripts/ensure-tools.sh
# does after an install); tsx is a development dependency, so it runs here.
RUN node --import tsx scripts/ip-data-cache.ts

# ---- deps: the same workspace with production dependencies only ----
FROM toolchain AS deps
RUN pnpm install --frozen-lockfile --prod --config.side-effects-cache=false

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
# A fixed uid/gid, so files mounted into the container (the nkey seed) can be given to it: chown 10001.
RUN groupadd --system --gid 10001 vantage \
  && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/vantage --no-create-home \
       --shell /usr/sbin/nologin vantage \
  && install -d -o vantage -g vantage -m 0700 /var/lib/vantage
WORKDIR /app
# Owned by root and read-only to the vantage user; nothing under /app is written at run time.
COPY --from=deps /app /app
COPY --from=build /app/apps/controller/dist /app/apps/controller/dist
COPY --from=build /app/apps/web/dist /app/apps/web/dist
COPY --from=build /app/node_modules/.cache/vantage-ip-data /app/node_modules/.cache/vantage-ip-data
# The migrated template a new embedded database starts from (made by the controller's build; see
# apps/controller/src/db/pglite-template.ts). Without it an embedded start makes its schema from scratch.
COPY --from=build /app/node_modules/.cache/vantage-pglite /app/node_modules/.cache/vantage-pglite
ENV HOST=0.0.0.0 \
    PORT=8080 \
    VANTAGE_DATA_DIR=/var/lib/vantage
USER 10001:10001
EXPOSE 8080
# Liveness (/healthz answers while the process serves HTTP), with Node's own fetch: no curl in the image.
# It asks 127.0.0.1: keep HOST at 0.0.0.0 (or ::). A controller without the `api` role (VANTAGE_ROLES) opens no
# port: disable the check for it (compose: `healthcheck: {disable: true}`).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: in-flight requests finish (VANTAGE_SHUTDOWN_GRACE_MS, default 10 s), then exit 0; give it
# `stop_grace_period: 30s` (compose.yaml does). Node is PID 1 and handles SIGTERM itself.
STOPSIGNAL SIGTERM
CMD ["node", "apps/controller/dist/main.mjs"]
