# Tracelight server image: `docker build -t tracelight .`, then
#   docker run -p 8088:8088 -v tracelight-data:/data \
#     -e TRACELIGHT_ADMIN_EMAIL=admin@example.com -e TRACELIGHT_ADMIN_PASSWORD=change-me-please tracelight
# The build stage makes the same bundles as `pnpm bundle` / `pnpm bundle:admin` / `pnpm bundle:evaluator`
# (their own production node_modules, compiled code only); the image runs them as the unprivileged
# `node` user. `docker run … tracelight tracelight-evaluator` runs the scoring workers alone.

FROM node:20-bookworm-slim AS build
# better-sqlite3 is compiled from source at install when no prebuilt binary can be fetched (docs/contributing.md): its tool chain.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
RUN npm install --global pnpm@9.15.9
WORKDIR /src
COPY . .
RUN pnpm install --frozen-lockfile \
 && pnpm bundle /opt/tracelight/server \
 && pnpm bundle:admin /opt/tracelight/admin \
 && pnpm bundle:evaluator /opt/tracelight/evaluator

FROM node:20-bookworm-slim
COPY --from=build /opt/tracelight /opt/tracelight
RUN printf '#!/bin/sh\nexec node /opt/tracelight/admin/dist/main.js "$@"\n' > /usr/local/bin/tracelight-admin \
 && chmod 755 /usr/local/bin/tracelight-admin \
 && printf '#!/bin/sh\nexec node /opt/tracelight/evaluator/dist/main.js "$@"\n' > /usr/local/bin/tracelight-evaluator \
 && chmod 755 /usr/local/bin/tracelight-evaluator \
 && mkdir /data && chown node:node /data
# Listen on every interface of the container; the SQLite file and the generated secret key live in /data.
ENV NODE_ENV=production \
    TRACELIGHT_HOST=0.0.0.0 \
    TRACELIGHT_PORT=8088 \
    TRACELIGHT_DATA_DIR=/data
USER node
WORKDIR /opt/tracelight/server
VOLUME /data
EXPOSE 8088
# Liveness: /healthcheck answers while the process serves (/readyz, which also asks the database, is
# for load balancers and orchestrators that route traffic).
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.TRACELIGHT_PORT+'/healthcheck').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: in-flight requests finish, the database is closed, exit 0 (forced after TRACELIGHT_SHUTDOWN_TIMEOUT_MS,
# 10 s: `docker stop` waits as long, so give it `--stop-timeout` a little longer, or set the variable lower).
STOPSIGNAL SIGTERM
# Node's young generation sized for ingest: docs/operations.md ("Memory").
CMD ["node", "--max-semi-space-size=64", "dist/main.js"]
