#!/usr/bin/env bash
# Starts a real S3 server (versitygw, posix backend) on 127.0.0.1 for the tests, with a bucket, and
# prints the environment the tests read. The binary is built once and cached outside the repository.
#   eval "$(scripts/s3-server.sh start)"   ...   scripts/s3-server.sh stop "$STOREBENCH_S3_PID"
set -euo pipefail
CACHE="${STOREBENCH_CACHE:-$HOME/.cache/storebench}"
BIN="$CACHE/bin/versitygw"
VERSION=v1.8.0

case "${1:-start}" in
start)
  if [ ! -x "$BIN" ]; then
    command -v go >/dev/null || { echo "go is needed to build versitygw" >&2; exit 1; }
    echo "building versitygw $VERSION into $CACHE/bin (once; about 3 minutes)" >&2
    GOBIN="$CACHE/bin" GOFLAGS=-mod=mod go install "github.com/versity/versitygw/cmd/versitygw@$VERSION" >&2
  fi
  ROOT=$(mktemp -d "${TMPDIR:-/tmp}/storebench-s3.XXXXXX")
  mkdir -p "$ROOT/data/storebench-test"
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  ACCESS=storebenchtest
  SECRET="sbSecret-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
  ROOT_ACCESS_KEY_ID=$ACCESS ROOT_SECRET_ACCESS_KEY=$SECRET \
    "$BIN" --port "127.0.0.1:$PORT" posix "$ROOT/data" >"$ROOT/server.log" 2>&1 &
  PID=$!
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
    kill -0 "$PID" 2>/dev/null || { cat "$ROOT/server.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "export STOREBENCH_S3_PID=$PID STOREBENCH_S3_ROOT=$ROOT"
  echo "export STOREBENCH_S3_ENDPOINT=http://127.0.0.1:$PORT STOREBENCH_S3_BUCKET=storebench-test"
  echo "export STOREBENCH_S3_ACCESS_KEY=$ACCESS STOREBENCH_S3_SECRET_KEY=$SECRET"
  ;;
stop)
  PID=${2:?pid}
  kill "$PID" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$PID" 2>/dev/null || true
  [ -n "${3:-}" ] && rm -rf "$3"
  ;;
esac
