//! The native local engine: `file://` URLs and plain paths.
//!
//! Writes are positioned `pwrite(2)` calls and reads `pread(2)` (or `read(2)` for one streaming read)
//! straight from the caller's buffer: no user-space buffering, no allocation per call. `--direct` opens
//! with O_DIRECT and fails clearly where the filesystem refuses it; it never falls back silently.
//! `flush` starts writeback of the data written since the last flush (sync_file_range WRITE); `hflush`
//! is fdatasync.

mod fd;

use super::*;
use crate::store::counters::counter_set;
use fd::{check_aligned, cpath, direct_refused, open_regular, refused, Fd, NotOpened};
pub use fd::{create_new_file, map_io, not_regular, set_blocking};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

counter_set! {
    /// The calls a local store made, named as docs/metrics.md lists them.
    struct Counts {
        creates = "create_calls",
        opens = "open_calls",
        renames = "rename_calls",
        deletes = "delete_calls",
    }
}

/// The local filesystem. Paths are used as given: absolute, or relative to the working directory.
#[derive(Default)]
pub struct LocalStore {
    counts: Counts,
}

impl LocalStore {
    /// A target for a local path.
    pub fn target(path: &str) -> Target {
        Target { store: Arc::new(LocalStore::default()), path: path.to_string(), warnings: Vec::new() }
    }
}

struct LocalWrite {
    fd: Option<Fd>,
    path: String,
    offset: u64,
    flushed_to: u64,
    direct: bool,
    fsync_on_close: bool,
    pwrite_calls: u64,
    short_writes: u64,
    sync_file_range_calls: u64,
    fdatasync_calls: u64,
    /// Appending to an existing file of this length: abort cuts it back instead of removing it.
    appended_to: Option<u64>,
}

impl LocalWrite {
    fn fd(&self) -> libc::c_int {
        self.fd.as_ref().map_or(-1, |f| f.0)
    }
}

impl WriteStream for LocalWrite {
    fn write(&mut self, buf: &[u8]) -> Result<(), StoreError> {
        if self.direct {
            check_aligned(&self.path, buf, self.offset)?;
        }
        let mut done = 0usize;
        while done < buf.len() {
            let rest = &buf[done..];
            // SAFETY: rest is a valid readable slice; fd is open.
            let n = unsafe {
                libc::pwrite(self.fd(), rest.as_ptr().cast(), rest.len(), (self.offset + done as u64) as libc::off_t)
            };
            self.pwrite_calls += 1;
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(map_io("write", &self.path, self.offset + done as u64, e));
            }
            if n == 0 {
                return Err(StoreError::NoSpace {
                    op: "write",
                    path: self.path.clone(),
                    offset: self.offset + done as u64,
                });
            }
            if (n as usize) < rest.len() {
                self.short_writes += 1;
            }
            done += n as usize;
        }
        self.offset += buf.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        let len = self.offset - self.flushed_to;
        if len == 0 {
            return Ok(());
        }
        // SAFETY: plain syscall on an open descriptor.
        let r = unsafe {
            libc::sync_file_range(
                self.fd(),
                self.flushed_to as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            )
        };
        self.sync_file_range_calls += 1;
        if r != 0 {
            return Err(map_io("flush", &self.path, self.flushed_to, io::Error::last_os_error()));
        }
        self.flushed_to = self.offset;
        Ok(())
    }

    fn hflush(&mut self) -> Result<(), StoreError> {
        // SAFETY: plain syscall on an open descriptor.
        let r = unsafe { libc::fdatasync(self.fd()) };
        self.fdatasync_calls += 1;
        if r != 0 {
            return Err(map_io("fdatasync", &self.path, self.offset, io::Error::last_os_error()));
        }
        self.flushed_to = self.offset;
        Ok(())
    }

    fn close(mut self: Box<Self>) -> Result<Closed, StoreError> {
        let mut fsync_calls = 0;
        if self.fsync_on_close {
            // SAFETY: plain syscall on an open descriptor.
            let r = unsafe { libc::fsync(self.fd()) };
            fsync_calls += 1;
            if r != 0 {
                return Err(map_io("fsync", &self.path, self.offset, io::Error::last_os_error()));
            }
        }
        if let Some(fd) = self.fd.take() {
            fd.close().map_err(|e| map_io("close", &self.path, self.offset, e))?;
        }
        let counters = vec![
            ("bytes_written".into(), self.offset),
            ("pwrite_calls".into(), self.pwrite_calls),
            ("short_writes".into(), self.short_writes),
            ("sync_file_range_calls".into(), self.sync_file_range_calls),
            ("fdatasync_calls".into(), self.fdatasync_calls),
            ("fsync_calls".into(), fsync_calls),
        ];
        Ok(Closed { counters, parts: Vec::new() })
    }

    fn abort(mut self: Box<Self>) -> Result<(), StoreError> {
        if let Some(len) = self.appended_to {
            // SAFETY: ftruncate on the open descriptor.
            let r = unsafe { libc::ftruncate(self.fd(), len as libc::off_t) };
            drop(self.fd.take());
            return if r == 0 { Ok(()) } else { Err(map_io("truncate", &self.path, len, io::Error::last_os_error())) };
        }
        drop(self.fd.take());
        std::fs::remove_file(&self.path).map_err(|e| map_io("delete", &self.path, 0, e))
    }
}

