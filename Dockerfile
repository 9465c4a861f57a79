# The portal as a container on one machine (docs/DEPLOYMENT.md, "One machine"). The database is a
# file on the volume /data; run one container per volume, or several with MIGRATE_ON_START as it
# is (decision 043: several processes on one file take turns; one machine only). APP_SECRET must be
# in portal.env (the image's files are not the place for a generated key).
#   docker build -t portal .
#   docker run -p 8000:8000 -v portal-data:/data --env-file portal.env portal
FROM denoland/deno:2.9.6

WORKDIR /app
# Dependencies first, so that a change of code reuses this layer.
COPY deno.json deno.lock ./
RUN deno install --frozen
COPY . .
RUN deno task build && deno cache main.ts deploy.ts scripts/db-migrate.ts \
    && mkdir -p /data && chown deno:deno /data

ENV NODE_ENV=production \
    DATABASE_URL=file:/data/portal.db \
    PORT=8000
VOLUME /data
EXPOSE 8000
USER deno
CMD ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write=/data", "--allow-ffi", "--allow-sys", "main.ts"]
