#!/usr/bin/env bash
# storebench's test command: everything CI runs. It installs and starts what the tests need by itself.
# Downloads and builds are cached outside the repository (STOREBENCH_CACHE, default ~/.cache/storebench),
# so a second run is fast.
set -euo pipefail
cd "$(dirname "$0")/.."

export STOREBENCH_CACHE="${STOREBENCH_CACHE:-$HOME/.cache/storebench}"
mkdir -p "$STOREBENCH_CACHE"

step() { printf '\n== %s\n' "$*"; }

if rustup component list --installed 2>/dev/null | grep -q '^rustfmt'; then
  step "cargo fmt --check"
  cargo fmt --check
else
  echo "rustfmt is not installed: format check skipped"
fi
if rustup component list --installed 2>/dev/null | grep -q '^clippy'; then
  step "cargo clippy -D warnings"
  cargo clippy --all-targets -- -D warnings
else
  echo "clippy is not installed: lint skipped"
fi

step "start the object-store servers on 127.0.0.1 (versitygw, Azurite, fake-gcs-server, http-server)"
eval "$(scripts/object-servers.sh start)"
trap 'scripts/object-servers.sh stop "$STOREBENCH_SERVERS_ROOT"' EXIT
export STOREBENCH_REQUIRE_S3=1
echo "S3 at $STOREBENCH_S3_ENDPOINT, Azure at $STOREBENCH_AZ_ENDPOINT, GCS at $STOREBENCH_GCS_ENDPOINT, HTTP at $STOREBENCH_HTTP_URL"

step "cargo test"
cargo test --all-targets
