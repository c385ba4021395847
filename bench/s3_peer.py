#!/usr/bin/env python3
"""PUT or GET COUNT objects of SIZE bytes with CONCURRENCY in flight, through boto3's CRT transfer
manager (awscrt, AWS's native S3 client) or plain boto3; prints one JSON line with bytes, wall seconds
and the process's CPU seconds. Used by bench/s3.sh, side by side with storebench on the same server.

usage: s3_peer.py crt|boto3 put|get ENDPOINT BUCKET PREFIX SIZE COUNT CONCURRENCY
Credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY."""
import io
import json
import os
import resource
import sys
import threading
import time

import boto3
import botocore.session

client_kind, op, endpoint, bucket, prefix, size, count, conc = sys.argv[1:9]
size, count, conc = int(size), int(count), int(conc)
key_id, secret = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]
data = os.urandom(size)
keys = [f"{prefix}/obj_{i}" for i in range(count)]


class Sink(io.RawIOBase):
    """A writable that drops what it gets (GET bodies are counted, not kept)."""

    def writable(self):
        return True

    def write(self, b):
        return len(b)

    def seek(self, *a):
        return 0

    def tell(self):
        return 0


if client_kind == "crt":
    import awscrt.auth
    from s3transfer.crt import BotocoreCRTRequestSerializer, CRTTransferManager, create_s3_crt_client

    creds = awscrt.auth.AwsCredentialsProvider.new_static(key_id, secret)
    crt = create_s3_crt_client(
        "us-east-1", crt_credentials_provider=creds, num_threads=2, use_ssl=endpoint.startswith("https")
    )
    serializer = BotocoreCRTRequestSerializer(
        botocore.session.Session(), client_kwargs={"endpoint_url": endpoint, "region_name": "us-east-1"}
    )
    tm = CRTTransferManager(crt, serializer)

    def put(k):
        tm.upload(io.BytesIO(data), bucket, k).result()

    def get(k):
        tm.download(bucket, k, Sink()).result()

else:
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")

    def put(k):
        s3.put_object(Bucket=bucket, Key=k, Body=data)

    def get(k):
        body = s3.get_object(Bucket=bucket, Key=k)["Body"]
        while body.read(1 << 20):
            pass


work = put if op == "put" else get
if op == "get":
    # Objects to read, written first and not timed.
    for k in keys:
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").put_object(Bucket=bucket, Key=k, Body=data)

lock = threading.Lock()
todo = list(keys)


def worker():
    while True:
        with lock:
            if not todo:
                return
            k = todo.pop()
        work(k)


r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
threads = [threading.Thread(target=worker) for _ in range(conc)]
for t in threads:
    t.start()
for t in threads:
    t.join()
wall = time.perf_counter() - t0
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
s3c = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
for k in keys:
    s3c.delete_object(Bucket=bucket, Key=k)
print(json.dumps({"bytes": size * count, "wall_s": wall, "cpu_s": cpu}))
