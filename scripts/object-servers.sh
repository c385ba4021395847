#!/usr/bin/env bash
# Starts real object-store servers on 127.0.0.1 for the tests and prints the environment the tests read:
#   S3     versitygw (posix backend), bucket storebench-test          STOREBENCH_S3_*
#   Azure  Azurite (Microsoft's emulator), container storebench-test  STOREBENCH_AZ_*
#   GCS    fake-gcs-server, bucket storebench-test, seeded objects    STOREBENCH_GCS_*
#   HTTP   http-server (Node), a directory of seeded objects          STOREBENCH_HTTP_*
#   Slow   toxiproxy in front of the S3 server, 25 ms each way           STOREBENCH_S3_SLOW_ENDPOINT
#   MinIO  only with `start-minio` (for bench/): bucket sbbench        STOREBENCH_MINIO_*
# Binaries are built or installed once into $STOREBENCH_CACHE (default ~/.cache/storebench) and reused.
#   eval "$(scripts/object-servers.sh start)"  ...  scripts/object-servers.sh stop "$STOREBENCH_SERVERS_ROOT"
set -euo pipefail
CACHE="${STOREBENCH_CACHE:-$HOME/.cache/storebench}"
BIN="$CACHE/bin"
NPM="$CACHE/npm"
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/lib.sh
. "$HERE/lib.sh"
VERSITYGW_VERSION=v1.8.0
FAKE_GCS_VERSION=v1.56.1
TOXIPROXY_VERSION=v2.5.0
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
# Azurite's development account and key are public, documented by Microsoft.
AZ_ACCOUNT=devstoreaccount1
AZ_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

