#!/usr/bin/env bash
# Install (when missing) and start the real servers the test suite runs against:
# PostgreSQL and Redis on loopback, plus Debian's Chromium for the browser tests,
# Caddy for the TLS proxy tests and docker-compose to check the compose file.
# Idempotent: a second run finds everything up and only checks it.
set -euo pipefail

PG_PORT="${REFIT_PG_PORT:-5432}"
REDIS_PORT="${REFIT_REDIS_PORT:-6390}"
VAR_DIR="${REFIT_VAR_DIR:-$(pwd)/var}"
mkdir -p "$VAR_DIR"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v pg_ctlcluster >/dev/null 2>&1 && ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# Checks docker-compose.yml (`config`); no container runs here.
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
if [ ${#missing[@]} -gt 0 ]; then
  echo "services: installing ${missing[*]} (apt)"
  as_root apt-get update -q >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" postgresql-client fonts-liberation >/dev/null
fi

# --- PostgreSQL: Debian's cluster tools run the server as the postgres user --------
PG_VERSION=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -q "^$PG_VERSION main$"; then
  as_root pg_createcluster "$PG_VERSION" main -p "$PG_PORT" >/dev/null
fi
if ! pg_lsclusters -h | awk -v v="$PG_VERSION" '$1==v && $2=="main" {print $4}' | grep -q online; then
  as_root pg_ctlcluster "$PG_VERSION" main start
fi
for _ in $(seq 1 30); do
  pg_isready -q -h 127.0.0.1 -p "$PG_PORT" && break
  sleep 0.5
done
pg_isready -h 127.0.0.1 -p "$PG_PORT" >/dev/null
psql_admin() { as_root su postgres -c "psql -p $PG_PORT -v ON_ERROR_STOP=1 -qtA -c \"$1\""; }
# fsync: make test turns it off (REFIT_PG_FSYNC=off).  The suite's data is thrown away,
# and a crashed PostgreSQL still recovers every commit (its WAL is in the OS's cache);
# only a crash of the machine itself could lose one.  Each commit then costs ~0.3 ms
# instead of ~3.6 ms on the development machine's disk.  make bench keeps it on, as a
# production server runs.
PG_FSYNC="${REFIT_PG_FSYNC:-on}"
if [ "$(psql_admin "SHOW fsync")" != "$PG_FSYNC" ]; then
  psql_admin "ALTER SYSTEM SET fsync = $PG_FSYNC" && psql_admin "SELECT pg_reload_conf()" >/dev/null
fi
if [ "$(psql_admin "SELECT 1 FROM pg_roles WHERE rolname='refit'")" != "1" ]; then
  psql_admin "CREATE ROLE refit LOGIN CREATEDB PASSWORD 'refit'"
fi
if [ "$(psql_admin "SELECT 1 FROM pg_database WHERE datname='refit'")" != "1" ]; then
  psql_admin "CREATE DATABASE refit OWNER refit"
fi

# --- Redis on its own loopback port, nothing persisted ---------------------------
if ! redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1; then
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --daemonize yes --save '' \
    --appendonly no --dir "$VAR_DIR" --logfile "$VAR_DIR/redis.log"
  for _ in $(seq 1 30); do
    redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1 && break
    sleep 0.2
  done
fi
redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null
# --- Caddy (the TLS proxy test): Debian's binary, unpacked under var/ -------------
# Not installed as a service: nothing listens until a test starts it on free ports.
CADDY="$VAR_DIR/tools/caddy"
if ! command -v caddy >/dev/null 2>&1 && [ ! -x "$CADDY" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -q caddy >/dev/null 2>&1 && dpkg-deb -x caddy_*.deb root) \
    && mkdir -p "$VAR_DIR/tools" && cp "$tmp/root/usr/bin/caddy" "$CADDY" \
    || echo "services: caddy unavailable; the TLS proxy test will be skipped"
  rm -rf "$tmp"
fi

echo "services: PostgreSQL $PG_VERSION on 127.0.0.1:$PG_PORT (fsync $PG_FSYNC), Redis on 127.0.0.1:$REDIS_PORT, $(/usr/bin/chromium --version 2>/dev/null)"
