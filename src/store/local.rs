//! The native local engine: `file://` URLs and plain paths.
//!
//! Writes are positioned `pwrite(2)` calls and reads `pread(2)` (or `read(2)` for one streaming read)
//! straight from the caller's buffer: no user-space buffering, no allocation per call. `--direct` opens
//! with O_DIRECT and fails clearly where the filesystem refuses it; it never falls back silently.
//! `flush` starts writeback of the data written since the last flush (sync_file_range WRITE); `hflush`
//! is fdatasync.

use super::*;
use crate::store::counters::counter_set;
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

fn cpath(path: &str) -> Result<CString, StoreError> {
    CString::new(Path::new(path).as_os_str().as_bytes()).map_err(|_| StoreError::Failed {
        op: "open",
        path: path.into(),
        detail: "path contains a NUL byte".into(),
    })
}

/// Folds an OS error into a store error naming the operation and path.
pub fn map_io(op: &'static str, path: &str, offset: u64, e: io::Error) -> StoreError {
    match e.raw_os_error() {
        Some(libc::ENOENT) => StoreError::NotFound { path: path.into() },
        Some(libc::EEXIST) => StoreError::AlreadyExists { path: path.into() },
        Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS) => {
            StoreError::PermissionDenied { op, path: path.into(), detail: e.to_string() }
        }
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => StoreError::NoSpace { op, path: path.into(), offset },
        _ => StoreError::Failed { op, path: format!("{path} (offset {offset})"), detail: e.to_string() },
    }
}

fn direct_refused(path: &str, e: &io::Error) -> StoreError {
    StoreError::Unsupported(format!(
        "the filesystem holding {path} refuses O_DIRECT ({e}); use a filesystem that supports it (ext4, xfs, btrfs) or drop --direct"
    ))
}

fn check_aligned(path: &str, buf: &[u8], offset: u64) -> Result<(), StoreError> {
    let a = aligned::ALIGN;
    if buf.as_ptr() as usize % a != 0 || buf.len() % a != 0 || offset % a as u64 != 0 {
        return Err(StoreError::Unsupported(format!(
            "O_DIRECT I/O on {path} needs buffers, lengths and offsets aligned to {a} bytes (got length {} at offset {offset})",
            buf.len()
        )));
    }
    Ok(())
}

struct Fd(libc::c_int);

impl Drop for Fd {
    fn drop(&mut self) {
        if self.0 >= 0 {
            // SAFETY: we own the descriptor.
            unsafe { libc::close(self.0) };
        }
    }
}

impl Fd {
    /// Closes the descriptor, reporting errors (NFS and some filesystems report write errors here).
    fn close(mut self) -> io::Result<()> {
        let fd = std::mem::replace(&mut self.0, -1);
        // SAFETY: we own the descriptor and close it once.
        if unsafe { libc::close(fd) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

fn open_fd(path: &str, flags: libc::c_int) -> io::Result<Fd> {
    let c = cpath(path).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: c is a valid NUL-terminated path.
    let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC, 0o644 as libc::c_uint) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Fd(fd))
}

/// What kind of thing a stat mode describes, in words, when it is not a regular file.
pub fn not_regular(mode: libc::mode_t) -> Option<&'static str> {
    match mode & libc::S_IFMT {
        libc::S_IFREG => None,
        libc::S_IFDIR => Some("a directory"),
        libc::S_IFLNK => Some("a symbolic link"),
        libc::S_IFCHR => Some("a character device"),
        libc::S_IFBLK => Some("a block device"),
        libc::S_IFIFO => Some("a FIFO"),
        libc::S_IFSOCK => Some("a socket"),
        _ => Some("not a regular file"),
    }
}

fn fstat(fd: &Fd) -> io::Result<libc::stat> {
    // SAFETY: a zeroed stat is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fd is open and st is writable.
    if unsafe { libc::fstat(fd.0, &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

/// Why [`open_regular`] did not give a handle: the OS's error, or what the path turned out to be.
enum NotOpened {
    /// The open or fstat failed.
    Os(io::Error),
    /// The path is not a regular file: a directory, a link, a FIFO, a device...
    Kind(&'static str),
}

impl NotOpened {
    /// The store error for operation `op` on `path`; `direct` reads EINVAL as the filesystem
    /// refusing O_DIRECT.
    fn into_store(self, op: &'static str, path: &str, direct: bool) -> StoreError {
        match self {
            NotOpened::Os(e) if direct && e.raw_os_error() == Some(libc::EINVAL) => direct_refused(path, &e),
            NotOpened::Os(e) => map_io(op, path, 0, e),
            NotOpened::Kind(kind) => refused(op, path, kind),
        }
    }
}

/// Opens `path` as a regular file, or says why not: never blocking on a FIFO or a device (O_NONBLOCK,
/// cleared once the handle is checked), and the type checked with fstat on the handle itself, so
/// nothing can be swapped in between a check and the open. Callers that write add O_NOFOLLOW, so a
/// symbolic link is refused too.
fn open_regular(path: &str, flags: libc::c_int) -> Result<(Fd, libc::stat), NotOpened> {
    let fd = open_fd(path, flags | libc::O_NONBLOCK | libc::O_NOCTTY).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) if flags & libc::O_NOFOLLOW != 0 => NotOpened::Kind("a symbolic link"),
        // O_WRONLY|O_NONBLOCK on a FIFO without a reader.
        Some(libc::ENXIO) => NotOpened::Kind("a FIFO"),
        Some(libc::EISDIR) => NotOpened::Kind("a directory"),
        _ => NotOpened::Os(e),
    })?;
    let st = fstat(&fd).map_err(NotOpened::Os)?;
    if let Some(kind) = not_regular(st.st_mode) {
        return Err(NotOpened::Kind(kind));
    }
    set_blocking(fd.0);
    Ok((fd, st))
}

/// Turns blocking I/O back on for a descriptor opened with O_NONBLOCK (so that opening a FIFO or a
/// device could not block) once it is known to be a regular file.
pub fn set_blocking(fd: libc::c_int) {
    // SAFETY: fcntl on an open descriptor.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_NONBLOCK);
    }
}

/// Creates a new file that nothing else can have planted: O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600. It
/// fails when anything (a file, a symbolic link, a FIFO) already has the name.
pub fn create_new_file(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .read(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// The error for a path that is not a regular file storebench may use.
fn refused(op: &'static str, path: &str, kind: &str) -> StoreError {
    StoreError::Failed {
        op,
        path: path.into(),
        detail: format!("it is {kind}; storebench reads, writes and deletes regular files only"),
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

    fn counters(&self) -> Counters {
        self.counts.list()
    }
}
