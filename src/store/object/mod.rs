//! Object stores through Apache Arrow's `object_store`: `s3://`, `gs://`, `az://` and read-only
//! `http(s)://`, one implementation of the `Store` trait for all of them (`clouds.rs` builds the client
//! each scheme needs).
//!
//! Uploads behave as Hadoop's s3a on every store: below the multipart size the object goes up in one
//! PUT inside close(); above it, a multipart upload with parts of the multipart size and at most
//! "active blocks" parts in flight, so block writes return at once until the queue is full and
//! close() completes the upload. A failed or abandoned upload is aborted. Every HTTP attempt is
//! counted, retries included (`wire.rs`).

use super::*;
use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::path::Path as ObjPath;
use object_store::{GetOptions, GetRange, MultipartUpload, ObjectStore, PutMode, PutOptions, PutPayload};
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

mod clouds;
mod profile;
pub mod wire;

pub use clouds::timeout_value;

pub use clouds::{AZURE_KEYS, COMMON_KEYS, ENV_KEYS, GCS_KEYS, S3_KEYS};

#[derive(Default)]
struct Counts {
    requests_get: AtomicU64,
    requests_head: AtomicU64,
    requests_put: AtomicU64,
    requests_list: AtomicU64,
    requests_copy: AtomicU64,
    requests_delete: AtomicU64,
    multipart_started: AtomicU64,
    multipart_parts: AtomicU64,
    multipart_completed: AtomicU64,
    multipart_aborted: AtomicU64,
    bytes_get: AtomicU64,
    bytes_put: AtomicU64,
    errors: AtomicU64,
}

/// A bucket or container of an object store, or a web server.
pub struct ObjStore {
    inner: Arc<dyn ObjectStore>,
    rt: Arc<Runtime>,
    /// "s3", "gs", "az", "http" or "https".
    scheme: &'static str,
    /// The store's name in messages ("S3", "GCS", ...).
    name: &'static str,
    bucket: String,
    endpoint: String,
    part_size: usize,
    active_blocks: usize,
    writable: bool,
    counts: Arc<Counts>,
    wire: Arc<wire::Wire>,
    key_id: String,
}

impl ObjStore {
    /// A target for `scheme://bucket/path` (`rest` is what follows `://`).
    pub fn target(scheme: &str, url: &str, rest: &str, config: &StoreConfig) -> Result<Target, String> {
        let wire = Arc::new(wire::Wire::default());
        let shown = redact_url(url);
        let (scheme, name, built) = match scheme {
            "s3" => ("s3", "S3", clouds::s3(&shown, rest, config, &wire)?),
            "gs" => ("gs", "GCS", clouds::gcs(&shown, rest, config, &wire)?),
            "az" => ("az", "Azure Blob", clouds::azure(&shown, rest, config, &wire)?),
            "http" => ("http", "HTTP", clouds::http(&shown, "http", rest, config, &wire)?),
            "https" => ("https", "HTTPS", clouds::http(&shown, "https", rest, config, &wire)?),
            other => return Err(format!("'{other}://' is not an object store scheme")),
        };
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .thread_name("storebench-io")
            .build()
            .map_err(|e| format!("cannot start the {name} client runtime: {e}"))?;
        let store = ObjStore {
            inner: built.inner,
            rt: Arc::new(rt),
            scheme,
            name,
            bucket: built.bucket,
            endpoint: crate::store::redact_url(&built.endpoint),
            part_size: built.part_size,
            active_blocks: built.active_blocks,
            writable: built.writable,
            counts: Arc::new(Counts::default()),
            wire,
            key_id: built.key_id,
        };
        Ok(Target { store: Arc::new(store), path: built.path, warnings: built.warnings })
    }

    fn key(&self, path: &str) -> Result<ObjPath, StoreError> {
        ObjPath::parse(path.trim_matches('/')).map_err(|e| StoreError::Failed {
            op: "parse",
            path: path.into(),
            detail: format!("not a valid object key: {e}"),
        })
    }

    /// The URL of a path in this bucket, for messages.
    fn display(&self, path: &str) -> String {
        format!("{}://{}/{path}", self.scheme, self.bucket)
    }

