//! Object stores through Apache Arrow's `object_store`: `s3://`, `gs://`, `az://` and read-only
//! `http(s)://`, one implementation of the `Store` trait for all of them (`clouds.rs` builds the client
//! each scheme needs).
//!
//! Uploads behave as Hadoop's s3a on every store: below the multipart size the object goes up in one
//! PUT inside close(); above it, a multipart upload with parts of the multipart size and at most
//! "active blocks" parts in flight, so block writes return at once until the queue is full and
//! close() completes the upload. A failed or abandoned upload is aborted. Every HTTP attempt is
//! counted, retries included (`wire.rs`).

mod error;
mod parts;
mod read;
#[cfg(test)]
mod tests;
mod write;
use error::*;
use read::*;
use write::*;

use super::*;
use crate::store::counters::counter_set;
use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::path::Path as ObjPath;
use object_store::{GetOptions, GetRange, MultipartUpload, ObjectStore, PutMode, PutOptions, PutPayload};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

mod clouds;
mod profile;
pub mod wire;

pub use clouds::timeout_value;

pub use clouds::{AZURE_KEYS, COMMON_KEYS, ENV_KEYS, GCS_KEYS, S3_KEYS};

counter_set! {
    /// What the store asked of the service, named as docs/metrics.md lists them.
    struct Counts {
        requests_get = "get_requests",
        requests_head = "head_requests",
        requests_put = "put_requests",
        requests_list = "list_requests",
        requests_copy = "copy_requests",
        requests_delete = "delete_requests",
        multipart_started = "multipart_started",
        multipart_parts = "multipart_parts",
        multipart_completed = "multipart_completed",
        multipart_aborted = "multipart_aborted",
        bytes_get = "bytes_get",
        bytes_put = "bytes_put",
        errors = "errors",
    }
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
    /// Idle part buffers, reused by every upload.
    parts: Arc<parts::Parts>,
    /// Worker threads of the runtime the client runs on.
    io_threads: usize,
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
        let (rt, io_threads) = super::asyncio::runtime(super::asyncio::io_threads(config)?)?;
        let store = ObjStore {
            inner: built.inner,
            rt,
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
            parts: Arc::default(),
            io_threads,
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
            parts: self.parts.clone(),
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
        self.counts.errors.inc();
        map_err(op, &self.display(path), &self.where_(), &self.key_id, e)
    }

    fn head(&self, path: &str) -> Result<Option<u64>, StoreError> {
        let key = self.key(path)?;
        self.counts.requests_head.inc();
        match self.rt.block_on(self.inner.head(&key)) {
            Ok(m) => Ok(Some(m.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.map("stat", path, e)),
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
    parts: Arc<parts::Parts>,
}

impl Object {
    fn err(&self, op: &'static str, e: object_store::Error) -> StoreError {
        self.counts.errors.inc();
        map_err(op, &self.path, &self.endpoint, &self.key_id, e)
    }

    /// A background request that did not finish (aborted or panicked).
    fn lost(&self, op: &'static str, e: tokio::task::JoinError) -> StoreError {
        StoreError::Failed { op, path: self.path.clone(), detail: e.to_string() }
    }
}

impl Store for ObjStore {
    fn url(&self) -> String {
        format!("{}://{}/", self.scheme, self.bucket)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            writable: self.writable,
            direct_io: false,
            hflush: false,
            append: false,
            atomic_rename: false,
            directories: false,
            // A web server takes no writes; the clouds' PUTs can be conditional (If-None-Match: *).
            conditional_create: self.writable,
            vectored_read: true,
            prefetch: true,
            in_memory: false,
            page_cache: false,
        }
    }

    fn engine(&self, _direct: bool) -> String {
        format!(
            "object_store {} client to {}, multipart size {} MiB, {} active blocks, {}",
            self.name,
            self.where_(),
            self.part_size >> 20,
            self.active_blocks,
            super::asyncio::io_threads_words(self.io_threads)
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
            buf: self.parts.take(cap),
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
        self.counts.requests_list.inc();
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
        self.counts.requests_copy.inc();
        self.rt.block_on(self.inner.copy(&f, &t)).map_err(|e| self.map("rename (copy)", from, e))?;
        self.counts.requests_delete.inc();
        self.rt.block_on(self.inner.delete(&f)).map_err(|e| self.map("rename (delete)", from, e))
    }

    fn delete(&self, path: &str) -> Result<(), StoreError> {
        // S3 answers 204 for a missing key: look first, so a missing file is reported as missing.
        if self.head(path)?.is_none() {
            return Err(StoreError::NotFound { path: self.display(path) });
        }
        self.counts.requests_delete.inc();
        self.rt.block_on(self.inner.delete(&self.key(path)?)).map_err(|e| self.map("delete", path, e))
    }

    fn create_dir(&self, _path: &str) -> Result<(), StoreError> {
        Ok(())
    }

    fn remove_dir(&self, _path: &str) -> Result<(), StoreError> {
        Ok(())
    }

    fn remote(&self) -> Option<crate::store::Remote> {
        crate::store::Remote::of_url(&self.endpoint)
    }

    fn counters(&self) -> Counters {
        let mut all = self.counts.list();
        all.extend(self.wire.counters());
        all
    }
}
