#!/usr/bin/env bash
# Runs the S3 test suite (tests/s3.rs) against MinIO instead of versitygw, to check that storebench
# behaves the same on both. MinIO is built once into ~/.cache/storebench/bin (about 8 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/object-servers.sh start-minio)"
trap 'scripts/object-servers.sh stop "$STOREBENCH_MINIO_ROOT"' EXIT
STOREBENCH_S3_ENDPOINT=$STOREBENCH_MINIO_ENDPOINT STOREBENCH_S3_BUCKET=$STOREBENCH_MINIO_BUCKET \
  STOREBENCH_S3_ACCESS_KEY=$STOREBENCH_MINIO_ACCESS_KEY STOREBENCH_S3_SECRET_KEY=$STOREBENCH_MINIO_SECRET_KEY \
  cargo test --test s3 -- --include-ignored
