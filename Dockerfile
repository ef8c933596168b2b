# The one image every role and the operator run: `errata serve ingest|mcp|dispatcher`,
# `errata migrate`, `errata operator` (the Errata resource and the Helm chart pass the command).
# Built in two stages: the first installs everything and bundles dist/; the second keeps only the
# production dependencies, and runs as the unprivileged `node` user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install with the lock, not npm ci: the lock cannot name chdb's optional engine packages for
# other platforms (the registry serves only this one), so npm ci refuses it; the versions are
# still the locked ones.
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY bin ./bin
COPY services ./services
COPY operator ./operator
# The shipped Prometheus rules: the build copies them into dist/ for the operator's PrometheusRule.
COPY charts/errata/monitoring/errata-rules.yaml ./charts/errata/monitoring/errata-rules.yaml
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production MALLOC_ARENA_MAX=2 ERRATA_HOST=0.0.0.0 ERRATA_PORT=8000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY bin ./bin
COPY --from=build /app/dist ./dist
# Numeric, so that Kubernetes can verify runAsNonRoot (the `node` user of the base image).
USER 1000:1000
EXPOSE 8000
ENTRYPOINT ["node", "/app/bin/errata.js"]
CMD ["--help"]