    fn object(&self, path: &str) -> Result<Object, StoreError> {
        Ok(Object {
            store: self.inner.clone(),
            rt: self.rt.clone(),
            counts: self.counts.clone(),
            key: self.key(path)?,
            path: self.display(path),
            endpoint: self.where_(),
            key_id: self.key_id.clone(),
        })
    }

    fn where_(&self) -> String {
        if self.endpoint.is_empty() {
            format!("the {} service", self.name)
        } else {
            self.endpoint.clone()
        }
    }

    fn map(&self, op: &'static str, path: &str, e: object_store::Error) -> StoreError {
        self.counts.errors.fetch_add(1, Ordering::Relaxed);
        map_err(op, &self.display(path), &self.where_(), &self.key_id, e)
    }

    fn head(&self, path: &str) -> Result<Option<u64>, StoreError> {
        let key = self.key(path)?;
        self.counts.requests_head.fetch_add(1, Ordering::Relaxed);
        match self.rt.block_on(self.inner.head(&key)) {
            Ok(m) => Ok(Some(m.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.map("stat", path, e)),
        }
    }
}

/// Server error codes that mean the credentials were refused (versitygw says XAdminUserNotFound).
const CREDENTIAL_CODES: &[&str] = &[
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "XAdminUserNotFound",
    "AccessDenied",
    "InvalidToken",
    "ExpiredToken",
];

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let from = text.find(open)? + open.len();
    let to = text[from..].find(close)? + from;
    Some(&text[from..to])
}

/// One line from an object_store error: the HTTP status and the server's Code and Message when the
/// response carried an S3 XML error, else the message with its whitespace squashed.
fn summarize(text: &str) -> String {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let status = text.split("status code: ").nth(1).and_then(|r| r.split(':').next()).map(str::trim);
    // Azure appends "RequestId:... Time:..." on lines of their own to its messages.
    let message = |m: &str| squash(m.split("RequestId:").next().unwrap_or(m));
    match (between(text, "<Code>", "</Code>"), between(text, "<Message>", "</Message>")) {
        (Some(code), msg) => format!("HTTP {} {code}: {}", status.unwrap_or("error"), message(msg.unwrap_or("")))
            .trim_end_matches(": ")
            .to_string(),
        // GCS answers in JSON: {"error":{"code":400,"message":"..."}}.
        _ => match (status, between(text, "\"message\":\"", "\"")) {
            (Some(s), Some(m)) => format!("HTTP {s}: {}", message(m)),
            _ => squash(text),
        },
    }
}

/// Folds object_store's errors into storebench's, on one line, saying which host when it cannot be
/// reached and which access key id when credentials are refused; secrets never appear.
fn map_err(op: &'static str, path: &str, endpoint: &str, key_id: &str, e: object_store::Error) -> StoreError {
    let text = crate::store::redact_text(&e.to_string());
    let endpoint = crate::store::redact_url(endpoint);
    let endpoint = endpoint.as_str();
    let refused = |detail: String| StoreError::PermissionDenied {
        op,
        path: path.into(),
        detail: format!("the server refused the credentials of access key id '{key_id}' ({detail})"),
    };
    match e {
        object_store::Error::NotFound { .. } => StoreError::NotFound { path: path.into() },
        object_store::Error::AlreadyExists { .. } => StoreError::AlreadyExists { path: path.into() },
        object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. } => {
            refused(summarize(&text))
        }
        _ if CREDENTIAL_CODES.iter().any(|c| text.contains(c)) || text.contains("403 Forbidden") => {
            refused(summarize(&text))
        }
        _ => {
            let detail = if let Some(at) = text.find("no answer from ") {
                // The answer timeout's own words, up to its closing parenthesis.
                let rest = &text[at..];
                rest[..rest.find(')').map_or(rest.len(), |i| i + 1)].to_string()
            } else if text.contains("NoSuchBucket") {
                format!("the bucket does not exist ({})", summarize(&text))
            } else if text.contains("error sending request")
                || text.contains("Connection refused")
                || text.contains("timed out")
            {
                format!("cannot reach {endpoint}: {}", summarize(&text))
            } else {
                summarize(&text)
            };
            StoreError::Failed { op, path: path.into(), detail }
        }
    }
}