struct LocalRead {
    fd: Fd,
    prefetch: Option<Prefetch>,
    advised_to: u64,
    fadvise_calls: u64,
    path: String,
    len: u64,
    pos: u64,
    direct: bool,
    pread_calls: u64,
    read_calls: u64,
    bytes: u64,
}

impl LocalRead {
    fn fill(&mut self, offset: Option<u64>, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        let start_at = offset.unwrap_or(self.pos);
        if self.direct {
            check_aligned(&self.path, buf, start_at)?;
        }
        let mut done = 0usize;
        let mut first_byte = None;
        while done < buf.len() {
            let rest = &mut buf[done..];
            // SAFETY: rest is a valid writable slice; fd is open.
            let n = unsafe {
                match offset {
                    Some(o) => {
                        self.pread_calls += 1;
                        libc::pread(self.fd.0, rest.as_mut_ptr().cast(), rest.len(), (o + done as u64) as libc::off_t)
                    }
                    None => {
                        self.read_calls += 1;
                        libc::read(self.fd.0, rest.as_mut_ptr().cast(), rest.len())
                    }
                }
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(map_io("read", &self.path, start_at + done as u64, e));
            }
            if n == 0 {
                break;
            }
            first_byte.get_or_insert_with(Instant::now);
            done += n as usize;
            if self.direct && done % aligned::ALIGN != 0 {
                break; // a short O_DIRECT read means end of file
            }
        }
        if offset.is_none() {
            self.pos += done as u64;
        }
        self.bytes += done as u64;
        Ok(ReadInfo { bytes: done, first_byte: first_byte.unwrap_or_else(Instant::now) })
    }
}

impl ReadStream for LocalRead {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        if let Some(p) = self.prefetch {
            // Ask the kernel to read the next blocks now (readahead into the page cache).
            let want = p.window_end(offset, self.len);
            let from = self.advised_to.max(offset);
            if want > from && !self.direct {
                // SAFETY: advisory syscall on an open descriptor.
                unsafe {
                    libc::posix_fadvise(
                        self.fd.0,
                        from as libc::off_t,
                        (want - from) as libc::off_t,
                        libc::POSIX_FADV_WILLNEED,
                    )
                };
                self.fadvise_calls += 1;
                self.advised_to = want;
            }
        }
        self.fill(Some(offset), buf)
    }
    fn read_next(&mut self, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        self.fill(None, buf)
    }
    fn close(self: Box<Self>) -> Result<Counters, StoreError> {
        let this = *self;
        let counters = vec![
            ("bytes_read".into(), this.bytes),
            ("pread_calls".into(), this.pread_calls),
            ("read_calls".into(), this.read_calls),
            ("fadvise_willneed_calls".into(), this.fadvise_calls),
        ];
        let path = this.path.clone();
        this.fd.close().map_err(|e| map_io("close", &path, 0, e))?;
        Ok(counters)
    }
}

