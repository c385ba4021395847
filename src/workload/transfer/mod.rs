//! `transfer`: file data to a socket (or another file) by copying through a buffer or by zero-copy
//! paths, judged on the CPU each path costs (HADOOP-3164: DataNodes serving blocks with
//! FileChannel.transferTo, i.e. sendfile, spent about 80 % less CPU than read-into-buffer-then-write).
//!
//! The sender runs on its own thread and its CPU is that thread's (getrusage RUSAGE_THREAD), so neither
//! the receiver nor the harness is counted. The receiver (in-process on 127.0.0.1, or `--serve` on
//! another host) discards the bytes with splice to /dev/null, or reads and checksums them with
//! `--verify`, and answers with the bytes it got, their CRC32 and its own thread's CPU.

use crate::stats::cpu::CpuTimes;
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod receive;
pub use receive::{receive, serve, Receipt};

/// The longest wait for a receiver to accept a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The default wait for a silent peer (`--timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The ways data can go from a file to a socket (or a file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// read(2) into a user buffer, then write(2) it: two copies through user space.
    ReadWrite,
    /// sendfile(2): the kernel moves page-cache pages to the socket (Java's transferTo).
    Sendfile,
    /// splice(2) from the file into a pipe and from the pipe into the socket (or file).
    Splice,
    /// mmap(2) the file and write(2) from the mapping: one copy, no read.
    Mmap,
    /// io_uring: read and send submitted through the ring.
    IoUring,
    /// copy_file_range(2) (file to file only): the kernel copies, or reflinks.
    CopyFileRange,
    /// Every method that applies.
    All,
}

impl Method {
    /// The method's name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Method::ReadWrite => "read-write",
            Method::Sendfile => "sendfile",
            Method::Splice => "splice",
            Method::Mmap => "mmap",
            Method::IoUring => "io-uring",
            Method::CopyFileRange => "copy-file-range",
            Method::All => "all",
        }
    }

    /// Whether the buffer size changes how the method works (read-write's buffer; others move
    /// `CHUNK` per call).
    pub fn uses_buffer(self) -> bool {
        self == Method::ReadWrite
    }
}

/// Bytes per call of the methods whose buffer is not the user's (sendfile, splice, mmap, io-uring).
pub const CHUNK: usize = 1 << 20;

/// An open source file.
pub struct Source {
    /// The file.
    pub file: std::fs::File,
    /// Its length.
    pub len: u64,
    /// Its path, for messages.
    pub path: String,
}

impl Source {
    /// Opens the file to send: a regular, non-empty file (a directory, FIFO, device or an empty file
    /// such as those of /proc is refused, naming what it is). `direct` reads it with O_DIRECT.
    pub fn open(path: &std::path::Path, direct: bool) -> Result<Source, String> {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY;
        if direct {
            flags |= libc::O_DIRECT;
        }
        let shown = path.display();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(path)
            .map_err(|e| format!("cannot open {shown}: {e}"))?;
        let meta = file.metadata().map_err(|e| format!("cannot stat {shown}: {e}"))?;
        use std::os::unix::fs::MetadataExt;
        if let Some(kind) = crate::store::local::not_regular(meta.mode() as libc::mode_t) {
            return Err(format!("{shown} is {kind}: give a regular file to send"));
        }
        if meta.len() == 0 {
            return Err(format!(
                "{shown} is empty (files of /proc and /sys say 0 bytes too): give a file with data, or leave FILE out to send a --size test file"
            ));
        }
        crate::store::local::set_blocking(file.as_raw_fd());
        Ok(Source { file, len: meta.len(), path: shown.to_string() })
    }
}

/// Makes the test file of `size` bytes under a fresh name in the temporary directory, created
/// exclusively (never through a planted link). Stops when `stop` is set; the partial file is removed
/// on any failure.
pub fn make_test_file(size: u64, stop: &AtomicBool) -> Result<std::path::PathBuf, String> {
    let p = std::env::temp_dir().join(format!("{}.transfer", super::bandwidth::unique_name()));
    let pattern = super::data::DataPattern::new(1 << 20, 0x5EED);
    let mut buf = pattern.buffer();
    let write = (|| -> io::Result<()> {
        let mut f = crate::store::local::create_new_file(&p)?;
        let mut left = size;
        let mut i = 0;
        while left > 0 {
            if stop.load(Ordering::Relaxed) {
                return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
            }
            pattern.stamp(&mut buf, i);
            let n = left.min(1 << 20) as usize;
            f.write_all(&buf[..n])?;
            left -= n as u64;
            i += 1;
        }
        f.sync_all()
    })();
    match write {
        Ok(()) => Ok(p),
        Err(e) => {
            if e.kind() != io::ErrorKind::AlreadyExists {
                let _ = std::fs::remove_file(&p);
            }
            Err(format!("cannot make the {size}-byte test file {}: {e}", p.display()))
        }
    }
}