/// One object and everything a stream needs to reach it and to report its errors.
struct Object {
    store: Arc<dyn ObjectStore>,
    rt: Arc<Runtime>,
    counts: Arc<Counts>,
    key: ObjPath,
    /// s3://bucket/key, for messages.
    path: String,
    endpoint: String,
    key_id: String,
}

impl Object {
    fn err(&self, op: &'static str, e: object_store::Error) -> StoreError {
        self.counts.errors.fetch_add(1, Ordering::Relaxed);
        map_err(op, &self.path, &self.endpoint, &self.key_id, e)
    }

    /// A background request that did not finish (aborted or panicked).
    fn lost(&self, op: &'static str, e: tokio::task::JoinError) -> StoreError {
        StoreError::Failed { op, path: self.path.clone(), detail: e.to_string() }
    }
}

struct ObjWrite {
    obj: Object,
    buf: Vec<u8>,
    part_size: usize,
    active_blocks: usize,
    upload: Option<Box<dyn MultipartUpload>>,
    inflight: std::collections::VecDeque<JoinHandle<(object_store::Result<()>, SubOp)>>,
    written: u64,
    parts: u64,
    part_times: Vec<SubOp>,
    /// The object must not exist when the upload completes (no --overwrite).
    create_only: bool,
}

impl ObjWrite {
    /// Sends one part; waits for the oldest part when `active_blocks` are in flight.
    fn send_part(&mut self, data: Vec<u8>) -> Result<(), StoreError> {
        if self.upload.is_none() {
            self.obj.counts.multipart_started.fetch_add(1, Ordering::Relaxed);
            let up = self
                .obj
                .rt
                .block_on(self.obj.store.put_multipart(&self.obj.key))
                .map_err(|e| self.obj.err("start multipart upload of", e))?;
            self.upload = Some(up);
        }
        while self.inflight.len() >= self.active_blocks {
            self.wait_oldest()?;
        }
        let n = data.len() as u64;
        let offset = self.parts * self.part_size as u64;
        let fut = self.upload.as_mut().map(|u| u.put_part(PutPayload::from(Bytes::from(data))));
        if let Some(fut) = fut {
            // Each part is timed from the moment it is handed to the client to its completion.
            let start = Instant::now();
            self.inflight.push_back(self.obj.rt.spawn(async move {
                let r = fut.await;
                (r, SubOp { bytes: n, offset, start, end: Instant::now() })
            }));
        }
        self.parts += 1;
        self.obj.counts.multipart_parts.fetch_add(1, Ordering::Relaxed);
        self.obj.counts.bytes_put.fetch_add(n, Ordering::Relaxed);
        Ok(())
    }

    fn wait_oldest(&mut self) -> Result<(), StoreError> {
        if let Some(h) = self.inflight.pop_front() {
            match self.obj.rt.block_on(h) {
                Ok((Ok(()), timing)) => self.part_times.push(timing),
                Ok((Err(e), _)) => return Err(self.obj.err("upload part of", e)),
                Err(e) => return Err(self.obj.lost("upload part of", e)),
            }
        }
        Ok(())
    }

    fn abort_upload(&mut self) {
        for h in self.inflight.drain(..) {
            h.abort();
        }
        if let Some(mut up) = self.upload.take() {
            self.obj.counts.multipart_aborted.fetch_add(1, Ordering::Relaxed);
            let _ = self.obj.rt.block_on(up.abort());
        }
    }
}

impl WriteStream for ObjWrite {
    fn write(&mut self, data: &[u8]) -> Result<(), StoreError> {
        let mut rest = data;
        while !rest.is_empty() {
            let room = self.part_size - self.buf.len();
            let n = room.min(rest.len());
            self.buf.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            if self.buf.len() == self.part_size {
                let part = std::mem::replace(&mut self.buf, Vec::with_capacity(self.part_size));
                if let Err(e) = self.send_part(part) {
                    self.abort_upload();
                    return Err(e);
                }
            }
        }
        self.written += data.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(()) // s3a: flush() does nothing until the part is full
    }

    fn hflush(&mut self) -> Result<(), StoreError> {
        Err(StoreError::Unsupported(format!(
            "{} cannot make data durable before close() (object stores publish an object whole): drop --hflush",
            self.obj.path
        )))
    }

