#!/usr/bin/env bash
# A real HDFS on 127.0.0.1 for the tests and benches, without Docker: Hadoop's MiniDFSCluster (NameNode
# and DataNodes in one JVM) from Maven Central's hadoop-minicluster, driven by scripts/hdfs/HdfsCluster.java.
# The jars (and TestDFSIO's test jar, for bench/) are fetched once by Maven into $STOREBENCH_CACHE
# (default ~/.cache/storebench)/hadoop-VERSION and reused.
#   scripts/hdfs-cluster.sh prepare          fetch and compile; prints STOREBENCH_HDFS_CLASSPATH
#   eval "$(scripts/hdfs-cluster.sh start)"  a 1-DataNode and a 3-DataNode cluster:
#                                            STOREBENCH_HDFS_URL, STOREBENCH_HDFS3_URL, ..._CONF files
#   scripts/hdfs-cluster.sh stop "$STOREBENCH_HDFS_ROOT"
set -euo pipefail
CACHE="${STOREBENCH_CACHE:-$HOME/.cache/storebench}"
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/lib.sh
. "$HERE/lib.sh"
HADOOP_VERSION=3.4.1
HOME_DIR="$CACHE/hadoop-$HADOOP_VERSION"

log() { echo "$*" >&2; }

prepare() {
  command -v java >/dev/null || { log "java is needed for the HDFS mini-cluster"; exit 1; }
  local stamp
  stamp=$(cat "$HERE/hdfs/pom.xml" "$HERE/hdfs/HdfsCluster.java" | sha256sum | cut -c1-16)
  if [ ! -f "$HOME_DIR/ready-$stamp" ]; then
    # A JRE has no javac, and Debian's maven needs only a JRE: install a JDK (and maven) when missing.
    local need=""
    command -v javac >/dev/null || need="default-jdk-headless"
    command -v mvn >/dev/null || need="$need maven"
    if [ -n "$need" ]; then
      local sudo=""
      [ "$(id -u)" = 0 ] || sudo="sudo"
      log "installing $need (Debian packages, once)"
      # shellcheck disable=SC2086
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $need >&2 \
        || { $sudo apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $need >&2; } \
        || { log "cannot install $need: javac and mvn are needed for the HDFS mini-cluster"; exit 1; }
    fi
    log "fetching the Hadoop $HADOOP_VERSION mini-cluster jars into $HOME_DIR (once; about a minute)"
    rm -rf "$HOME_DIR/lib" "$HOME_DIR/classes" "$HOME_DIR"/ready-*
    mkdir -p "$HOME_DIR/classes"
    (cd "$HERE/hdfs" && mvn -q -B dependency:copy-dependencies -DoutputDirectory="$HOME_DIR/lib" >&2)
    javac -nowarn -cp "$HOME_DIR/lib/*" -d "$HOME_DIR/classes" "$HERE/hdfs/HdfsCluster.java" >&2
    touch "$HOME_DIR/ready-$stamp"
  fi
  CP="$HOME_DIR/lib/*:$HOME_DIR/classes"
}

# start_one ROOT NAME DATANODES: starts a cluster, waits for its configuration file, prints its URL.
start_one() {
  local root=$1 name=$2 dns=$3
  mkdir -p "$root/$name"
  java -Xmx1g -Dlog4j.configuration="file:$HERE/hdfs/log4j.properties" -cp "$CP" HdfsCluster \
    --dir "$root/$name/data" --datanodes "$dns" --conf-out "$root/$name/core-site.xml" \
    </dev/null >"$root/$name/out.log" 2>"$root/$name/err.log" &
  local pid=$!
  echo $pid >>"$root/pids"
  for _ in $(seq 600); do
    [ -f "$root/$name/core-site.xml" ] && break
    kill -0 $pid 2>/dev/null || { log "the HDFS cluster $name exited:"; tail -20 "$root/$name/err.log" >&2; exit 1; }
    sleep 0.1
  done
  [ -f "$root/$name/core-site.xml" ] || { log "the HDFS cluster $name did not start in 60 s"; exit 1; }
  sed -n 's/^ready //p' "$root/$name/out.log"
}

case "${1:-start}" in
prepare)
  prepare
  echo "export STOREBENCH_HDFS_CLASSPATH='$CP' STOREBENCH_HDFS_LOG4J=$HERE/hdfs/log4j.properties"
  ;;
start)
  prepare
  ROOT=$(mktemp -d "${TMPDIR:-/tmp}/storebench-hdfs.XXXXXX")
  echo "export STOREBENCH_HDFS_ROOT=$ROOT"
  # A cluster that failed to start takes the other one down with it.
  trap 'rc=$?; [ $rc = 0 ] || "$0" stop "$ROOT"; exit $rc' EXIT
  echo "export STOREBENCH_HDFS_CLASSPATH='$CP' STOREBENCH_HDFS_LOG4J=$HERE/hdfs/log4j.properties"
  # Both clusters start side by side.
  start_one "$ROOT" one 1 >"$ROOT/one.url" &
  a=$!
  start_one "$ROOT" three 3 >"$ROOT/three.url" &
  b=$!
  wait $a
  wait $b
  echo "export STOREBENCH_HDFS_URL=$(cat "$ROOT/one.url") STOREBENCH_HDFS_CONF=$ROOT/one/core-site.xml"
  echo "export STOREBENCH_HDFS3_URL=$(cat "$ROOT/three.url") STOREBENCH_HDFS3_CONF=$ROOT/three/core-site.xml"
  ;;
stop)
  ROOT=${2:?usage: hdfs-cluster.sh stop ROOT}
  stop_pids "$ROOT/pids"
  case "$ROOT" in */storebench-hdfs.*) rm -rf "$ROOT" ;; esac
  ;;
*)
  log "usage: hdfs-cluster.sh prepare | start | stop ROOT"
  exit 2
  ;;
esac
