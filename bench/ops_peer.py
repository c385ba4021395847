#!/usr/bin/env python3
"""boto3 doing storebench ops' S3 calls with THREADS in flight for SECONDS: exists (HEAD of the thread's
object), list (ListObjectsV2 of the prefix), single_read (a ranged 4 KiB GET at a random offset of one
object). Prints one JSON line: ops, seconds, ops/s. Used by bench/ops.sh.

usage: ops_peer.py exists|list|single_read ENDPOINT BUCKET PREFIX THREADS SECONDS"""
import json
import os
import random
import sys
import threading
import time

import boto3

op, endpoint, bucket, prefix, threads, seconds = sys.argv[1:7]
threads, seconds = int(threads), float(seconds)
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
size = 64 << 20
for k in range(threads):
    s3.put_object(Bucket=bucket, Key=f"{prefix}/test_{k}", Body=b"x" * 1024)
if op == "single_read":
    s3.put_object(Bucket=bucket, Key=f"{prefix}/big", Body=os.urandom(size))
counts = [0] * threads


def worker(k):
    c = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    rng = random.Random(k)
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        if op == "exists":
            c.head_object(Bucket=bucket, Key=f"{prefix}/test_{k}")
        elif op == "list":
            c.list_objects_v2(Bucket=bucket, Prefix=f"{prefix}/", Delimiter="/")
        else:
            at = rng.randrange(size // 4096) * 4096
            c.get_object(Bucket=bucket, Key=f"{prefix}/big", Range=f"bytes={at}-{at + 4095}")["Body"].read()
        n += 1
    counts[k] = n


t0 = time.perf_counter()
ts = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
for t in ts:
    t.start()
for t in ts:
    t.join()
wall = time.perf_counter() - t0
for k in range(threads):
    s3.delete_object(Bucket=bucket, Key=f"{prefix}/test_{k}")
if op == "single_read":
    s3.delete_object(Bucket=bucket, Key=f"{prefix}/big")
print(json.dumps({"ops": sum(counts), "seconds": wall, "ops_per_s": sum(counts) / wall}))
