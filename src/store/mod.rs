//! Stores: where data goes. The [`Store`] trait is the only thing a workload sees; a store never knows
//! which workload calls it. Stores are built from URLs by [`open_target`]; each scheme is one arm there.

pub mod aligned;
#[cfg(any(feature = "s3", feature = "hdfs"))]
pub mod asyncio;
pub mod config;
#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
pub mod counters;
#[cfg(feature = "hdfs")]
pub mod hdfs;
pub mod local;
pub mod memory;
#[cfg(feature = "s3")]
pub mod object;

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

pub use config::StoreConfig;

/// What a store can do, checked once when the plan is validated. Each claim is checked by the
/// conformance suite (`store::conformance`, built for tests only) on every store that makes it, and
/// its absence on every store that does not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Capabilities {
    /// Accepts writes (false for read-only stores such as http://).
    pub writable: bool,
    /// Can bypass the page cache (O_DIRECT).
    pub direct_io: bool,
    /// Can make written data durable before close (hflush/hsync; fdatasync for files).
    pub hflush: bool,
    /// Can add to the end of an existing file (`Store::append`, TestDFSIO's -append).
    pub append: bool,
    /// Rename is a single atomic operation (not copy + delete).
    pub atomic_rename: bool,
    /// Has real directories that must be created and removed.
    pub directories: bool,
    /// A create without `overwrite` never replaces what another writer made after it began: the name
    /// is taken exclusively at create (files, HDFS) or the store refuses the final PUT (a conditional
    /// PUT on object stores; a multipart upload's completion is not conditional).
    pub conditional_create: bool,
    /// `read_vector` fetches the ranges concurrently (and coalesces neighbours) instead of one after
    /// the other.
    pub vectored_read: bool,
    /// `ReadOptions::prefetch` makes the store read ahead of the reader.
    pub prefetch: bool,
    /// Keeps every byte in this process's memory (memory://): sizes are checked against free memory.
    pub in_memory: bool,
    /// Its files sit in this host's page cache: `evict` (`--drop-cache`) and `resident_bytes` work.
    pub page_cache: bool,
}

/// How a file is written.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// Bypass the page cache (O_DIRECT); buffers, offsets and lengths must then be aligned.
    pub direct: bool,
    /// Make the data durable (fsync) inside close(), so close() is timed with it.
    pub fsync_on_close: bool,
    /// Replace an existing file instead of refusing.
    pub overwrite: bool,
    /// The expected final size, when known, so stores can reserve room.
    pub size_hint: Option<u64>,
}

/// How a file is read.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// Bypass the page cache (O_DIRECT).
    pub direct: bool,
    /// The reads will be sequential (a hint: fadvise for files).
    pub sequential: bool,
    /// Reads will be block-sized, in order; fetch this many blocks ahead in parallel.
    pub prefetch: Option<Prefetch>,
}

/// Read-ahead of whole blocks, as Hadoop 3.3.6's S3A prefetching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefetch {
    /// Bytes per block.
    pub block: u64,
    /// Blocks fetched ahead of the one being read.
    pub depth: usize,
    /// Offset the reader stops at: nothing at or past it is fetched (the file's length, or less when
    /// only a first part is read).
    pub end: u64,
}

impl Prefetch {
    /// Where the read-ahead window ends when the block at `offset` is read: the block itself and
    /// `depth` more, no further than the file's `len` or the reader's `end`.
    pub fn window_end(&self, offset: u64, len: u64) -> u64 {
        (offset + self.block * (self.depth as u64 + 1)).min(len).min(self.end)
    }
}

/// What a store knows of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// The path is a directory (or, on object stores, a prefix).
    pub is_dir: bool,
}

/// Counters a stream or store kept: name and value.
pub type Counters = Vec<(String, u64)>;

/// A timed operation a stream did on its own, such as one part of a multipart upload.
#[derive(Clone, Copy, Debug)]
pub struct SubOp {
    /// Bytes it moved.
    pub bytes: u64,
    /// Offset in the file of its first byte.
    pub offset: u64,
    /// When it started.
    pub start: Instant,
    /// When it ended.
    pub end: Instant,
}