    fn close(mut self: Box<Self>) -> Result<Closed, StoreError> {
        let result = (|| {
            if self.upload.is_none() {
                let data = std::mem::take(&mut self.buf);
                self.obj.counts.requests_put.fetch_add(1, Ordering::Relaxed);
                self.obj.counts.bytes_put.fetch_add(data.len() as u64, Ordering::Relaxed);
                let payload = PutPayload::from(Bytes::from(data));
                // Without --overwrite the PUT is conditional (If-None-Match: *), so an object another
                // writer created after create() checked is never replaced. Servers without conditional
                // PUTs get a plain one (create() already looked).
                let mode = if self.create_only { PutMode::Create } else { PutMode::Overwrite };
                let opts = PutOptions { mode, ..Default::default() };
                let r = match self.obj.rt.block_on(self.obj.store.put_opts(&self.obj.key, payload.clone(), opts)) {
                    Err(object_store::Error::NotImplemented) => {
                        self.obj.rt.block_on(self.obj.store.put(&self.obj.key, payload))
                    }
                    r => r,
                };
                return match r {
                    Ok(_) => Ok(()),
                    Err(object_store::Error::AlreadyExists { .. }) => Err(StoreError::Failed {
                        op: "put",
                        path: self.obj.path.clone(),
                        detail: "another writer created it during the run; storebench did not replace it".into(),
                    }),
                    Err(e) => Err(self.obj.err("put", e)),
                };
            }
            if !self.buf.is_empty() {
                let last = std::mem::take(&mut self.buf);
                self.send_part(last)?;
            }
            while !self.inflight.is_empty() {
                self.wait_oldest()?;
            }
            let mut up = self.upload.take().ok_or_else(|| StoreError::Unsupported("no upload".into()))?;
            match self.obj.rt.block_on(up.complete()) {
                Ok(_) => {
                    self.obj.counts.multipart_completed.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                }
                Err(e) => {
                    self.upload = Some(up);
                    Err(self.obj.err("complete multipart upload of", e))
                }
            }
        })();
        if let Err(e) = result {
            self.abort_upload();
            return Err(e);
        }
        let counters = vec![
            ("bytes_written".into(), self.written),
            ("multipart_parts".into(), self.parts),
            ("part_size".into(), self.part_size as u64),
            ("active_blocks".into(), self.active_blocks as u64),
        ];
        Ok(Closed { counters, parts: std::mem::take(&mut self.part_times) })
    }

    fn abort(mut self: Box<Self>) -> Result<(), StoreError> {
        self.abort_upload();
        Ok(())
    }
}

impl Drop for ObjWrite {
    fn drop(&mut self) {
        // An upload dropped without close() or abort() (a panic, an early return) is aborted too.
        self.abort_upload();
    }
}

type Fetch = JoinHandle<object_store::Result<Bytes>>;

struct ObjRead {
    obj: Object,
    prefetch: Option<Prefetch>,
    /// Block GETs under way, by offset.
    ahead: std::collections::BTreeMap<u64, Fetch>,
    /// The next offset to schedule a prefetch for.
    scheduled_to: u64,
    prefetch_hits: u64,
    len: u64,
    stream: Option<BoxStream<'static, object_store::Result<Bytes>>>,
    leftover: Bytes,
    gets: u64,
}

impl ObjRead {
    /// Starts GETs for the blocks from `offset` up to `depth` blocks past it.
    fn schedule(&mut self, offset: u64, p: Prefetch) {
        let limit = p.window_end(offset, self.len);
        let mut at = self.scheduled_to.max(offset);
        while at < limit {
            let end = (at + p.block).min(self.len);
            let (store, key) = (self.obj.store.clone(), self.obj.key.clone());
            self.gets += 1;
            self.obj.counts.requests_get.fetch_add(1, Ordering::Relaxed);
            self.ahead.insert(
                at,
                self.obj.rt.spawn(async move {
                    let opts = GetOptions { range: Some(GetRange::Bounded(at..end)), ..Default::default() };
                    store.get_opts(&key, opts).await?.bytes().await
                }),
            );
            at = end;
        }
        self.scheduled_to = at;
    }

