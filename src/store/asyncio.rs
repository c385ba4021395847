//! What the asynchronous clients (object stores, HDFS) share: the one tokio runtime they all run on,
//! and handing a stream of byte chunks to a reader, a buffer's worth at a time ([`drain`], with
//! [`copy_into`] for readers that want the bytes in their buffer), keeping what did not fit for the
//! next call.

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::runtime::Runtime;

use crate::store::config::IO_THREADS_KEY;
/// The most worker threads [`IO_THREADS_KEY`] accepts.
pub const MAX_IO_THREADS: usize = 256;

/// Worker threads of the shared runtime when [`IO_THREADS_KEY`] is not set: half the CPUs this process
/// may run on, at least 1. They carry the clients' network I/O, not the benchmark's own threads (which
/// block on them). More threads than that hand bodies from thread to thread and wake more often for
/// less: on 2 CPUs with 8 GETs of 4 MiB in flight on keep-alive connections (MinIO), 1 thread cost 0.35
/// CPU-s/GiB where 2 cost 0.41-0.52. A server that closes the connection after every answer
/// (versitygw) reads faster with 2 (docs/metrics.md, "The clients' I/O threads").
pub fn default_io_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

/// The worker threads the configuration asks for ([`IO_THREADS_KEY`]), else [`default_io_threads`].
pub fn io_threads(config: &crate::store::StoreConfig) -> Result<usize, String> {
    let Some(v) = config.get(IO_THREADS_KEY) else {
        return Ok(default_io_threads());
    };
    match v.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_IO_THREADS).contains(&n) => Ok(n),
        _ => Err(format!("invalid {IO_THREADS_KEY} '{v}': expected a count of I/O threads from 1 to {MAX_IO_THREADS}")),
    }
}

/// How a store's engine names its runtime's threads: "1 I/O thread", "4 I/O threads".
pub fn io_threads_words(n: usize) -> String {
    format!("{n} I/O thread{}", if n == 1 { "" } else { "s" })
}

/// The runtime every asynchronous store's client runs on, with its worker threads. Started on first use
/// with `threads` workers and kept for the process: two stores (a transfer's source and destination, a
/// run on S3 and HDFS) share its threads, and the first store opened sets their number.
pub fn runtime(threads: usize) -> Result<(Arc<Runtime>, usize), String> {
    static SHARED: Mutex<Option<(Arc<Runtime>, usize)>> = Mutex::new(None);
    let mut shared = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((rt, n)) = shared.as_ref() {
        return Ok((rt.clone(), *n));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .thread_name("storebench-io")
        .build()
        .map_err(|e| format!("cannot start the I/O runtime of the store clients: {e}"))?;
    let rt = Arc::new(rt);
    *shared = Some((rt.clone(), threads));
    Ok((rt, threads))
}

/// Why a [`drain`] stopped before its bytes.
pub enum DrainError<E> {
    /// The stream failed (the store's own error).
    Stream(E),
    /// The task reading it did not finish (the runtime shut down, or it panicked).
    Lost(tokio::task::JoinError),
}

/// A boxed stream of byte chunks, as the asynchronous clients give a body or a file's packets.
pub type Chunks<E> = BoxStream<'static, Result<Bytes, E>>;

/// A sink that copies the pieces it is handed into `buf`, one after the other.
pub fn copy_into(buf: &mut [u8]) -> impl FnMut(&[u8]) + '_ {
    let mut at = 0;
    move |piece: &[u8]| {
        buf[at..at + piece.len()].copy_from_slice(piece);
        at += piece.len();
    }
}