/// What a write stream reports when it closes.
#[derive(Debug, Default)]
pub struct Closed {
    /// The stream's counters.
    pub counters: Counters,
    /// The parts it uploaded on its own (multipart uploads), each timed.
    pub parts: Vec<SubOp>,
}

/// The result of one read call.
#[derive(Clone, Copy, Debug)]
pub struct ReadInfo {
    /// Bytes placed in the buffer (less than asked only at the end of the file).
    pub bytes: usize,
    /// When the first byte was available.
    pub first_byte: Instant,
}

/// A store error. Backend-specific errors are folded into these kinds.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The path does not exist.
    #[error("{path} does not exist")]
    NotFound {
        /// The missing path.
        path: String,
    },
    /// The path exists and the operation would replace it.
    #[error("{path} already exists; pass --overwrite to replace it, or choose another path")]
    AlreadyExists {
        /// The existing path.
        path: String,
    },
    /// The store refused the operation for lack of permission.
    #[error("permission denied: cannot {op} {path}: {detail}")]
    PermissionDenied {
        /// What was attempted.
        op: &'static str,
        /// On what.
        path: String,
        /// The store's own words.
        detail: String,
    },
    /// The store ran out of space.
    #[error("no space left on the device holding {path} ({op} at offset {offset})")]
    NoSpace {
        /// What was attempted.
        op: &'static str,
        /// The file being written.
        path: String,
        /// Where the write failed.
        offset: u64,
    },
    /// The store cannot do what was asked.
    #[error("{0}")]
    Unsupported(String),
    /// Any other failure, with the operation and path it happened on.
    #[error("{op} {path} failed: {detail}")]
    Failed {
        /// What was attempted.
        op: &'static str,
        /// On what.
        path: String,
        /// The underlying error.
        detail: String,
    },
}

/// An open output stream. Data is appended; `close` completes the file.
pub trait WriteStream: Send {
    /// Appends `buf`. On stores that upload asynchronously this may return before the data is stored.
    fn write(&mut self, buf: &[u8]) -> Result<(), StoreError>;
    /// Hands the data written so far to the store or OS without waiting for durability.
    fn flush(&mut self) -> Result<(), StoreError>;
    /// Makes the data written so far durable and visible (HDFS hflush; fdatasync for files).
    fn hflush(&mut self) -> Result<(), StoreError>;
    /// Completes the file; returns the stream's counters and timed parts.
    fn close(self: Box<Self>) -> Result<Closed, StoreError>;
    /// Abandons the file: removes what was written (or aborts the upload).
    fn abort(self: Box<Self>) -> Result<(), StoreError>;
}

/// An open input stream.
pub trait ReadStream: Send {
    /// The file's length in bytes.
    fn len(&self) -> u64;
    /// True when the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Reads into `buf` from `offset` until the buffer is full or the file ends.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<ReadInfo, StoreError>;
    /// Reads the next bytes of one streaming read that began at offset 0.
    fn read_next(&mut self, buf: &mut [u8]) -> Result<ReadInfo, StoreError>;
    /// As `read_next`, at most `buf.len()` bytes, handed to `sink` in the pieces the store holds them
    /// in: a store whose client has the bytes in buffers of its own (an HTTP body, an HDFS packet)
    /// passes those and leaves `buf` alone, saving a copy of every byte; the others read into `buf`
    /// and pass it. For readers that look at the bytes and do not keep them.
    fn read_next_with(&mut self, buf: &mut [u8], sink: &mut dyn FnMut(&[u8])) -> Result<ReadInfo, StoreError> {
        let info = self.read_next(buf)?;
        sink(&buf[..info.bytes]);
        Ok(info)
    }
    /// Reads several ranges in one vectored call (Hadoop's readVectored): `bufs[i]` is filled from
    /// `offsets[i]`. Stores that can coalesce and parallelize the ranges do; the default reads them one
    /// after the other. Returns how many bytes each range got.
    fn read_vector(&mut self, offsets: &[u64], bufs: &mut [&mut [u8]]) -> Result<Vec<usize>, StoreError> {
        offsets.iter().zip(bufs.iter_mut()).map(|(&o, b)| self.read_at(o, b).map(|i| i.bytes)).collect()
    }
    /// Closes the stream; returns its counters.
    fn close(self: Box<Self>) -> Result<Counters, StoreError>;
}

