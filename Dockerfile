# sandbay's image: Node 24, the compiled CLI (`npm run build` → dist/), production dependencies only.
# Build: docker build -t sandbay . ; run: see deploy/ and docs/kubernetes.md.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /src/dist ./dist
COPY config ./config
USER 10001
ENTRYPOINT ["node", "dist/cli/bin.js"]
CMD ["--help"]
