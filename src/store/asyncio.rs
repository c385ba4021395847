//! What the asynchronous clients (object stores, HDFS) share: the one tokio runtime they all run on,
//! and handing a stream of byte chunks to a reader, a buffer's worth at a time ([`drain`], with
//! [`copy_into`] for readers that want the bytes in their buffer), keeping what did not fit for the
//! next call.

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::runtime::Runtime;

/// Worker threads of the shared runtime: the clients' network I/O, not the benchmark's own threads
/// (which block on it).
const IO_THREADS: usize = 2;

/// The runtime every asynchronous store's client runs on, started on first use and kept for the
/// process: two stores (a transfer's source and destination, a run on S3 and HDFS) share its threads.
pub fn runtime() -> Result<Arc<Runtime>, String> {
    static SHARED: Mutex<Option<Arc<Runtime>>> = Mutex::new(None);
    let mut shared = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(rt) = shared.as_ref() {
        return Ok(rt.clone());
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(IO_THREADS)
        .enable_all()
        .thread_name("storebench-io")
        .build()
        .map_err(|e| format!("cannot start the I/O runtime of the store clients: {e}"))?;
    let rt = Arc::new(rt);
    *shared = Some(rt.clone());
    Ok(rt)
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
    fn drain_hands_over_pieces_up_to_max_and_keeps_the_rest() {
        let rt = runtime().unwrap();
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
        let rt = runtime().unwrap();
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