/// The far end of a remote store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remote {
    /// An endpoint given by name or address and port.
    Host(String, u16),
    /// A cloud service's default endpoint (no endpoint configured): reached through the default route.
    Service,
}

impl Remote {
    /// The host and port of an endpoint URL (`http://user@host:port/path`, `[v6]:port`, `host:port`);
    /// the port defaults to the scheme's (80, or 443 for https). An empty URL is the service's default.
    pub fn of_url(url: &str) -> Option<Remote> {
        if url.trim().is_empty() {
            return Some(Remote::Service);
        }
        let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
        let default = if scheme.eq_ignore_ascii_case("https") { 443 } else { 80 };
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !p.contains(']') && (!h.contains(':') || h.ends_with(']')) => (h, p.parse().ok()?),
            _ => (authority, default),
        };
        (!host.is_empty()).then(|| Remote::Host(host.to_string(), port))
    }
}

/// A place to store files or objects. Paths are `/`-separated and relative to the store's root.
pub trait Store: Send + Sync {
    /// The store's URL, with any credentials removed, for reports.
    fn url(&self) -> String;
    /// What the store can do.
    fn capabilities(&self) -> Capabilities;
    /// A one-line description of the I/O engine, for reports (e.g. "pread/pwrite, page cache").
    fn engine(&self, direct: bool) -> String;
    /// Creates a file for writing.
    fn create(&self, path: &str, opts: &WriteOptions) -> Result<Box<dyn WriteStream>, StoreError>;
    /// Opens an existing file to add to its end (TestDFSIO's -append). Stores that cannot append say so.
    fn append(&self, path: &str) -> Result<Box<dyn WriteStream>, StoreError> {
        Err(StoreError::Unsupported(format!("{}: {} cannot append to an existing file", path, self.url())))
    }
    /// Opens a file for reading.
    fn open(&self, path: &str, opts: &ReadOptions) -> Result<Box<dyn ReadStream>, StoreError>;
    /// Size and kind of a path, or None when it does not exist.
    fn stat(&self, path: &str) -> Result<Option<Meta>, StoreError>;
    /// Whether a path exists.
    fn exists(&self, path: &str) -> Result<bool, StoreError> {
        Ok(self.stat(path)?.is_some())
    }
    /// The names of the entries directly under a directory or prefix.
    fn list(&self, dir: &str) -> Result<Vec<String>, StoreError>;
    /// Renames a file.
    fn rename(&self, from: &str, to: &str) -> Result<(), StoreError>;
    /// Deletes a file.
    fn delete(&self, path: &str) -> Result<(), StoreError>;
    /// Creates a directory (no-op on stores without directories). Fails if it exists.
    fn create_dir(&self, path: &str) -> Result<(), StoreError>;
    /// Removes an empty directory that storebench created (no-op on stores without directories).
    fn remove_dir(&self, path: &str) -> Result<(), StoreError>;
    /// Checks that `--overwrite` may replace what is at `path`: on stores whose names can be links,
    /// devices or FIFOs, only a regular file may be replaced. The default (object stores, HDFS,
    /// memory) has nothing to check. `create` checks again on the opened handle.
    fn check_replaceable(&self, _path: &str) -> Result<(), StoreError> {
        Ok(())
    }
    /// Bytes free for new data where `path` (a directory, or a file's directory) lives, on stores
    /// that can tell; None elsewhere.
    fn free_space(&self, _path: &str) -> Option<u64> {
        None
    }
    /// How many of the first `len` bytes of the file at `path` are in this host's page cache
    /// (mincore), on stores that have one; None elsewhere. A probe taken outside timed phases.
    fn resident_bytes(&self, _path: &str, _len: u64) -> Option<u64> {
        None
    }
    /// Evicts the file at `path` from this host's page cache, its dirty pages written first
    /// (`--drop-cache`, outside timed phases); stores whose data this host does not cache refuse.
    fn evict(&self, path: &str) -> Result<(), StoreError> {
        Err(StoreError::Unsupported(format!(
            "--drop-cache evicts files from this host's page cache, which holds local files only; {path} on {} is cached, if at all, by its server",
            self.url()
        )))
    }
    /// Where a remote store's bytes come from, for the link probe (`run::probe::link`); None for
    /// stores on this host.
    fn remote(&self) -> Option<Remote> {
        None
    }
    /// Store-wide counters, for `--verbose`.
    fn counters(&self) -> Counters {
        Vec::new()
    }
}

