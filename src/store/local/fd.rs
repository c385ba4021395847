//! File descriptors and the checks on them: opening without following links, refusing anything but
//! regular files (checked with fstat on the opened handle), and turning OS errors into store errors.

use crate::store::{aligned, StoreError};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

pub(super) fn cpath(path: &str) -> Result<CString, StoreError> {
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

pub(super) fn direct_refused(path: &str, e: &io::Error) -> StoreError {
    StoreError::Unsupported(format!(
        "the filesystem holding {path} refuses O_DIRECT ({e}); use a filesystem that supports it (ext4, xfs, btrfs) or drop --direct"
    ))
}

pub(super) fn check_aligned(path: &str, buf: &[u8], offset: u64) -> Result<(), StoreError> {
    let a = aligned::ALIGN;
    if buf.as_ptr() as usize % a != 0 || buf.len() % a != 0 || offset % a as u64 != 0 {
        return Err(StoreError::Unsupported(format!(
            "O_DIRECT I/O on {path} needs buffers, lengths and offsets aligned to {a} bytes (got length {} at offset {offset})",
            buf.len()
        )));
    }
    Ok(())
}

pub(super) struct Fd(pub(super) libc::c_int);

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
    pub(super) fn close(mut self) -> io::Result<()> {
        let fd = std::mem::replace(&mut self.0, -1);
        // SAFETY: we own the descriptor and close it once.
        if unsafe { libc::close(fd) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

pub(super) fn open_fd(path: &str, flags: libc::c_int) -> io::Result<Fd> {
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

pub(super) fn fstat(fd: &Fd) -> io::Result<libc::stat> {
    // SAFETY: a zeroed stat is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fd is open and st is writable.
    if unsafe { libc::fstat(fd.0, &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

/// Why [`open_regular`] did not give a handle: the OS's error, or what the path turned out to be.
pub(super) enum NotOpened {
    /// The open or fstat failed.
    Os(io::Error),
    /// The path is not a regular file: a directory, a link, a FIFO, a device...
    Kind(&'static str),
}

impl NotOpened {
    /// The store error for operation `op` on `path`; `direct` reads EINVAL as the filesystem
    /// refusing O_DIRECT.
    pub(super) fn into_store(self, op: &'static str, path: &str, direct: bool) -> StoreError {
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
pub(super) fn open_regular(path: &str, flags: libc::c_int) -> Result<(Fd, libc::stat), NotOpened> {
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
pub(super) fn refused(op: &'static str, path: &str, kind: &str) -> StoreError {
    StoreError::Failed {
        op,
        path: path.into(),
        detail: format!("it is {kind}; storebench reads, writes and deletes regular files only"),
    }
}

/// How many of the first `len` bytes of the open file are in the page cache: mincore over a read-only
/// mapping, 1 GiB at a time (so the page vector stays under 256 KiB).
pub(super) fn resident(fd: &Fd, len: u64) -> io::Result<u64> {
    const WINDOW: u64 = 1 << 30;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    let mut resident = 0u64;
    let mut off = 0u64;
    while off < len {
        let n = (len - off).min(WINDOW);
        // SAFETY: a fresh read-only shared mapping of n bytes of an open file at a page-aligned offset;
        // unmapped below before anything else uses it.
        let addr = unsafe {
            libc::mmap(std::ptr::null_mut(), n as usize, libc::PROT_READ, libc::MAP_SHARED, fd.0, off as libc::off_t)
        };
        if addr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let pages = n.div_ceil(page) as usize;
        let mut vec = vec![0u8; pages];
        // SAFETY: addr maps n bytes; vec holds one byte per page of them.
        let r = unsafe { libc::mincore(addr, n as usize, vec.as_mut_ptr()) };
        let err = io::Error::last_os_error();
        // SAFETY: unmapping exactly the mapping made above.
        unsafe { libc::munmap(addr, n as usize) };
        if r != 0 {
            return Err(err);
        }
        for (i, v) in vec.iter().enumerate() {
            if v & 1 == 1 {
                resident += page.min(n - i as u64 * page);
            }
        }
        off += n;
    }
    Ok(resident)
}
