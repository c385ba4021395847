//! Part buffers that come back after their upload: a multipart upload's parts (and a small object's
//! one buffer) are reused instead of freshly allocated, so no part pays for the kernel mapping and
//! zeroing new pages, which was a quarter of a PUT's CPU (docs/metrics.md, ops, "What a write
//! moves").

use bytes::Bytes;
use std::sync::{Arc, Mutex, Weak};

/// The most bytes of idle buffers kept for reuse; more are freed. The pool never holds more than
/// the run had in flight at once, so this only bounds an unusual part size.
const KEEP_BYTES: usize = 512 << 20;

/// Idle part buffers of one store.
#[derive(Default)]
pub(super) struct Parts {
    free: Mutex<Vec<Vec<u8>>>,
}

impl Parts {
    /// An empty buffer with room for at least `cap` bytes: an idle one if any is large enough.
    pub(super) fn take(&self, cap: usize) -> Vec<u8> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        match free.iter().position(|b| b.capacity() >= cap) {
            Some(i) => {
                let mut b = free.swap_remove(i);
                b.clear();
                b
            }
            None => Vec::with_capacity(cap),
        }
    }

    /// `data` as a request's body; its buffer comes back here once the client drops the body's last
    /// copy (after the request and any retry).
    pub(super) fn body(self: &Arc<Self>, data: Vec<u8>) -> Bytes {
        Bytes::from_owner(Returning { buf: data, to: Arc::downgrade(self) })
    }

    fn give_back(&self, buf: Vec<u8>) {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let held: usize = free.iter().map(|b| b.capacity()).sum();
        if held + buf.capacity() <= KEEP_BYTES {
            free.push(buf);
        }
    }

    #[cfg(test)]
    fn idle(&self) -> usize {
        self.free.lock().unwrap().len()
    }
}

/// A body's buffer on its way back to the pool.
struct Returning {
    buf: Vec<u8>,
    to: Weak<Parts>,
}

impl AsRef<[u8]> for Returning {
    fn as_ref(&self) -> &[u8] {
        &self.buf
    }
}

impl Drop for Returning {
    fn drop(&mut self) {
        if let Some(parts) = self.to.upgrade() {
            parts.give_back(std::mem::take(&mut self.buf));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_buffer_comes_back_when_its_last_copy_goes() {
        let parts = Arc::new(Parts::default());
        let mut b = parts.take(1 << 20);
        b.extend_from_slice(b"part one");
        let at = b.as_ptr();
        let body = parts.body(b);
        let copy = body.slice(5..);
        assert_eq!((&body[..], &copy[..]), (&b"part one"[..], &b"one"[..]));
        drop(body);
        assert_eq!(parts.idle(), 0, "a copy still holds it");
        drop(copy);
        assert_eq!(parts.idle(), 1);
        // The same allocation, empty, for a request of at most its size; a larger one gets a new one.
        let again = parts.take(4096);
        assert_eq!((again.as_ptr(), again.len(), again.capacity() >= 1 << 20), (at, 0, true));
        parts.give_back(again);
        let larger = parts.take(2 << 20);
        assert!(larger.capacity() >= 2 << 20 && larger.as_ptr() != at);
        assert_eq!(parts.idle(), 1);
        // Idle buffers are bounded in bytes: a buffer beyond KEEP_BYTES is freed.
        parts.give_back(Vec::with_capacity(KEEP_BYTES));
        assert_eq!(parts.idle(), 1);
    }
}