/// A store and a path in it, as named by the user's URL.
#[derive(Clone)]
pub struct Target {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The path the URL names, relative to the store's root ("" for the root itself).
    pub path: String,
    /// Warnings about the configuration (keys this store does not use), for the user.
    pub warnings: Vec<String>,
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Target({}, {:?})", self.store.url(), self.path)
    }
}

impl Target {
    /// The same target with configuration warnings attached.
    pub fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }
}

/// URL schemes and whether this build has them.
pub const SCHEMES: &[(&str, bool)] = &[
    ("file", true),
    ("memory", true),
    ("s3", cfg!(feature = "s3")),
    ("gs", cfg!(feature = "s3")),
    ("az", cfg!(feature = "s3")),
    ("http", cfg!(feature = "s3")),
    ("https", cfg!(feature = "s3")),
    ("hdfs", cfg!(feature = "hdfs")),
];

fn valid_schemes() -> String {
    SCHEMES.iter().filter(|(_, built)| *built).map(|(s, _)| format!("{s}://")).collect::<Vec<_>>().join(", ")
        + " or a plain path"
}

/// Builds the store a URL names. A URL without a scheme is a local path.
pub fn open_target(url: &str, config: &StoreConfig) -> Result<Target, String> {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '+') => {
            (s.to_ascii_lowercase(), r)
        }
        _ => ("file".to_string(), url),
    };
    match scheme.as_str() {
        "file" => {
            let path = if url.contains("://") {
                // file:///abs/path -> /abs/path ; file://host/path is not supported.
                if !rest.starts_with('/') {
                    return Err(format!(
                        "invalid file URL '{}': use file:///absolute/path (three slashes) or a plain path",
                        redact_url(url)
                    ));
                }
                percent_decode(rest)?
            } else {
                rest.to_string()
            };
            if path.is_empty() {
                return Err("empty path: give a file or directory, or omit the URL to use a temporary directory".into());
            }
            Ok(local::LocalStore::target(&path).with_warnings(config.unused("file://", &[])))
        }
        #[cfg(feature = "s3")]
        "s3" | "gs" | "az" | "http" | "https" => object::ObjStore::target(&scheme, url, rest, config),
        #[cfg(feature = "hdfs")]
        "hdfs" => hdfs::HdfsStore::target(url, rest, config),
        "memory" => Ok(memory::MemoryStore::target(rest).with_warnings(config.unused("memory://", &[]))),
        other => match SCHEMES.iter().find(|(s, _)| *s == other) {
            Some(_) => Err(format!(
                "URL scheme '{other}://' in '{}' is not built into this storebench yet: valid are {}",
                redact_url(url),
                valid_schemes()
            )),
            None => {
                Err(format!("unknown URL scheme '{other}://' in '{}': valid are {}", redact_url(url), valid_schemes()))
            }
        },
    }
}

/// Checks that `need` bytes fit where `path` lives, on stores that know their free space (a run never
/// fills a disk to find out). The error says what (`what`, e.g. "SIZE 1 TiB") does not fit, how much is
/// free, and `hint`.
pub fn ensure_room(store: &dyn Store, path: &str, need: u64, what: &str, hint: &str) -> Result<(), String> {
    match store.free_space(path) {
        Some(free) if need > free => Err(format!(
            "{what} does not fit: the filesystem holding {path} has {} free{hint}",
            crate::units::human_bytes(free)
        )),
        _ => Ok(()),
    }
}

/// Joins a store path and a name with one `/`: `a` + `b` and `a/` + `b` give `a/b`, `/` + `b` gives
/// `/b`, and an empty path gives the name alone (a key at the bucket's root). The one path join of
/// storebench.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        return name.to_string();
    }
    format!("{}/{name}", dir.trim_end_matches('/'))
}

