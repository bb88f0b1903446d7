# The querytrail image. Its default command is the analyzer on 0.0.0.0:2345:
#   docker build -t querytrail . && docker run --rm -p 2345:2345 querytrail
# The web app and API (with the SPA built into the image) run from the same image with:
#   docker run -p 3000:3000 -e HOST=0.0.0.0 -e API_TOKEN=... querytrail npm run serve
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production \
    npm_config_update_notifier=false \
    SCARF_ANALYTICS=false

COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

COPY . .
RUN npx vite build

# Run as the image's unprivileged user; the analyzer needs no privileges.
RUN mkdir -p /app/.data && chown -R node:node /app/.data
USER node

ENV ANALYZER_HOST=0.0.0.0 \
    ANALYZER_PORT=2345
EXPOSE 2345 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:2345/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["npx", "tsx", "analyzer/main.ts"]