log() { echo "$*" >&2; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# wait_port PORT PID LOG: until 127.0.0.1:PORT accepts, or the server died.
wait_port() {
  for _ in $(seq 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    kill -0 "$2" 2>/dev/null || { log "server on port $1 exited:"; cat "$3" >&2; exit 1; }
    sleep 0.1
  done
  log "server on port $1 did not start in 30 s:"
  cat "$3" >&2
  exit 1
}

go_install() { # NAME MODULE@VERSION
  if [ ! -x "$BIN/$1" ]; then
    command -v go >/dev/null || { log "go is needed to build $1"; exit 1; }
    log "building $1 into $BIN (once; a few minutes)"
    (cd "${TMPDIR:-/tmp}" && GOBIN="$BIN" GOFLAGS=-mod=mod go install "$2" >&2)
  fi
}

toxiproxy_install() {
  if [ ! -x "$BIN/toxiproxy-server" ]; then
    command -v go >/dev/null || { log "go is needed to build toxiproxy"; exit 1; }
    log "building toxiproxy into $BIN (once)"
    local tmp
    tmp=$(mktemp -d)
    (cd "${TMPDIR:-/tmp}" && GOBIN="$tmp" go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION" >&2)
    mv "$tmp/server" "$BIN/toxiproxy-server"
    rmdir "$tmp"
  fi
}

npm_install() {
  if [ ! -x "$NPM/node_modules/.bin/azurite-blob" ] || [ ! -x "$NPM/node_modules/.bin/http-server" ]; then
    command -v npm >/dev/null || { log "npm is needed to install Azurite and http-server"; exit 1; }
    log "installing azurite and http-server into $NPM (once)"
    mkdir -p "$NPM"
    npm install --silent --no-audit --no-fund --prefix "$NPM" azurite@3.35.0 http-server@14.1.1 >&2
  fi
}

# Seeded objects: the GCS emulator accepts no XML-API uploads and the web server none at all, so what
# they serve is written here, with content the tests can check (bytes i % 251).
seed() {
  python3 - "$1" <<'EOF'
import sys, os
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
for name, size in (("seed-5m.bin", 5 * 1024 * 1024 + 123), ("seed-1k.bin", 1024)):
    with open(os.path.join(d, name), "wb") as f:
        f.write(bytes(i % 251 for i in range(size)))
EOF
}

case "${1:-start}" in
start)
  mkdir -p "$BIN"
  go_install versitygw "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
  go_install fake-gcs-server "github.com/fsouza/fake-gcs-server@$FAKE_GCS_VERSION"
  toxiproxy_install
  npm_install
  ROOT=$(mktemp -d "${TMPDIR:-/tmp}/storebench-servers.XXXXXX")
  echo "export STOREBENCH_SERVERS_ROOT=$ROOT"

  # S3: versitygw.
  mkdir -p "$ROOT/s3/storebench-test"
  PORT=$(free_port)
  SECRET="sbSecret-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
  ROOT_ACCESS_KEY_ID=storebenchtest ROOT_SECRET_ACCESS_KEY=$SECRET \
    "$BIN/versitygw" --port "127.0.0.1:$PORT" posix "$ROOT/s3" >"$ROOT/versitygw.log" 2>&1 &
  echo $! >"$ROOT/pids"
  wait_port "$PORT" $! "$ROOT/versitygw.log"
  S3_PORT=$PORT
  echo "export STOREBENCH_S3_ENDPOINT=http://127.0.0.1:$PORT STOREBENCH_S3_BUCKET=storebench-test"
  echo "export STOREBENCH_S3_ACCESS_KEY=storebenchtest STOREBENCH_S3_SECRET_KEY=$SECRET"

  # A slow link to the same S3 server: toxiproxy adding 25 ms upstream and 25 ms downstream.
  PORT=$(free_port)
  "$BIN/toxiproxy-server" -host 127.0.0.1 -port "$PORT" >"$ROOT/toxiproxy.log" 2>&1 &
  echo $! >>"$ROOT/pids"
  wait_port "$PORT" $! "$ROOT/toxiproxy.log"
  SLOW=$(free_port)
  python3 - "$PORT" "$SLOW" "$S3_PORT" <<'EOF'
import json, sys, urllib.request
api, listen, upstream = sys.argv[1:4]
def post(path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{api}{path}", json.dumps(body).encode(), {"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()
post("/proxies", {"name": "s3slow", "listen": f"127.0.0.1:{listen}", "upstream": f"127.0.0.1:{upstream}", "enabled": True})
for stream in ("upstream", "downstream"):
    post("/proxies/s3slow/toxics", {"name": f"latency_{stream}", "type": "latency", "stream": stream, "attributes": {"latency": 25}})
EOF
  echo "export STOREBENCH_S3_SLOW_ENDPOINT=http://127.0.0.1:$SLOW"

  # Azure: Azurite's blob service, then a container made with a Shared Key request.
  PORT=$(free_port)
  "$NPM/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$PORT" --location "$ROOT/azurite" \
    --silent --disableTelemetry --skipApiVersionCheck >"$ROOT/azurite.log" 2>&1 &
  echo $! >>"$ROOT/pids"
  wait_port "$PORT" $! "$ROOT/azurite.log"
  node "$HERE/azure-container.js" "http://127.0.0.1:$PORT/$AZ_ACCOUNT" "$AZ_ACCOUNT" "$AZ_KEY" storebench-test >&2
  echo "export STOREBENCH_AZ_ENDPOINT=http://127.0.0.1:$PORT/$AZ_ACCOUNT STOREBENCH_AZ_CONTAINER=storebench-test"

  # GCS: fake-gcs-server in memory, with the seeded objects in bucket storebench-test.
  seed "$ROOT/gcs-seed/storebench-test"
  PORT=$(free_port)
  "$BIN/fake-gcs-server" -scheme http -host 127.0.0.1 -port "$PORT" -public-host "127.0.0.1:$PORT" \
    -backend memory -data "$ROOT/gcs-seed" -log-level warn >"$ROOT/fake-gcs.log" 2>&1 &
  echo $! >>"$ROOT/pids"
  wait_port "$PORT" $! "$ROOT/fake-gcs.log"
  echo "export STOREBENCH_GCS_ENDPOINT=http://127.0.0.1:$PORT STOREBENCH_GCS_BUCKET=storebench-test"

  # HTTP: a static web server with range support over the seeded objects.
  seed "$ROOT/www"
  PORT=$(free_port)
  "$NPM/node_modules/.bin/http-server" "$ROOT/www" -a 127.0.0.1 -p "$PORT" -s -c-1 >"$ROOT/http.log" 2>&1 &
  echo $! >>"$ROOT/pids"
  wait_port "$PORT" $! "$ROOT/http.log"
  echo "export STOREBENCH_HTTP_URL=http://127.0.0.1:$PORT"
  ;;
start-minio)
  go_install minio "github.com/minio/minio@$MINIO_VERSION"
  ROOT=$(mktemp -d "${TMPDIR:-/tmp}/storebench-minio.XXXXXX")
  mkdir -p "$ROOT/data/sbbench"
  PORT=$(free_port)
  SECRET="sbSecret-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
  MINIO_ROOT_USER=storebenchbench MINIO_ROOT_PASSWORD=$SECRET MINIO_BROWSER=off \
    "$BIN/minio" server --quiet --address "127.0.0.1:$PORT" "$ROOT/data" >"$ROOT/minio.log" 2>&1 &
  echo $! >"$ROOT/pids"
  wait_port "$PORT" $! "$ROOT/minio.log"
  echo "export STOREBENCH_MINIO_ROOT=$ROOT STOREBENCH_MINIO_ENDPOINT=http://127.0.0.1:$PORT"
  echo "export STOREBENCH_MINIO_BUCKET=sbbench STOREBENCH_MINIO_ACCESS_KEY=storebenchbench STOREBENCH_MINIO_SECRET_KEY=$SECRET"
  ;;
stop)
  ROOT=${2:?usage: object-servers.sh stop ROOT}
  stop_pids "$ROOT/pids"
  case "$ROOT" in */storebench-servers.* | */storebench-minio.*) rm -rf "$ROOT" ;; esac
  ;;
*)
  log "usage: object-servers.sh start | start-minio | stop ROOT"
  exit 2
  ;;
esac
