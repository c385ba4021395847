//! The receiving end of `transfer`: in-process on 127.0.0.1, or `--serve` on another host. It reads
//! the sender's header, discards the bytes (splice to /dev/null) or reads and checksums them, and
//! answers with a [`Receipt`]: the bytes it got, their CRC32 and its own thread's CPU.

use super::*;

/// What the receiver answers after the last byte.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Receipt {
    /// Bytes it got.
    pub bytes: u64,
    /// CRC32 of them (0 unless asked).
    pub crc32: u32,
    /// Its thread's CPU while receiving.
    pub cpu: CpuTimes,
}

/// Serves one connection: reads the header, takes the bytes (discarding them with splice to
/// /dev/null, or reading and checksumming them), answers with a [`Receipt`].
pub fn receive(mut s: TcpStream) -> io::Result<Receipt> {
    let mut h = [0u8; 13];
    s.read_exact(&mut h)?;
    if &h[..4] != MAGIC {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "not a storebench transfer sender"));
    }
    let len = u64::from_le_bytes(h[4..12].try_into().unwrap_or_default());
    let verify = h[12] == 1;
    let cpu0 = CpuTimes::thread();
    let mut got = 0u64;
    let mut crc = crc32fast::Hasher::new();
    if verify {
        let mut buf = vec![0u8; 1 << 20];
        while got < len {
            let n = s.read(&mut buf[..((len - got) as usize).min(1 << 20)])?;
            if n == 0 {
                break;
            }
            crc.update(&buf[..n]);
            got += n as u64;
        }
    } else {
        got = discard(&s, len)?;
    }
    let cpu = CpuTimes::thread().since(cpu0);
    let crc32 = crc.finalize();
    let mut answer = Vec::with_capacity(28);
    answer.extend_from_slice(&got.to_le_bytes());
    answer.extend_from_slice(&crc32.to_le_bytes());
    answer.extend_from_slice(&((cpu.user_s * 1e6) as u64).to_le_bytes());
    answer.extend_from_slice(&((cpu.system_s * 1e6) as u64).to_le_bytes());
    s.write_all(&answer)?;
    Ok(Receipt { bytes: got, crc32, cpu })
}

/// The cheapest way to take `len` bytes off a socket: splice them through a pipe to /dev/null
/// (no copy to user space); a plain read when splice is not possible.
fn discard(s: &TcpStream, len: u64) -> io::Result<u64> {
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    let mut p = [0i32; 2];
    // SAFETY: p is writable.
    if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) } == 0 {
        let (r, w) = (p[0], p[1]);
        // SAFETY: our pipe.
        unsafe { libc::fcntl(w, libc::F_SETPIPE_SZ, CHUNK as i32) };
        let mut got = 0u64;
        let result = 'outer: loop {
            if got >= len {
                break Ok(got);
            }
            let n = CHUNK.min((len - got) as usize);
            // SAFETY: valid fds.
            match sys(unsafe {
                libc::splice(s.as_raw_fd(), std::ptr::null_mut(), w, std::ptr::null_mut(), n, libc::SPLICE_F_MOVE)
            }) {
                Ok(0) => break Ok(got),
                Ok(m) => {
                    let mut left = m;
                    while left > 0 {
                        // SAFETY: valid fds.
                        match sys(unsafe {
                            libc::splice(
                                r,
                                std::ptr::null_mut(),
                                null.as_raw_fd(),
                                std::ptr::null_mut(),
                                left,
                                libc::SPLICE_F_MOVE,
                            )
                        }) {
                            Ok(k) => left -= k,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(e) => break 'outer Err(e),
                        }
                    }
                    got += m as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        // SAFETY: closing our own pipe.
        unsafe {
            libc::close(r);
            libc::close(w);
        }
        return result;
    }
    let mut buf = vec![0u8; 1 << 20];
    let mut got = 0u64;
    let mut s = s;
    while got < len {
        let n = s.read(&mut buf[..((len - got) as usize).min(1 << 20)])?;
        if n == 0 {
            break;
        }
        got += n as u64;
    }
    Ok(got)
}

/// Most connections a receiver serves at once; more wait in the kernel's backlog.
pub const MAX_ACTIVE: usize = 64;

/// A receiver on `listener`, serving `max` connections (or until `stop` is set) on this thread. Each
/// connection is served on its own thread, so one idle sender never holds up another; a sender silent
/// for `idle` is dropped. Accepting polls `stop` every [`crate::run::signal::POLL`]. Returns when `max`
/// connections have been served (and finished) or `stop` is set.
pub fn serve(listener: TcpListener, max: Option<u64>, idle: Duration, stop: &AtomicBool) -> io::Result<()> {
    listener.set_nonblocking(true)?;
    let mut handles: Vec<std::thread::JoinHandle<()>> = Vec::new();
    let mut served = 0u64;
    while !max.is_some_and(|m| served >= m) && !stop.load(Ordering::Relaxed) {
        // The connections still being served are the threads that have not finished.
        handles.retain(|h| !h.is_finished());
        if handles.len() >= MAX_ACTIVE {
            std::thread::sleep(crate::run::signal::POLL);
            continue;
        }
        match listener.accept() {
            Ok((s, _)) => {
                served += 1;
                let _ = s.set_nonblocking(false);
                let _ = s.set_read_timeout(Some(idle));
                let _ = s.set_write_timeout(Some(idle));
                handles.push(std::thread::spawn(move || {
                    let _ = receive(s);
                }));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::Interrupted => {
                std::thread::sleep(crate::run::signal::POLL);
            }
            Err(e) => return Err(e),
        }
    }
    // Each connection ends by itself within `idle` of its sender's last byte.
    for h in handles {
        let _ = h.join();
    }
    Ok(())
}
