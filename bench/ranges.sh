#!/usr/bin/env bash
# The GeoTrellis S3 ADR's 12 ranges (bench/seed-ranges.txt) on a 48 MiB object, every strategy, through
# a 50 ms round trip (toxiproxy in front of versitygw) and on plain loopback: each strategy's time and
# its speed against sequential. Goal: the best strategy >= 5x sequential's speed through the slow link.
#   bench/ranges.sh [WARM_PASSES]
set -euo pipefail
cd "$(dirname "$0")/.."
WARM=${1:-3}
cargo build --release --quiet
eval "$(scripts/object-servers.sh start)"
trap 'scripts/object-servers.sh stop "$STOREBENCH_SERVERS_ROOT"' EXIT
export AWS_ACCESS_KEY_ID=$STOREBENCH_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$STOREBENCH_S3_SECRET_KEY
for link in "50 ms round trip:$STOREBENCH_S3_SLOW_ENDPOINT" "loopback:$STOREBENCH_S3_ENDPOINT"; do
  echo "== ${link%%:http*}"
  target/release/storebench ranges "s3://$STOREBENCH_S3_BUCKET/ranges-bench-$$" --prepare 48m \
    --ranges bench/seed-ranges.txt --warm "$WARM" -q --endpoint "${link#*:}" | sed -n '/^Verdict/,$p'
done