/// Hands `sink` the next `max` bytes (fewer where the stream ends), from `leftover`, then from
/// `stream`, in the pieces the client received them: nothing is copied. What a piece holds past
/// `max` stays in `leftover`. Returns the bytes handed over and when the first of them was available.
///
/// The pieces are gathered by a task on the runtime, next to the connection that receives them, and
/// the calling thread is woken once when they are all there, not once per piece: a thread woken per
/// 64-400 KiB chunk spent a quarter of a GET's CPU switching (docs/metrics.md, "open_read").
pub fn drain<E: Send + 'static>(
    rt: &Runtime,
    stream: &mut Chunks<E>,
    leftover: &mut Bytes,
    max: usize,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<(usize, Option<Instant>), DrainError<E>> {
    let mut done = 0;
    let mut first = None;
    if !leftover.is_empty() {
        first = Some(Instant::now());
        done = leftover.len().min(max);
        sink(&leftover[..done]);
        *leftover = leftover.slice(done..);
    }
    if done == max {
        return Ok((done, first));
    }
    let want = max - done;
    let mut taken = std::mem::replace(stream, futures::stream::empty().boxed());
    let gather = rt.spawn(async move {
        let mut pieces = Vec::new();
        let (mut got, mut arrived, mut rest) = (0, None, Bytes::new());
        let mut failed = None;
        while got < want {
            match taken.next().await {
                Some(Ok(mut b)) => {
                    if b.is_empty() {
                        continue;
                    }
                    arrived.get_or_insert_with(Instant::now);
                    let n = b.len().min(want - got);
                    rest = b.split_off(n);
                    got += n;
                    pieces.push(b);
                }
                Some(Err(e)) => {
                    failed = Some(e);
                    break;
                }
                None => break,
            }
        }
        (taken, pieces, rest, arrived, failed)
    });
    let (back, pieces, rest, arrived, failed) = rt.block_on(gather).map_err(DrainError::Lost)?;
    *stream = back;
    *leftover = rest;
    if let Some(e) = failed {
        return Err(DrainError::Stream(e));
    }
    for p in &pieces {
        sink(p);
        done += p.len();
    }
    Ok((done, first.or(arrived)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(parts: Vec<Result<&'static [u8], &'static str>>) -> Chunks<&'static str> {
        futures::stream::iter(parts.into_iter().map(|p| p.map(Bytes::from_static))).boxed()
    }

    #[test]
    fn io_threads_come_from_the_key_within_bounds_else_half_the_cpus() {
        use crate::store::config::Origin;
        let mut c = crate::store::StoreConfig::default();
        let cpus = std::thread::available_parallelism().unwrap().get();
        assert_eq!(io_threads(&c).unwrap(), (cpus / 2).max(1));
        c.set(IO_THREADS_KEY, "3", Origin::Flag);
        assert_eq!(io_threads(&c).unwrap(), 3);
        assert_eq!((io_threads_words(1), io_threads_words(3)), ("1 I/O thread".into(), "3 I/O threads".into()));
        for bad in ["0", "257", "two", "-1", ""] {
            c.set(IO_THREADS_KEY, bad, Origin::Flag);
            let e = io_threads(&c).unwrap_err();
            assert_eq!(
                e,
                format!("invalid storebench.io.threads '{bad}': expected a count of I/O threads from 1 to 256")
            );
        }
    }

    #[test]
    fn the_first_store_sets_the_runtimes_threads_and_later_ones_share_them() {
        let (a, n) = runtime(2).unwrap();
        let (b, m) = runtime(n + 3).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(m, n);
        assert_eq!(a.metrics().num_workers(), n);
    }

    #[test]
    fn drain_hands_over_pieces_up_to_max_and_keeps_the_rest() {
        let (rt, _) = runtime(2).unwrap();
        let mut s = chunks(vec![Ok(b"0123456789"), Ok(b""), Ok(b"abcdefghij"), Ok(b"XY")]);
        let mut left = Bytes::new();
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        let (n, first) = drain(&rt, &mut s, &mut left, 15, &mut |p| pieces.push(p.to_vec())).ok().unwrap();
        // The first chunk whole, then 5 bytes of the second: no piece is copied or merged.
        assert_eq!((n, pieces.clone()), (15, vec![b"0123456789".to_vec(), b"abcde".to_vec()]));
        assert!(first.is_some());
        assert_eq!(&left[..], b"fghij");
        pieces.clear();
        // The leftover first, then the stream, to its end.
        let (n, _) = drain(&rt, &mut s, &mut left, 100, &mut |p| pieces.push(p.to_vec())).ok().unwrap();
        assert_eq!((n, pieces), (7, vec![b"fghij".to_vec(), b"XY".to_vec()]));
        let (n, first) = drain(&rt, &mut s, &mut left, 100, &mut |_| panic!("nothing is left")).ok().unwrap();
        assert_eq!((n, first), (0, None));
    }

    #[test]
    fn copy_into_fills_a_buffer_and_a_failure_hands_nothing_over() {
        let (rt, _) = runtime(2).unwrap();
        let mut s = chunks(vec![Ok(b"abc"), Ok(b"defg")]);
        let mut left = Bytes::new();
        let mut buf = [0u8; 5];
        assert_eq!(drain(&rt, &mut s, &mut left, 5, &mut copy_into(&mut buf)).ok().unwrap().0, 5);
        assert_eq!(&buf, b"abcde");
        assert_eq!(&left[..], b"fg");
        let mut s = chunks(vec![Ok(b"abc"), Err("reset by peer")]);
        let mut handed = 0;
        match drain(&rt, &mut s, &mut Bytes::new(), 10, &mut |p| handed += p.len()) {
            Err(DrainError::Stream(e)) => assert_eq!(e, "reset by peer"),
            _ => panic!("the stream's error is the drain's"),
        }
        assert_eq!(handed, 0);
    }
}
