# syntax=docker/dockerfile:1
# Every app's image, from one file: APP (license, matchmaker, stats or gateway) picks the app.
# Build from the repository root:
#   docker build --build-arg APP=gateway -t arena/gateway .
# Migrate first (a one-off job of the same image; license, stats and gateway), then run:
#   docker run --rm -e DATABASE_URL=... arena/gateway node dist/migrate.js
#   docker run -p 8080:8080 -e DATABASE_URL=... -e REDIS_URL=... -e STATS_URL=http://stats:8081 \
#     -e ADMIN_TOKEN=... -e SERVICE_TOKEN=... -e SIGNING_KEY_SECRET=... -e PUBLIC_URL=https://api.example.com arena/gateway
#   docker run -p 8082:8082 -e DATABASE_URL=... -e ADMIN_TOKEN=... -e SIGNING_KEY_SECRET=... \
#     -e SMTP_URL=smtps://user:pass@smtp.example.com -e PUBLIC_URL=https://license.example.com arena/license
#   docker run -e DATABASE_URL=... -e REDIS_URL=... -e SERVICE_TOKEN=... -e MATCHMAKER_URL=http://matchmaker:8000 arena/stats
#   docker run -p 8000:8000 -e LICENSE_KEY=lk_... -e LICENSE_URL=https://license.example.com arena/matchmaker
# Admin CLIs: docker run --rm -i -e DATABASE_URL=... arena/gateway node dist/cli.js list-tenants
#             docker run --rm -e DATABASE_URL=... arena/license node dist/cli.js create-license --name ... --email ...
# e2e/system/images.test.ts replays these stages on the host (no Docker engine needed) and runs the
# result for each app; e2e/test/wiring.test.ts checks each app's stage below against
# scripts/platform-wiring.mjs (its port and Node.js flags).
ARG NODE_IMAGE=node:20-slim
# Required: without it the last FROM names no stage and the build stops there.
ARG APP

FROM ${NODE_IMAGE} AS base
ENV TURBO_TELEMETRY_DISABLED=1 npm_config_update_notifier=false
# The versions the repository pins: package.json's packageManager and the lockfile's turbo.
ARG PNPM_VERSION=12.21.0
ARG TURBO_VERSION=2.11.11
RUN npm install --global --no-fund --no-audit pnpm@${PNPM_VERSION} turbo@${TURBO_VERSION}

# Only the packages the app depends on, split into manifests (json/) and sources (full/).
FROM base AS prune
ARG APP
WORKDIR /repo
COPY . .
RUN turbo prune "@arena/${APP}" --docker

FROM base AS build
ARG APP
WORKDIR /repo
# Manifests and lockfile first: this layer, the install, is reused until a dependency changes.
COPY --from=prune /repo/out/json/ ./
RUN pnpm install --frozen-lockfile
COPY --from=prune /repo/out/full/ ./
COPY --from=prune /repo/tsconfig.base.json ./
# turbo runs db:generate (the Prisma client into src/generated) before each build; deploy copies
# the app with its production dependencies only into /out.
RUN pnpm turbo run build "--filter=@arena/${APP}..." \
 && pnpm --filter "@arena/${APP}" deploy --prod --legacy /out

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0
WORKDIR /app
# dist/, and prisma/ where the app has a database (schema and migrations: the start-up check
# compares them with the database). Owned by root: the runtime user can read the code, not change it.
COPY --from=build /out ./
USER node
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]

# What differs per app: its port and runtime settings (the port and flags are platform-wiring.mjs's).
FROM runtime AS license
# Without SMTP_URL, mails are files in MAIL_DIR: the runtime user's home, the one place it may write.
ENV PORT=8082 MAIL_DIR=/home/node/mail
EXPOSE 8082

# A larger young generation: a 10k-ticket request allocates tens of MB of short-lived objects, and
# the default 16 MB semi-space makes V8 scavenge several times per request (see README, Benchmarks).
FROM runtime AS matchmaker
ENV PORT=8000 NODE_OPTIONS=--max-semi-space-size=64
EXPOSE 8000

FROM runtime AS stats
ENV PORT=8081
EXPOSE 8081

FROM runtime AS gateway
ENV PORT=8080
EXPOSE 8080

FROM ${APP}
