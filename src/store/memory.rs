//! `memory://`: files held in this process's memory. It measures storebench itself (the cost of the
//! pipeline with a store that only copies bytes); it is not a stand-in for a real store in tests.

use super::*;
use std::collections::BTreeMap;
use std::sync::{OnceLock, RwLock};

type Files = RwLock<BTreeMap<String, Arc<Vec<u8>>>>;

/// One process-wide map of paths to contents, shared by every `memory://` target.
fn files() -> &'static Files {
    static FILES: OnceLock<Files> = OnceLock::new();
    FILES.get_or_init(|| RwLock::new(BTreeMap::new()))
}

fn read_files() -> std::sync::RwLockReadGuard<'static, BTreeMap<String, Arc<Vec<u8>>>> {
    files().read().unwrap_or_else(|p| p.into_inner())
}

fn write_files() -> std::sync::RwLockWriteGuard<'static, BTreeMap<String, Arc<Vec<u8>>>> {
    files().write().unwrap_or_else(|p| p.into_inner())
}

/// The in-memory store.
pub struct MemoryStore;

impl MemoryStore {
    /// A target for `memory://PATH`.
    pub fn target(path: &str) -> Target {
        Target { store: Arc::new(MemoryStore), path: path.to_string(), warnings: Vec::new() }
    }
}

fn dir_prefix(dir: &str) -> String {
    let d = dir.trim_end_matches('/');
    if d.is_empty() {
        String::new()
    } else {
        format!("{d}/")
    }
}

struct MemWrite {
    path: String,
    data: Vec<u8>,
    overwrite: bool,
}

/// The memory this machine can give now, in bytes: MemAvailable of /proc/meminfo, or None where it
/// cannot be read.
pub fn available_memory() -> Option<u64> {
    meminfo_bytes(&["MemAvailable"])
}

/// The sum of some /proc/meminfo fields (given without the colon: "Dirty"), in bytes; None when the
/// file or a field is missing. The one reader of /proc/meminfo.
pub fn meminfo_bytes(keys: &[&str]) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let mut kib = 0u64;
    for key in keys {
        let line = text.lines().find(|l| l.split(':').next() == Some(key))?;
        kib = kib.checked_add(line.split_whitespace().nth(1)?.parse().ok()?)?;
    }
    kib.checked_mul(1024)
}

/// Checks that `bytes` of memory for `what` fit in 90 % of the memory available now; the error names
/// both figures. Every allocation whose size comes from the user's input is checked here first.
pub fn fits_in_memory(bytes: u64, what: &str) -> Result<(), String> {
    let Some(avail) = available_memory() else { return Ok(()) };
    let limit = avail / 10 * 9;
    if bytes > limit || bytes > isize::MAX as u64 {
        return Err(format!(
            "{what} needs {} of memory, but only {} is available (90 % of MemAvailable in /proc/meminfo): \
             use a smaller size",
            crate::units::human_bytes(bytes),
            crate::units::human_bytes(limit)
        ));
    }
    Ok(())
}

impl WriteStream for MemWrite {
    fn write(&mut self, buf: &[u8]) -> Result<(), StoreError> {
        // A file held in memory grows only as far as memory allows: a clear error, never an abort.
        if self.data.try_reserve(buf.len()).is_err() {
            return Err(StoreError::NoSpace {
                op: "write (memory:// keeps data in RAM)",
                path: self.path.clone(),
                offset: self.data.len() as u64,
            });
        }
        self.data.extend_from_slice(buf);
        Ok(())
    }
    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
    fn hflush(&mut self) -> Result<(), StoreError> {
        Err(StoreError::Unsupported("memory:// has no durability to hflush to".into()))
    }
    fn close(self: Box<Self>) -> Result<Closed, StoreError> {
        let this = *self;
        let len = this.data.len() as u64;
        let mut map = write_files();
        if !this.overwrite && map.contains_key(&this.path) {
            return Err(StoreError::AlreadyExists { path: this.path });
        }
        map.insert(this.path, Arc::new(this.data));
        Ok(Closed { counters: vec![("bytes_written".into(), len)], parts: Vec::new() })
    }
    fn abort(self: Box<Self>) -> Result<(), StoreError> {
        Ok(())
    }
}

struct MemRead {
    data: Arc<Vec<u8>>,
    pos: u64,
}

