#!/usr/bin/env python3
"""PUT or GET objects as storebench ops does, through boto3's CRT transfer manager (awscrt, AWS's
native S3 client), plain boto3, or (GET only) a bare socket: CONCURRENCY workers, worker k on its own
key PREFIX/test_k, each moving it PER times (PUT overwrites it; GET reads it whole). Prints one JSON line with bytes, wall
seconds and the process's CPU seconds over the timed part. Used by bench/s3.sh, side by side with
storebench on the same server.

Like storebench (bench/s3.sh states it in its output): a PUT above PART bytes is a multipart upload of
PART-byte parts with ACTIVE parts of one object in flight; a GET's body is read and dropped, with
CONCURRENCY requests in flight (the CRT reads an object in ranged GETs of PART bytes, its design; the
others in one GET); the data is random (incompressible).

The bare socket is no client users would pick but the floor under every client: what the kernel charges
a process that reads the bodies on this machine. Each worker keeps one connection, sends one GET of the
whole object per read with a URL presigned once (no signing per request, no HEAD, no Range header, no
HTTP library; a new connection only where the server closes it after an answer) and receives the body
with recv_into into one reused 1 MiB buffer.

usage: s3_peer.py crt|boto3|socket put|get ENDPOINT BUCKET PREFIX SIZE PER CONCURRENCY PART ACTIVE
Credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY."""
import io
import json
import os
import resource
import sys
import threading
import time

import boto3
import botocore.config
import botocore.session
from boto3.s3.transfer import TransferConfig

client_kind, op, endpoint, bucket, prefix = sys.argv[1:6]
size, per, conc, part, active = map(int, sys.argv[6:11])
key_id, secret = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]
data = os.urandom(size)
keys = [f"{prefix}/test_{k}" for k in range(conc)]


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
    import awscrt.io
    import awscrt.s3
    from s3transfer.crt import BotocoreCRTRequestSerializer, CRTTransferManager

    def crt_manager(part_size, connections):
        elg = awscrt.io.EventLoopGroup(2)
        client = awscrt.s3.S3Client(
            bootstrap=awscrt.io.ClientBootstrap(elg, awscrt.io.DefaultHostResolver(elg)),
            region="us-east-1",
            credential_provider=awscrt.auth.AwsCredentialsProvider.new_static(key_id, secret),
            tls_mode=awscrt.s3.S3RequestTlsMode.DISABLED,
            part_size=part_size,
            multipart_upload_threshold=part_size,
            max_active_connections_override=connections,
        )
        serializer = BotocoreCRTRequestSerializer(
            botocore.session.Session(), client_kwargs={"endpoint_url": endpoint, "region_name": "us-east-1"}
        )
        return CRTTransferManager(client, serializer)

    if op == "put":
        # ACTIVE parts of each of CONCURRENCY objects: storebench's queue depth.
        tm = crt_manager(part, conc * active)
    else:
        # Its own way of reading an object (ranged GETs of PART bytes), CONCURRENCY in flight in all.
        tm = crt_manager(part, conc)

    def put(k):
        tm.upload(io.BytesIO(data), bucket, k).result()

    def get(k):
        tm.download(bucket, k, Sink()).result()

elif client_kind == "socket":
    import socket
    import urllib.parse

    if op != "get":
        sys.exit("s3_peer.py: the bare socket only reads (GET)")
    where = urllib.parse.urlparse(endpoint)
    presigner = boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1", config=botocore.config.Config(signature_version="s3v4")
    )
    requests = {}
    for k in keys:
        url = urllib.parse.urlparse(
            presigner.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": k}, ExpiresIn=86400)
        )
        requests[k] = f"GET {url.path}?{url.query} HTTP/1.1\r\nHost: {where.netloc}\r\n\r\n".encode()
    local = threading.local()

    def get(k):
        if getattr(local, "sock", None) is None:
            local.sock = socket.create_connection((where.hostname, where.port))
            local.buf = memoryview(bytearray(1 << 20))
        sock, buf = local.sock, local.buf
        sock.sendall(requests[k])
        head = b""
        while b"\r\n\r\n" not in head:
            more = sock.recv(65536)
            if not more:
                sys.exit("s3_peer.py: the server closed the connection before its answer")
            head += more
        lines, rest = head.split(b"\r\n\r\n", 1)
        lines = lines.split(b"\r\n")
        if not lines[0].startswith(b"HTTP/1.1 200"):
            sys.exit(f"s3_peer.py: GET {k} answered {lines[0].decode(errors='replace')}")
        fields = {n.strip().lower(): v.strip() for n, _, v in (l.partition(b":") for l in lines[1:])}
        left = int(fields[b"content-length"]) - len(rest)
        while left > 0:
            n = sock.recv_into(buf, min(left, len(buf)))
            if n == 0:
                sys.exit(f"s3_peer.py: the body of {k} ended {left} bytes short")
            left -= n
        if fields.get(b"connection", b"").lower() == b"close":
            # The server ends the connection after this answer (versitygw does after every answer).
            sock.close()
            local.sock = None

else:
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    config = TransferConfig(multipart_threshold=part, multipart_chunksize=part, max_concurrency=active)

    def put(k):
        s3.upload_fileobj(io.BytesIO(data), bucket, k, Config=config)

    def get(k):
        body = s3.get_object(Bucket=bucket, Key=k)["Body"]
        while body.read(1 << 20):
            pass


if op == "get":
    # The objects to read, written first and not timed.
    for k in keys:
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").put_object(Bucket=bucket, Key=k, Body=data)
work = put if op == "put" else get


failures = []


def worker(k):
    # A failure in a thread would end only that thread and leave the count of bytes wrong: keep it.
    try:
        for _ in range(per):
            work(k)
    except BaseException as e:  # noqa: B036 (SystemExit from the socket reader included)
        failures.append(f"{k}: {e}")


r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
threads = [threading.Thread(target=worker, args=(k,)) for k in keys]
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
# After the keys are gone: a failed case leaves nothing behind either.
if failures:
    sys.exit(f"s3_peer.py {client_kind} {op} failed: {failures[0]}")
print(json.dumps({"bytes": size * per * conc, "wall_s": wall, "cpu_s": cpu}))
