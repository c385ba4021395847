# Sourced by the bench scripts: start_s3 minio|versitygw starts that server on 127.0.0.1 and sets EP,
# BUCKET and the AWS credentials for it; stop_servers (on EXIT) stops every server started.
ROOTS=()
start_s3() {
  if [ "$1" = minio ]; then
    eval "$(scripts/object-servers.sh start-minio)"
    ROOTS+=("$STOREBENCH_MINIO_ROOT")
    EP=$STOREBENCH_MINIO_ENDPOINT BUCKET=$STOREBENCH_MINIO_BUCKET
    export AWS_ACCESS_KEY_ID=$STOREBENCH_MINIO_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$STOREBENCH_MINIO_SECRET_KEY
  else
    eval "$(scripts/object-servers.sh start)"
    ROOTS+=("$STOREBENCH_SERVERS_ROOT")
    EP=$STOREBENCH_S3_ENDPOINT BUCKET=$STOREBENCH_S3_BUCKET
    export AWS_ACCESS_KEY_ID=$STOREBENCH_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$STOREBENCH_S3_SECRET_KEY
  fi
}
stop_servers() {
  for r in "${ROOTS[@]}"; do scripts/object-servers.sh stop "$r" >/dev/null 2>&1 || true; done
}