impl MemRead {
    fn copy(&self, offset: u64, buf: &mut [u8]) -> ReadInfo {
        let start = (offset as usize).min(self.data.len());
        let n = buf.len().min(self.data.len() - start);
        buf[..n].copy_from_slice(&self.data[start..start + n]);
        ReadInfo { bytes: n, first_byte: Instant::now() }
    }
}

impl ReadStream for MemRead {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        Ok(self.copy(offset, buf))
    }
    fn read_next(&mut self, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        let info = self.copy(self.pos, buf);
        self.pos += info.bytes as u64;
        Ok(info)
    }
    fn close(self: Box<Self>) -> Result<Counters, StoreError> {
        Ok(Vec::new())
    }
}

impl Store for MemoryStore {
    fn url(&self) -> String {
        "memory://".into()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            writable: true,
            direct_io: false,
            hflush: false,
            append: true,
            atomic_rename: true,
            directories: false,
            conditional_create: true,
            vectored_read: false,
            prefetch: false,
            in_memory: true,
            page_cache: false,
        }
    }
    fn engine(&self, _direct: bool) -> String {
        "memcpy into process memory".into()
    }
    fn create(&self, path: &str, opts: &WriteOptions) -> Result<Box<dyn WriteStream>, StoreError> {
        if opts.direct {
            return Err(StoreError::Unsupported("memory:// has no page cache to bypass: drop --direct".into()));
        }
        if !opts.overwrite && read_files().contains_key(path) {
            return Err(StoreError::AlreadyExists { path: path.into() });
        }
        let hint = opts.size_hint.unwrap_or(0);
        fits_in_memory(hint, &format!("memory://{path} (memory:// keeps every byte in RAM)"))
            .map_err(StoreError::Unsupported)?;
        let mut data = Vec::new();
        data.try_reserve(hint as usize).map_err(|_| StoreError::NoSpace {
            op: "create (memory:// keeps data in RAM)",
            path: path.into(),
            offset: 0,
        })?;
        Ok(Box::new(MemWrite { path: path.into(), data, overwrite: opts.overwrite }))
    }
    fn append(&self, path: &str) -> Result<Box<dyn WriteStream>, StoreError> {
        let data = read_files()
            .get(path)
            .map(|d| d.as_ref().clone())
            .ok_or_else(|| StoreError::NotFound { path: path.into() })?;
        Ok(Box::new(MemWrite { path: path.into(), data, overwrite: true }))
    }
    fn open(&self, path: &str, opts: &ReadOptions) -> Result<Box<dyn ReadStream>, StoreError> {
        if opts.direct {
            return Err(StoreError::Unsupported("memory:// has no page cache to bypass: drop --direct".into()));
        }
        let data = read_files().get(path).cloned().ok_or_else(|| StoreError::NotFound { path: path.into() })?;
        Ok(Box::new(MemRead { data, pos: 0 }))
    }
    fn stat(&self, path: &str) -> Result<Option<Meta>, StoreError> {
        let map = read_files();
        if let Some(d) = map.get(path) {
            return Ok(Some(Meta { size: d.len() as u64, is_dir: false }));
        }
        let prefix = dir_prefix(path);
        let is_dir =
            prefix.is_empty() || map.range(prefix.clone()..).next().is_some_and(|(k, _)| k.starts_with(&prefix));
        Ok(is_dir.then_some(Meta { size: 0, is_dir: true }))
    }
    fn list(&self, dir: &str) -> Result<Vec<String>, StoreError> {
        let prefix = dir_prefix(dir);
        let map = read_files();
        let mut names: Vec<String> = map
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(k, _)| {
                let rest = &k[prefix.len()..];
                rest.split('/').next().unwrap_or(rest).to_string()
            })
            .collect();
        names.dedup();
        Ok(names)
    }
    fn rename(&self, from: &str, to: &str) -> Result<(), StoreError> {
        let mut map = write_files();
        if map.contains_key(to) {
            return Err(StoreError::Failed {
                op: "rename",
                path: format!("{from} -> {to}"),
                detail: format!("{to} already exists and storebench will not replace it"),
            });
        }
        let d = map.remove(from).ok_or_else(|| StoreError::NotFound { path: from.into() })?;
        map.insert(to.into(), d);
        Ok(())
    }
    fn delete(&self, path: &str) -> Result<(), StoreError> {
        write_files().remove(path).map(|_| ()).ok_or_else(|| StoreError::NotFound { path: path.into() })
    }
    fn create_dir(&self, _path: &str) -> Result<(), StoreError> {
        Ok(())
    }
    fn remove_dir(&self, _path: &str) -> Result<(), StoreError> {
        Ok(())
    }
}