/// Removes the `user:password@` part of every URL inside a text (an error message that quotes the
/// URL it failed on), so credentials never reach output.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        out.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let end = rest
            .find(|c: char| c == '/' || c.is_whitespace() || c == ')' || c == '"' || c == '\'')
            .unwrap_or(rest.len());
        if let Some(at) = rest[..end].rfind('@') {
            out.push_str("***@");
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// Percent-decodes a `file://` URL's path (`%20` is a space); a bad escape is an error naming it.
pub fn percent_decode(path: &str) -> Result<String, String> {
    let b = path.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = path.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(v) => {
                    out.push(v);
                    i += 3;
                    continue;
                }
                None => {
                    return Err(format!(
                        "invalid file URL path '{path}': '%' must be followed by two hex digits (e.g. %20 for a space)"
                    ))
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out)
        .map_err(|_| format!("invalid file URL path '{path}': it decodes to bytes that are not UTF-8"))
}

/// Removes any `user:password@` part of a URL, so credentials never reach output.
pub fn redact_url(url: &str) -> String {
    if let Some((scheme, rest)) = url.split_once("://") {
        let authority_end = rest.find('/').unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if let Some(at) = authority.rfind('@') {
            return format!("{scheme}://***@{}", &rest[at + 1..]);
        }
    }
    url.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_endpoints_from_urls() {
        let h = |h: &str, p: u16| Some(Remote::Host(h.into(), p));
        assert_eq!(Remote::of_url("http://127.0.0.1:9000"), h("127.0.0.1", 9000));
        assert_eq!(Remote::of_url("https://***@store.example/bucket"), h("store.example", 443));
        assert_eq!(Remote::of_url("http://[::1]:8080/x"), h("[::1]", 8080));
        assert_eq!(Remote::of_url("nn.example:8020"), h("nn.example", 8020));
        assert_eq!(Remote::of_url(""), Some(Remote::Service));
        assert_eq!(Remote::of_url("http://host:notaport"), None);
    }

    #[test]
    fn one_slash_between_path_and_name() {
        assert_eq!(join("a", "b"), "a/b");
        assert_eq!(join("a/", "b"), "a/b");
        assert_eq!(join("a//", "b"), "a/b");
        assert_eq!(join("/", "b"), "/b");
        assert_eq!(join("", "b"), "b");
    }

    #[test]
    fn schemes() {
        let cfg = StoreConfig::default();
        assert!(open_target("/tmp/x", &cfg).is_ok());
        assert!(open_target("file:///tmp/x", &cfg).is_ok());
        assert!(open_target("memory://bucket/x", &cfg).is_ok());
        let e = open_target("file://host/x", &cfg).unwrap_err();
        assert!(e.contains("three slashes"), "{e}");
        let e = open_target("hdfs:///x", &cfg).unwrap_err();
        assert!(e.contains("fs.defaultFS is not set"), "{e}");
        let e = open_target("foo://x", &cfg).unwrap_err();
        assert!(e.contains("unknown URL scheme 'foo://'"), "{e}");
    }

    #[test]
    fn decodes_file_urls_and_redacts_urls_in_text() {
        assert_eq!(percent_decode("/tmp/a%20b").unwrap(), "/tmp/a b");
        assert!(percent_decode("/tmp/a%2").unwrap_err().contains("two hex digits"));
        assert_eq!(
            redact_text("error sending request for url (http://user:SECRET@host:9/b/k): refused"),
            "error sending request for url (http://***@host:9/b/k): refused"
        );
        assert_eq!(redact_text("no url here"), "no url here");
        assert_eq!(redact_text("a://x@y b://z"), "a://***@y b://z");
    }

    #[test]
    fn redacts_userinfo() {
        assert_eq!(redact_url("s3://AKIA:secret@host/b"), "s3://***@host/b");
        assert_eq!(redact_url("s3://bucket/a@b"), "s3://bucket/a@b");
        assert_eq!(redact_url("/plain/path"), "/plain/path");
    }
}
