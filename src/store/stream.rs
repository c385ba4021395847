//! What the asynchronous clients (object stores, HDFS) share: copying a stream of byte chunks into
//! the caller's buffer, keeping what did not fit for the next call.

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use std::time::Instant;
use tokio::runtime::Runtime;

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
