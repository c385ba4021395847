//! What the asynchronous clients (object stores, HDFS) share: the one tokio runtime they all run on,
//! and copying a stream of byte chunks into the caller's buffer, keeping what did not fit for the
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

/// Copies from `leftover`, then from `stream`, into `buf` until it is full or the stream ends.
/// Returns the bytes copied and when the first of them was available.
pub fn fill<E>(
    rt: &Runtime,
    stream: &mut BoxStream<'static, Result<Bytes, E>>,
    leftover: &mut Bytes,
    buf: &mut [u8],
) -> Result<(usize, Option<Instant>), E> {
    let mut done = 0;
    let mut first = None;
    while done < buf.len() {
        if leftover.is_empty() {
            match rt.block_on(stream.next()) {
                Some(Ok(b)) => *leftover = b,
                Some(Err(e)) => return Err(e),
                None => break,
            }
            continue;
        }
        first.get_or_insert_with(Instant::now);
        let n = leftover.len().min(buf.len() - done);
        buf[done..done + n].copy_from_slice(&leftover[..n]);
        *leftover = leftover.slice(n..);
        done += n;
    }
    Ok((done, first))
}