fn sys(r: libc::ssize_t) -> io::Result<usize> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// A failure while moving bytes: how many got through first.
#[derive(Debug)]
pub struct Broken {
    /// Bytes the destination accepted before the error.
    pub sent: u64,
    /// The error.
    pub error: io::Error,
}

/// Writes all of `buf` to `fd` (a socket or file).
fn write_all(fd: i32, mut buf: &[u8], sent: &mut u64) -> Result<(), Broken> {
    while !buf.is_empty() {
        // SAFETY: buf is valid for buf.len() bytes.
        match sys(unsafe { libc::write(fd, buf.as_ptr() as *const libc::c_void, buf.len()) }) {
            Ok(0) => return Err(Broken { sent: *sent, error: io::ErrorKind::WriteZero.into() }),
            Ok(n) => {
                buf = &buf[n..];
                *sent += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Broken { sent: *sent, error: e }),
        }
    }
    Ok(())
}

/// Moves the whole source to `out` (a connected socket or an open file) with `method`.
/// Returns Ok(None) when the method is not available here, with why.
pub fn send(
    src: &Source,
    out: i32,
    method: Method,
    buffer: usize,
    direct: bool,
) -> Result<Result<u64, String>, Broken> {
    let fd = src.file.as_raw_fd();
    let len = src.len;
    let mut sent = 0u64;
    match method {
        Method::ReadWrite => {
            let mut buf = crate::store::aligned::AlignedBuf::new(buffer);
            let mut off = 0u64;
            while off < len {
                let want = buffer.min((len - off) as usize);
                let want = if direct { want.next_multiple_of(4096).min(buffer) } else { want };
                // SAFETY: buf holds `buffer` >= want bytes.
                let n = match sys(unsafe { libc::pread(fd, buf.as_mut_ptr() as *mut libc::c_void, want, off as i64) }) {
                    Ok(0) => break,
                    Ok(n) => n.min((len - off) as usize),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(Broken { sent, error: e }),
                };
                write_all(out, &buf[..n], &mut sent)?;
                off += n as u64;
            }
        }
        Method::Sendfile => {
            let mut off: libc::off_t = 0;
            while (off as u64) < len {
                let n = CHUNK.min((len - off as u64) as usize);
                // SAFETY: off is a valid in/out offset.
                match sys(unsafe { libc::sendfile(out, fd, &mut off, n) }) {
                    Ok(0) => break,
                    Ok(n) => sent += n as u64,
                    Err(e) if e.raw_os_error() == Some(libc::EINVAL) && sent == 0 => {
                        return Ok(Err(format!("sendfile refused this file or destination: {e}")))
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(Broken { sent, error: e }),
                }
            }
        }
        Method::Splice => {
            let mut p = [0i32; 2];
            // SAFETY: p is writable.
            if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
                return Ok(Err(format!("no pipe for splice: {}", io::Error::last_os_error())));
            }
            let (r, w) = (p[0], p[1]);
            // SAFETY: w is our pipe's write end; a larger pipe means fewer calls (best effort).
            unsafe { libc::fcntl(w, libc::F_SETPIPE_SZ, CHUNK as i32) };
            let result = (|| {
                let mut off: libc::loff_t = 0;
                while (off as u64) < len {
                    let n = CHUNK.min((len - off as u64) as usize);
                    // SAFETY: valid fds and offset pointer.
                    let got = match sys(unsafe {
                        libc::splice(fd, &mut off, w, std::ptr::null_mut(), n, libc::SPLICE_F_MOVE)
                    }) {
                        Ok(0) => break,
                        Ok(g) => g,
                        Err(e) if e.raw_os_error() == Some(libc::EINVAL) && sent == 0 => {
                            return Ok(Err(format!("splice refused this file: {e}")))
                        }
                        Err(e) => return Err(Broken { sent, error: e }),
                    };
                    let mut left = got;
                    while left > 0 {
                        // SAFETY: valid fds.
                        match sys(unsafe {
                            libc::splice(r, std::ptr::null_mut(), out, std::ptr::null_mut(), left, libc::SPLICE_F_MOVE)
                        }) {
                            Ok(0) => return Err(Broken { sent, error: io::ErrorKind::WriteZero.into() }),
                            Ok(m) => {
                                left -= m;
                                sent += m as u64;
                            }
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(e) => return Err(Broken { sent, error: e }),
                        }
                    }
                }
                Ok(Ok(sent))
            })();
            // SAFETY: closing our own pipe.
            unsafe {
                libc::close(r);
                libc::close(w);
            }
            return result;
        }
        Method::Mmap => {
            if len == 0 {
                return Ok(Ok(0));
            }
            // SAFETY: a read-only private mapping of an open file of `len` bytes.
            let map =
                unsafe { libc::mmap(std::ptr::null_mut(), len as usize, libc::PROT_READ, libc::MAP_SHARED, fd, 0) };
            if map == libc::MAP_FAILED {
                return Ok(Err(format!("mmap refused this file: {}", io::Error::last_os_error())));
            }
            // SAFETY: the mapping is `len` bytes and lives until munmap below.
            let bytes = unsafe { std::slice::from_raw_parts(map as *const u8, len as usize) };
            let r = bytes.chunks(CHUNK).try_for_each(|c| write_all(out, c, &mut sent));
            // SAFETY: unmapping what we mapped.
            unsafe { libc::munmap(map, len as usize) };
            r?;
        }
        Method::IoUring => return uring_send(fd, out, len),
        Method::CopyFileRange => {
            let (mut off_in, mut off_out): (libc::loff_t, libc::loff_t) = (0, 0);
            while (off_in as u64) < len {
                let n = CHUNK.min((len - off_in as u64) as usize);
                // SAFETY: valid fds and offset pointers.
                match sys(unsafe { libc::copy_file_range(fd, &mut off_in, out, &mut off_out, n, 0) }) {
                    Ok(0) => break,
                    Ok(n) => sent += n as u64,
                    Err(e)
                        if sent == 0
                            && matches!(
                                e.raw_os_error(),
                                Some(libc::EXDEV | libc::ENOSYS | libc::EINVAL | libc::EOPNOTSUPP)
                            ) =>
                    {
                        return Ok(Err(format!("copy_file_range refused these files: {e}")))
                    }
                    Err(e) => return Err(Broken { sent, error: e }),
                }
            }
        }
        Method::All => return Ok(Err("'all' is not one method".into())),
    }
    Ok(Ok(sent))
}