    /// Reads a block through the prefetch queue.
    fn read_prefetched(&mut self, offset: u64, p: Prefetch, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        if self.ahead.contains_key(&offset) {
            self.prefetch_hits += 1;
        } else if offset % p.block != 0 || offset < self.scheduled_to {
            // Not a block this queue holds: drop the queue and start over from here.
            for (_, h) in std::mem::take(&mut self.ahead) {
                h.abort();
            }
            self.scheduled_to = offset;
        }
        self.schedule(offset, p);
        let Some(h) = self.ahead.remove(&offset) else {
            return Ok(ReadInfo { bytes: 0, first_byte: Instant::now() });
        };
        let data = match self.obj.rt.block_on(h) {
            Ok(Ok(b)) => b,
            Ok(Err(e)) => return Err(self.obj.err("get", e)),
            Err(e) => return Err(self.obj.lost("get", e)),
        };
        let first = Instant::now();
        let n = data.len().min(buf.len());
        buf[..n].copy_from_slice(&data[..n]);
        self.obj.counts.bytes_get.fetch_add(n as u64, Ordering::Relaxed);
        Ok(ReadInfo { bytes: n, first_byte: first })
    }

    fn start_get(
        &mut self,
        range: std::ops::Range<u64>,
    ) -> Result<BoxStream<'static, object_store::Result<Bytes>>, StoreError> {
        self.gets += 1;
        self.obj.counts.requests_get.fetch_add(1, Ordering::Relaxed);
        let opts = GetOptions { range: Some(GetRange::Bounded(range)), ..Default::default() };
        let r =
            self.obj.rt.block_on(self.obj.store.get_opts(&self.obj.key, opts)).map_err(|e| self.obj.err("get", e))?;
        Ok(r.into_stream())
    }

    /// Copies from the leftover and the stream into `buf` until it is full or the stream ends.
    fn drain(
        &mut self,
        mut stream: BoxStream<'static, object_store::Result<Bytes>>,
        buf: &mut [u8],
        keep: bool,
    ) -> Result<ReadInfo, StoreError> {
        let (done, first) = match super::stream::fill(&self.obj.rt, &mut stream, &mut self.leftover, buf) {
            Ok(r) => r,
            Err(e) => return Err(self.obj.err("get", e)),
        };
        if keep {
            self.stream = Some(stream);
        } else {
            self.leftover = Bytes::new();
        }
        self.obj.counts.bytes_get.fetch_add(done as u64, Ordering::Relaxed);
        Ok(ReadInfo { bytes: done, first_byte: first.unwrap_or_else(Instant::now) })
    }
}

impl ReadStream for ObjRead {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        let end = (offset + buf.len() as u64).min(self.len);
        if offset >= end {
            return Ok(ReadInfo { bytes: 0, first_byte: Instant::now() });
        }
        if let Some(p) = self.prefetch {
            return self.read_prefetched(offset, p, buf);
        }
        let saved = std::mem::take(&mut self.leftover);
        let stream = self.start_get(offset..end)?;
        let r = self.drain(stream, buf, false);
        self.leftover = saved;
        r
    }

    fn read_vector(&mut self, offsets: &[u64], bufs: &mut [&mut [u8]]) -> Result<Vec<usize>, StoreError> {
        let ranges: Vec<std::ops::Range<u64>> = offsets
            .iter()
            .zip(bufs.iter())
            .map(|(&o, b)| o.min(self.len)..(o + b.len() as u64).min(self.len))
            .collect();
        // As object_store's get_ranges: ranges less than 1 MiB apart merge into one GET, and up to 10
        // merged GETs run in parallel. Done here so that each GET is counted.
        let (store, key, counts) = (self.obj.store.clone(), self.obj.key.clone(), self.obj.counts.clone());
        let mut merged = 0;
        let fetch = |r: std::ops::Range<u64>| {
            merged += 1;
            counts.requests_get.fetch_add(1, Ordering::Relaxed);
            let (store, key) = (store.clone(), key.clone());
            async move { store.get_range(&key, r).await }
        };
        let data = self
            .obj
            .rt
            .block_on(object_store::coalesce_ranges(&ranges, fetch, object_store::OBJECT_STORE_COALESCE_DEFAULT))
            .map_err(|e| self.obj.err("get ranges of", e))?;
        self.gets += merged;
        let mut got = Vec::with_capacity(bufs.len());
        for (b, d) in bufs.iter_mut().zip(&data) {
            let n = d.len().min(b.len());
            b[..n].copy_from_slice(&d[..n]);
            self.obj.counts.bytes_get.fetch_add(n as u64, Ordering::Relaxed);
            got.push(n);
        }
        Ok(got)
    }

    fn read_next(&mut self, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        let stream = match self.stream.take() {
            Some(s) => s,
            None if self.gets == 0 && self.len > 0 => self.start_get(0..self.len)?,
            None => return Ok(ReadInfo { bytes: 0, first_byte: Instant::now() }),
        };
        self.drain(stream, buf, true)
    }

    fn close(mut self: Box<Self>) -> Result<Counters, StoreError> {
        for (_, h) in std::mem::take(&mut self.ahead) {
            h.abort();
        }
        Ok(vec![
            ("get_requests".into(), self.gets),
            ("prefetch_hits".into(), self.prefetch_hits),
            ("content_length".into(), self.len),
        ])
    }
}