impl Store for LocalStore {
    fn url(&self) -> String {
        "file://".into()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            writable: true,
            direct_io: true,
            hflush: true,
            append: true,
            atomic_rename: true,
            directories: true,
            conditional_create: true,
            vectored_read: false,
            prefetch: true,
            in_memory: false,
            page_cache: true,
        }
    }

    fn engine(&self, direct: bool) -> String {
        if direct {
            "pread/pwrite, O_DIRECT (page cache bypassed)".into()
        } else {
            "pread/pwrite, page cache".into()
        }
    }

    fn create(&self, path: &str, opts: &WriteOptions) -> Result<Box<dyn WriteStream>, StoreError> {
        self.counts.creates.inc();
        // A new file is created exclusively (O_EXCL also refuses a symbolic link planted at the name).
        // --overwrite replaces a regular file only: the handle is checked before it is truncated.
        let mut flags = libc::O_WRONLY | libc::O_CREAT;
        if !opts.overwrite {
            flags |= libc::O_EXCL;
        }
        if opts.direct {
            flags |= libc::O_DIRECT;
        }
        let fd = match open_regular(path, flags | libc::O_NOFOLLOW) {
            Ok((fd, _)) => fd,
            Err(NotOpened::Os(e)) if opts.direct && e.raw_os_error() == Some(libc::EINVAL) => {
                // Linux creates the file before it checks O_DIRECT. With O_EXCL the file that now
                // exists was created by this call, so it is ours to remove; with --overwrite it was there.
                if !opts.overwrite {
                    let _ = std::fs::remove_file(path);
                }
                return Err(direct_refused(path, &e));
            }
            Err(e) => return Err(e.into_store("create", path, false)),
        };
        if opts.overwrite {
            // SAFETY: ftruncate on the open regular file.
            if unsafe { libc::ftruncate(fd.0, 0) } != 0 {
                return Err(map_io("truncate", path, 0, io::Error::last_os_error()));
            }
        }
        Ok(Box::new(LocalWrite {
            fd: Some(fd),
            path: path.to_string(),
            offset: 0,
            flushed_to: 0,
            direct: opts.direct,
            fsync_on_close: opts.fsync_on_close,
            pwrite_calls: 0,
            short_writes: 0,
            sync_file_range_calls: 0,
            fdatasync_calls: 0,
            appended_to: None,
        }))
    }

    fn append(&self, path: &str) -> Result<Box<dyn WriteStream>, StoreError> {
        self.counts.opens.inc();
        let (fd, st) = open_regular(path, libc::O_WRONLY | libc::O_NOFOLLOW)
            .map_err(|e| e.into_store("append to", path, false))?;
        let len = st.st_size as u64;
        Ok(Box::new(LocalWrite {
            fd: Some(fd),
            path: path.to_string(),
            offset: len,
            flushed_to: len,
            direct: false,
            fsync_on_close: false,
            pwrite_calls: 0,
            short_writes: 0,
            sync_file_range_calls: 0,
            fdatasync_calls: 0,
            appended_to: Some(len),
        }))
    }

    fn open(&self, path: &str, opts: &ReadOptions) -> Result<Box<dyn ReadStream>, StoreError> {
        self.counts.opens.inc();
        let mut flags = libc::O_RDONLY;
        if opts.direct {
            flags |= libc::O_DIRECT;
        }
        // Reads may go through a symbolic link the user named (a dataset's link), but only to a
        // regular file: a FIFO or device would block or never end.
        let (fd, st) = open_regular(path, flags).map_err(|e| e.into_store("open", path, opts.direct))?;
        if opts.sequential {
            // SAFETY: advisory syscall on an open descriptor; failure is harmless.
            unsafe { libc::posix_fadvise(fd.0, 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
        }
        Ok(Box::new(LocalRead {
            fd,
            prefetch: opts.prefetch,
            advised_to: 0,
            fadvise_calls: 0,
            path: path.to_string(),
            len: st.st_size as u64,
            pos: 0,
            direct: opts.direct,
            pread_calls: 0,
            read_calls: 0,
            bytes: 0,
        }))
    }

    fn stat(&self, path: &str) -> Result<Option<Meta>, StoreError> {
        match std::fs::metadata(path) {
            Ok(m) => Ok(Some(Meta { size: if m.is_dir() { 0 } else { m.len() }, is_dir: m.is_dir() })),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(map_io("stat", path, 0, e)),
        }
    }

    fn list(&self, dir: &str) -> Result<Vec<String>, StoreError> {
        let rd = std::fs::read_dir(dir).map_err(|e| map_io("list", dir, 0, e))?;
        let mut names = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|e| map_io("list", dir, 0, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), StoreError> {
        self.counts.renames.inc();
        let (cf, ct) = (cpath(from)?, cpath(to)?);
        // RENAME_NOREPLACE: never clobber a file storebench did not create.
        // SAFETY: valid NUL-terminated paths.
        let r = unsafe {
            libc::renameat2(libc::AT_FDCWD, cf.as_ptr(), libc::AT_FDCWD, ct.as_ptr(), libc::RENAME_NOREPLACE)
        };
        if r != 0 {
            let e = io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::EEXIST) => StoreError::Failed {
                    op: "rename",
                    path: format!("{from} -> {to}"),
                    detail: format!("{to} already exists and storebench will not replace it"),
                },
                _ => map_io("rename", from, 0, e),
            });
        }
        Ok(())
    }

    fn delete(&self, path: &str) -> Result<(), StoreError> {
        self.counts.deletes.inc();
        // Only regular files: never a device node, a FIFO, a socket, or a symbolic link.
        let m = std::fs::symlink_metadata(path).map_err(|e| map_io("delete", path, 0, e))?;
        use std::os::unix::fs::MetadataExt;
        if let Some(kind) = not_regular(m.mode() as libc::mode_t) {
            return Err(refused("delete", path, kind));
        }
        std::fs::remove_file(path).map_err(|e| map_io("delete", path, 0, e))
    }

    fn free_space(&self, path: &str) -> Option<u64> {
        // The path itself when it is a directory, else its parent ("." for a bare name).
        let p = Path::new(path);
        let dir =
            if p.is_dir() { p } else { p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")) };
        let c = CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: a zeroed statvfs is a valid out-parameter; c is NUL-terminated.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 || st.f_blocks == 0 {
            // No figure (ramfs and some pseudo filesystems report no blocks at all).
            return None;
        }
        Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
    }

    fn check_replaceable(&self, path: &str) -> Result<(), StoreError> {
        use std::os::unix::fs::MetadataExt;
        match std::fs::symlink_metadata(path) {
            // A directory is never replaced either: `create` fails on it by itself.
            Ok(m) if m.is_dir() => Ok(()),
            Ok(m) => match not_regular(m.mode() as libc::mode_t) {
                Some(kind) => Err(refused("overwrite", path, kind)),
                None => Ok(()),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(map_io("stat", path, 0, e)),
        }
    }

    fn create_dir(&self, path: &str) -> Result<(), StoreError> {
        std::fs::create_dir(path).map_err(|e| map_io("create directory", path, 0, e))
    }

    fn remove_dir(&self, path: &str) -> Result<(), StoreError> {
        std::fs::remove_dir(path).map_err(|e| map_io("remove directory", path, 0, e))
    }

    fn resident_bytes(&self, path: &str, len: u64) -> Option<u64> {
        let (fd, st) = open_regular(path, libc::O_RDONLY | libc::O_NOFOLLOW).ok()?;
        let len = len.min(st.st_size as u64);
        if len == 0 {
            return Some(0);
        }
        fd::resident(&fd, len).ok()
    }

    fn evict(&self, path: &str) -> Result<(), StoreError> {
        // Never through a link, never a device: a regular file, opened read-only.
        let (fd, _) =
            open_regular(path, libc::O_RDONLY | libc::O_NOFOLLOW).map_err(|e| e.into_store("evict", path, false))?;
        // SAFETY: calls on the open descriptor.
        let (synced, advised) =
            unsafe { (libc::fsync(fd.0), libc::posix_fadvise(fd.0, 0, 0, libc::POSIX_FADV_DONTNEED)) };
        if synced != 0 {
            return Err(map_io("fsync before evicting", path, 0, io::Error::last_os_error()));
        }
        if advised != 0 {
            return Err(map_io("evict", path, 0, io::Error::from_raw_os_error(advised)));
        }
        Ok(())
    }

    fn counters(&self) -> Counters {
        self.counts.list()
    }
}