/// io_uring: each chunk is read into a buffer through the ring, then sent through the ring.
fn uring_send(fd: i32, out: i32, len: u64) -> Result<Result<u64, String>, Broken> {
    use io_uring::{opcode, types, IoUring};
    let mut ring = match IoUring::new(4) {
        Ok(r) => r,
        Err(e) => return Ok(Err(format!("io_uring is not available here: {e}"))),
    };
    let mut buf = vec![0u8; CHUNK];
    let mut sent = 0u64;
    let mut off = 0u64;
    let submit = |ring: &mut IoUring, e: io_uring::squeue::Entry| -> io::Result<i32> {
        // SAFETY: the buffers the entry points to outlive the wait below.
        unsafe { ring.submission().push(&e).map_err(|_| io::Error::other("submission queue full"))? };
        ring.submit_and_wait(1)?;
        let cqe = ring.completion().next().ok_or_else(|| io::Error::other("no completion"))?;
        if cqe.result() < 0 {
            Err(io::Error::from_raw_os_error(-cqe.result()))
        } else {
            Ok(cqe.result())
        }
    };
    while off < len {
        let want = CHUNK.min((len - off) as usize);
        let read = opcode::Read::new(types::Fd(fd), buf.as_mut_ptr(), want as u32).offset(off).build();
        let n = match submit(&mut ring, read) {
            Ok(0) => break,
            Ok(n) => n as usize,
            Err(e) if sent == 0 && matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS | libc::EPERM)) => {
                return Ok(Err(format!("io_uring refused a read: {e}")))
            }
            Err(e) => return Err(Broken { sent, error: e }),
        };
        let mut at = 0;
        while at < n {
            let s = opcode::Send::new(types::Fd(out), buf[at..].as_ptr(), (n - at) as u32).build();
            match submit(&mut ring, s) {
                Ok(0) => return Err(Broken { sent, error: io::ErrorKind::WriteZero.into() }),
                Ok(m) => {
                    at += m as usize;
                    sent += m as u64;
                }
                Err(e) if e.raw_os_error() == Some(libc::ENOTSOCK) && sent == 0 => {
                    return Ok(Err("io_uring send needs a socket".into()))
                }
                Err(e) => return Err(Broken { sent, error: e }),
            }
        }
        off += n as u64;
    }
    Ok(Ok(sent))
}