impl Store for ObjStore {
    fn url(&self) -> String {
        format!("{}://{}/", self.scheme, self.bucket)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { direct_io: false, hflush: false, atomic_rename: false, directories: false, in_memory: false }
    }

    fn engine(&self, _direct: bool) -> String {
        format!(
            "object_store {} client to {}, multipart size {} MiB, {} active blocks",
            self.name,
            self.where_(),
            self.part_size >> 20,
            self.active_blocks
        )
    }

    fn create(&self, path: &str, opts: &WriteOptions) -> Result<Box<dyn WriteStream>, StoreError> {
        if opts.direct {
            return Err(StoreError::Unsupported(format!("{} has no page cache to bypass: drop --direct", self.name)));
        }
        if !self.writable {
            return Err(StoreError::Unsupported(format!(
                "{} is read-only for storebench: write to s3://, gs://, az:// or a file, or read an existing object",
                self.display(path)
            )));
        }
        if !opts.overwrite && self.head(path)?.is_some() {
            return Err(StoreError::AlreadyExists { path: self.display(path) });
        }
        let cap = opts.size_hint.map_or(self.part_size, |s| (s as usize).min(self.part_size));
        Ok(Box::new(ObjWrite {
            obj: self.object(path)?,
            buf: Vec::with_capacity(cap),
            part_size: self.part_size,
            active_blocks: self.active_blocks,
            upload: None,
            inflight: Default::default(),
            written: 0,
            parts: 0,
            part_times: Vec::new(),
            create_only: !opts.overwrite,
        }))
    }

    fn open(&self, path: &str, opts: &ReadOptions) -> Result<Box<dyn ReadStream>, StoreError> {
        let len = self.head(path)?.ok_or_else(|| StoreError::NotFound { path: self.display(path) })?;
        Ok(Box::new(ObjRead {
            obj: self.object(path)?,
            prefetch: opts.prefetch,
            ahead: Default::default(),
            scheduled_to: 0,
            prefetch_hits: 0,
            len,
            stream: None,
            leftover: Bytes::new(),
            gets: 0,
        }))
    }

    fn stat(&self, path: &str) -> Result<Option<Meta>, StoreError> {
        if !path.trim_matches('/').is_empty() && !path.ends_with('/') {
            if let Some(size) = self.head(path)? {
                return Ok(Some(Meta { size, is_dir: false }));
            }
        }
        let root_or_dir = path.trim_matches('/').is_empty() || path.ends_with('/');
        if !self.writable {
            // A plain web server cannot list (that is WebDAV's PROPFIND): a path is an object or nothing.
            return Ok(root_or_dir.then_some(Meta { size: 0, is_dir: true }));
        }
        let is_dir = path.trim_matches('/').is_empty() || !self.list(path)?.is_empty();
        Ok(is_dir.then_some(Meta { size: 0, is_dir: true }))
    }

