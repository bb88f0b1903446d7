# The querytrail image. Its default command is the analyzer on 0.0.0.0:2345:
#   docker build -t querytrail . && docker run --rm -p 2345:2345 querytrail
# The web app and API (with the SPA and the server's bundle built into the image) run from the same image with:
#   docker run -p 3000:3000 -e HOST=0.0.0.0 -e API_TOKEN=... querytrail npm run serve
# docker-compose.yml runs two such servers on one PostgreSQL (DATABASE_URL, one SECRET_KEY) and the analyzer.
# Node 22: pg-boss (the job queue) declares it; querytrail also runs on Node 20.19+.
FROM node:22-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production \
    npm_config_update_notifier=false \
    SCARF_ANALYTICS=false

COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

COPY . .
# What `npm run serve` starts from, made now: the SPA, the server's bundle (no TypeScript to
# transpile at start) and the PGlite template an empty DATA_DIR is copied from (no initdb at the
# first start), readable by the `node` user the server runs as.
RUN node server/build.mjs --template && chmod -R a+rX dist/server

# The advisor's shadow PostgreSQL runs as its own system account when the process is root; the
# account exists in the image so that needs no useradd at run time.
RUN useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin querytrail-shadow

# Run as the image's unprivileged user; the analyzer needs no privileges.
# The shadow PostgreSQL (advisor/) then runs as this same `node` user: switching to
# querytrail-shadow takes root. What keeps a user's database away from node's files (DATA_DIR and
# its secret.key) is that nothing it brings runs as the shadow's superuser: queries are parsed and
# sent one statement at a time, the copied schema's functions are inert stubs with no CHECK,
# default, trigger, rule, cast or operator left, and all of it runs as a role that is no superuser
# (no COPY TO/FROM PROGRAM or files, no server files, no untrusted language). See docs/security.md,
# "Safety". Concurrent shadows: SHADOW_MAX_CONCURRENT (default 2) and SHADOW_QUEUE (default 8).
RUN mkdir -p /app/.data && chown -R node:node /app/.data
USER node

ENV ANALYZER_HOST=0.0.0.0 \
    ANALYZER_PORT=2345
EXPOSE 2345 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:2345/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["npx", "tsx", "analyzer/main.ts"]