/// The header a sender writes before the data: magic, length, whether to checksum.
const MAGIC: &[u8; 4] = b"SBX1";

/// What a run to a socket gives: the bytes (or why the method is unavailable), the wall time, the
/// sending thread's CPU and the receiver's receipt.
pub type SocketRun = (Result<u64, String>, f64, CpuTimes, Option<f64>, Option<Receipt>);

/// One run of `method` from `src` to the receiver at `to`.
pub fn to_socket(
    src: &Source,
    to: SocketAddr,
    method: Method,
    buffer: usize,
    direct: bool,
    verify: bool,
    timeout: Duration,
) -> Result<SocketRun, String> {
    let mut s = TcpStream::connect_timeout(&to, timeout.min(CONNECT_TIMEOUT)).map_err(|e| {
        if e.kind() == io::ErrorKind::TimedOut {
            format!("no answer from the receiver at {to} in {} s (connecting)", timeout.min(CONNECT_TIMEOUT).as_secs())
        } else {
            format!("cannot connect to the receiver at {to}: {e}")
        }
    })?;
    let _ = s.set_nodelay(true);
    // A receiver that stops taking bytes, or never confirms them, is given up on after `timeout`.
    let _ = s.set_write_timeout(Some(timeout));
    let _ = s.set_read_timeout(Some(timeout));
    let silent = |e: &io::Error| matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut);
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&src.len.to_le_bytes());
    header.push(verify as u8);
    s.write_all(&header).map_err(|e| format!("the receiver at {to} dropped the connection: {e}"))?;
    let start = Instant::now();
    let (cpu0, wait0) = (CpuTimes::thread(), crate::run::thread_cpu_wait_s());
    let r = send(src, s.as_raw_fd(), method, buffer, direct);
    let cpu = CpuTimes::thread().since(cpu0);
    let wait = crate::run::thread_cpu_wait_since(wait0);
    let outcome = match r {
        Ok(o) => o,
        Err(b) if silent(&b.error) => {
            return Err(format!(
                "{}: no answer from the receiver at {to} in {} s (--timeout) after {} of {} bytes",
                method.name(),
                timeout.as_secs(),
                b.sent,
                src.len
            ))
        }
        Err(b) => {
            return Err(format!(
                "{}: the receiver at {to} dropped the connection after {} of {} bytes: {}",
                method.name(),
                b.sent,
                src.len,
                b.error
            ))
        }
    };
    if outcome.is_err() {
        return Ok((outcome, 0.0, cpu, wait, None));
    }
    let mut answer = [0u8; 28];
    s.read_exact(&mut answer).map_err(|e| {
        if silent(&e) {
            format!(
                "{}: no answer from the receiver at {to} in {} s (--timeout): it did not confirm the {} bytes",
                method.name(),
                timeout.as_secs(),
                src.len
            )
        } else {
            format!("{}: the receiver at {to} did not confirm the {} bytes: {e}", method.name(), src.len)
        }
    })?;
    let wall = start.elapsed().as_secs_f64();
    let n = |i: usize| u64::from_le_bytes(answer[i..i + 8].try_into().unwrap_or_default());
    let receipt = Receipt {
        bytes: n(0),
        crc32: u32::from_le_bytes(answer[8..12].try_into().unwrap_or_default()),
        cpu: CpuTimes { user_s: n(12) as f64 / 1e6, system_s: n(20) as f64 / 1e6 },
    };
    if receipt.bytes != src.len {
        return Err(format!("{}: the receiver at {to} got {} of {} bytes", method.name(), receipt.bytes, src.len));
    }
    Ok((outcome, wall, cpu, wait, Some(receipt)))
}

/// CRC32 of a whole file.
pub fn file_crc(path: &std::path::Path) -> io::Result<u32> {
    let mut f = std::fs::File::open(path)?;
    let mut h = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(h.finalize());
        }
        h.update(&buf[..n]);
    }
}