    fn list(&self, dir: &str) -> Result<Vec<String>, StoreError> {
        let trimmed = dir.trim_matches('/');
        let prefix = if trimmed.is_empty() { None } else { Some(self.key(trimmed)?) };
        self.counts.requests_list.fetch_add(1, Ordering::Relaxed);
        let r =
            self.rt.block_on(self.inner.list_with_delimiter(prefix.as_ref())).map_err(|e| self.map("list", dir, e))?;
        let mut names: Vec<String> = r
            .objects
            .iter()
            .map(|o| o.location.filename().unwrap_or_default().to_string())
            .chain(r.common_prefixes.iter().map(|p| p.filename().unwrap_or_default().to_string()))
            .collect();
        names.sort();
        Ok(names)
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), StoreError> {
        // S3 has no rename: copy then delete, as s3a does. Refuse to replace an existing object.
        if self.head(to)?.is_some() {
            return Err(StoreError::Failed {
                op: "rename",
                path: format!("{from} -> {to}"),
                detail: format!("{to} already exists and storebench will not replace it"),
            });
        }
        if self.head(from)?.is_none() {
            return Err(StoreError::NotFound { path: self.display(from) });
        }
        let (f, t) = (self.key(from)?, self.key(to)?);
        self.counts.requests_copy.fetch_add(1, Ordering::Relaxed);
        self.rt.block_on(self.inner.copy(&f, &t)).map_err(|e| self.map("rename (copy)", from, e))?;
        self.counts.requests_delete.fetch_add(1, Ordering::Relaxed);
        self.rt.block_on(self.inner.delete(&f)).map_err(|e| self.map("rename (delete)", from, e))
    }

    fn delete(&self, path: &str) -> Result<(), StoreError> {
        // S3 answers 204 for a missing key: look first, so a missing file is reported as missing.
        if self.head(path)?.is_none() {
            return Err(StoreError::NotFound { path: self.display(path) });
        }
        self.counts.requests_delete.fetch_add(1, Ordering::Relaxed);
        self.rt.block_on(self.inner.delete(&self.key(path)?)).map_err(|e| self.map("delete", path, e))
    }

    fn create_dir(&self, _path: &str) -> Result<(), StoreError> {
        Ok(())
    }

    fn remove_dir(&self, _path: &str) -> Result<(), StoreError> {
        Ok(())
    }

    fn counters(&self) -> Counters {
        let c = &self.counts;
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        vec![
            ("get_requests".into(), l(&c.requests_get)),
            ("head_requests".into(), l(&c.requests_head)),
            ("put_requests".into(), l(&c.requests_put)),
            ("list_requests".into(), l(&c.requests_list)),
            ("copy_requests".into(), l(&c.requests_copy)),
            ("delete_requests".into(), l(&c.requests_delete)),
            ("multipart_started".into(), l(&c.multipart_started)),
            ("multipart_parts".into(), l(&c.multipart_parts)),
            ("multipart_completed".into(), l(&c.multipart_completed)),
            ("multipart_aborted".into(), l(&c.multipart_aborted)),
            ("bytes_get".into(), l(&c.bytes_get)),
            ("bytes_put".into(), l(&c.bytes_put)),
            ("errors".into(), l(&c.errors)),
        ]
        .into_iter()
        .chain(self.wire.counters())
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_xml_errors_become_one_line() {
        let t = "Error performing GET http://h/b in 1ms - Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>";
        assert_eq!(summarize(t), "HTTP 404 Not Found NoSuchBucket: The specified bucket does not exist");
        assert_eq!(summarize("a\n  b"), "a b");
        let az = "Server returned non-2xx status code: 404 Not Found: <Error><Code>ContainerNotFound</Code><Message>The specified container does not exist.\nRequestId:5c0\nTime:2026-11-22T11:50:40Z</Message></Error>";
        assert_eq!(summarize(az), "HTTP 404 Not Found ContainerNotFound: The specified container does not exist.");
        let gcs = "Error performing PUT http://h/b/o in 1ms - Server returned non-2xx status code: 400 Bad Request: {\"error\":{\"code\":400,\"message\":\"invalid uploadType\",\"errors\":[]}}";
        assert_eq!(summarize(gcs), "HTTP 400 Bad Request: invalid uploadType");
    }
}
