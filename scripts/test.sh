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
stop_all() {
  scripts/object-servers.sh stop "$STOREBENCH_SERVERS_ROOT"
  [ -z "${STOREBENCH_HDFS_ROOT:-}" ] || scripts/hdfs-cluster.sh stop "$STOREBENCH_HDFS_ROOT"
}
trap stop_all EXIT
echo "S3 at $STOREBENCH_S3_ENDPOINT, Azure at $STOREBENCH_AZ_ENDPOINT, GCS at $STOREBENCH_GCS_ENDPOINT, HTTP at $STOREBENCH_HTTP_URL"

step "start two HDFS mini-clusters on 127.0.0.1 (1 and 3 DataNodes; Hadoop jars via Maven)"
eval "$(scripts/hdfs-cluster.sh start)"
echo "HDFS at $STOREBENCH_HDFS_URL (1 DataNode) and $STOREBENCH_HDFS3_URL (3 DataNodes)"

step "Open MPI for the distributed tests (Debian packages, once)"
if ! command -v mpirun >/dev/null || ! [ -e /usr/include/x86_64-linux-gnu/mpi/mpi.h -o -e /usr/include/mpi.h ] \
  || ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q openmpi-bin libopenmpi-dev libclang-dev >/dev/null \
    || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q openmpi-bin libopenmpi-dev libclang-dev >/dev/null; }
fi
mpirun --version | head -1

step "Chromium for the HTML report's rendering test (Debian package, once)"
if ! command -v chromium >/dev/null; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q chromium >/dev/null \
    || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q chromium >/dev/null; }
fi
chromium --version | head -1
# Screenshots of each command's page go here (kept with CI's artifacts, never committed).
export STOREBENCH_ARTIFACTS="${STOREBENCH_ARTIFACTS:-$PWD/target/artifacts}"

step "cargo test (with the tests that need the servers above: --include-ignored)"
cargo test --all-targets -- --include-ignored

step "cargo test --features mpi (dfsio, bandwidth and ops on 4 ranks with mpirun)"
if rustup component list --installed 2>/dev/null | grep -q '^clippy'; then
  cargo clippy --features mpi --all-targets -- -D warnings
fi
cargo test --features mpi --test mpi -- --include-ignored
